"""The op order the compiler schedules in: DFS post-order with reversed child order.

spec/pipeline.md: reversing child order biases the schedule toward consuming a
tensor soon after it is produced, which lowers peak memory. Concretely: a DFS over
consumer edges, children visited last-to-first, and the reverse of the finishing
order. A node's first consumer (in graph order) then follows it as closely as the
dependencies allow, and a whole branch runs before its sibling starts.
"""

from __future__ import annotations

from collections.abc import Sequence


class CycleError(ValueError):
    def __init__(self, node: int) -> None:
        super().__init__(node)
        self.node = node


def dfs_order(consumers: Sequence[Sequence[int]]) -> list[int]:
    """Topological order of nodes 0..n-1 given each node's consumers (in graph order).

    The DFS starts only from source nodes (no producer among the nodes), the last
    source first, so the first source's subgraph is scheduled first. Iterative, so
    deep graphs cannot overflow the Python stack; raises CycleError naming a node on
    a cycle (a cycle with no way in leaves nodes unvisited, reported the same way)."""
    n = len(consumers)
    has_producer = [False] * n
    for children in consumers:
        for child in children:
            has_producer[child] = True
    state = [0] * n  # 0 new, 1 on the DFS stack, 2 finished
    finished: list[int] = []
    for root in reversed([i for i in range(n) if not has_producer[i]]):
        if state[root]:
            continue
        state[root] = 1
        stack: list[tuple[int, int]] = [(root, len(consumers[root]))]
        while stack:
            node, remaining = stack[-1]
            if remaining == 0:
                stack.pop()
                state[node] = 2
                finished.append(node)
                continue
            stack[-1] = (node, remaining - 1)
            child = consumers[node][remaining - 1]  # last child first
            if state[child] == 1:
                raise CycleError(child)
            if state[child] == 0:
                state[child] = 1
                stack.append((child, len(consumers[child])))
    if len(finished) != n:
        raise CycleError(state.index(0))
    return finished[::-1]
