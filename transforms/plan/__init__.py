"""Memory planning: lifetimes, the memory timeline, temporal stages, spatial and chain tiling.

The analyses work on `PlanGraph`, a plain snapshot of `@main` (steps and tensors with
sizes and tiling facts read from op traits), so they are cheap to run and easy to test
on random graphs; the passes in `passes.py` write their results as `tgr.*` attributes.
"""
