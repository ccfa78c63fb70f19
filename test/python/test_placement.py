"""The static-offset allocator (transforms/plan/placement.py) and its CLI (tools/place.py).

Oracles are independent of the code under test: the lower bound is recomputed by brute force
(bytes live at every integer time), overlaps by a pairwise check written here, small optima by
hand, and greedy-by-size's arena on the MiniMalloc instances is the figure MiniMalloc's
authors publish (1,352,704 bytes on A and K).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tigris.transforms.plan.placement import Buffer, Problem, greedy, lower_bound, place
from tigris.transforms.plan.placement.greedy import orders
from tigris.transforms.plan.placement.search import solve

MINIMALLOC = Path(__file__).resolve().parents[3] / "shared" / "data" / "minimalloc"


def brute_lower_bound(buffers: list[Buffer], align: int) -> int:
    if not buffers:
        return 0
    times = range(min(b.start for b in buffers), max(b.end for b in buffers))
    return max(sum(-(-b.size // align) * align for b in buffers if b.start <= t < b.end) for t in times)


def assert_valid(buffers: list[Buffer], offsets: dict, align: int) -> None:
    assert set(offsets) == {b.id for b in buffers}
    for b in buffers:
        assert offsets[b.id] >= 0 and offsets[b.id] % align == 0
    for i, x in enumerate(buffers):
        for y in buffers[i + 1 :]:
            in_time = x.start < y.end and y.start < x.end
            in_space = offsets[x.id] < offsets[y.id] + y.size and offsets[y.id] < offsets[x.id] + x.size
            assert not (in_time and in_space and x.size and y.size), (x, y, offsets[x.id], offsets[y.id])


@st.composite
def buffer_sets(draw: st.DrawFn, max_buffers: int = 14) -> list[Buffer]:
    n = draw(st.integers(0, max_buffers))
    result = []
    for i in range(n):
        start = draw(st.integers(0, 12))
        result.append(Buffer(f"b{i}", start, start + draw(st.integers(1, 6)), draw(st.integers(0, 100))))
    return result


@settings(max_examples=150, deadline=None)
@given(buffer_sets(), st.sampled_from([1, 4, 16]))
def test_random_sets_are_valid_and_never_below_the_bound(buffers: list[Buffer], align: int) -> None:
    result = place(buffers, align=align, time_limit=0.5)
    assert_valid(buffers, result.offsets, align)
    assert result.lower_bound == brute_lower_bound(buffers, align)
    arena = max((result.offsets[b.id] + -(-b.size // align) * align for b in buffers), default=0)
    assert result.arena == arena >= result.lower_bound


def brute_optimum(buffers: list[Buffer]) -> int:
    """The smallest arena, by trying every offset of every buffer (branch and bound on the
    arena only: no canonical placements, nothing shared with the code under test)."""
    best = sum(b.size for b in buffers)
    offsets: list[int] = []

    def extend(i: int, top: int) -> None:
        nonlocal best
        if top >= best and i:
            return
        if i == len(buffers):
            best = top
            return
        x = buffers[i]
        for off in range(best - x.size + 1):
            if all(
                not (x.start < y.end and y.start < x.end and off < o + y.size and o < off + x.size)
                for y, o in zip(buffers, offsets)
            ):
                offsets.append(off)
                extend(i + 1, max(top, off + x.size))
                offsets.pop()

    extend(0, 0)
    return best


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 3), st.integers(1, 4)), max_size=6))
def test_small_sets_are_placed_optimally(specs: list[tuple[int, int, int]]) -> None:
    """Up to six buffers the search finishes: its arena is the optimum, and `optimal` holds."""
    buffers = [Buffer(i, start, start + length, size) for i, (start, length, size) in enumerate(specs)]
    result = place(buffers, time_limit=30)
    assert result.optimal and result.arena == brute_optimum(buffers)


@settings(max_examples=40, deadline=None)
@given(buffer_sets())
def test_same_input_same_offsets(buffers: list[Buffer]) -> None:
    assert place(buffers, align=8).offsets == place(buffers, align=8).offsets


@given(buffer_sets(), st.sampled_from([1, 3, 32]))
def test_lower_bound_matches_brute_force(buffers: list[Buffer], align: int) -> None:
    assert lower_bound(buffers, align) == brute_lower_bound(buffers, align)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=6))
def test_search_alone_finds_the_optimum_and_proves_one_less_impossible(
    specs: list[tuple[int, int, int]],
) -> None:
    """The exact search on its own (the greedy stage reaches the optimum on most small sets,
    so `place` would rarely call it): at the brute-force optimum it returns a valid
    placement, one byte below it proves there is none."""
    buffers = [Buffer(i, start, start + length, size) for i, (start, length, size) in enumerate(specs)]
    best = brute_optimum(buffers)
    p = Problem.of([b.start for b in buffers], [b.end for b in buffers], [b.size for b in buffers])
    _, preorders = orders(p)
    offsets: dict = {}
    for part in p.partitions:
        found = solve(p, part, best, preorders, deadline=time.monotonic() + 30)
        assert found is not None and set(found) == set(part)
        offsets.update(found)
        assert max(found[i] + p.sizes[i] for i in part) <= best
    assert_valid(buffers, offsets, 1)
    assert any(
        solve(p, part, best - 1, preorders, deadline=time.monotonic() + 30) is None for part in p.partitions
    )


def test_size_order_is_not_enough() -> None:
    """By hand: x (3 bytes, [0,2)), y (2, [1,3)), z (2, [2,4)), w (3, [3,5)); bytes live per
    step 3, 5, 4, 5, 3, so LB = 5. Largest first: x at 0, w at 0 (no overlap with x), y above
    x at 3, z overlaps y [3,5) and w [0,3): at 5, arena 7. At the bound: x 0, y 3, z 0, w 2."""
    buffers = [Buffer("x", 0, 2, 3), Buffer("y", 1, 3, 2), Buffer("z", 2, 4, 2), Buffer("w", 3, 5, 3)]
    p = Problem.of([b.start for b in buffers], [b.end for b in buffers], [b.size for b in buffers])
    by_size = greedy(p, sorted(range(4), key=lambda i: (-buffers[i].size, i)), best_fit=True)
    assert p.top(by_size, range(4)) == 7
    result = place(buffers)
    assert (result.arena, result.lower_bound, result.optimal) == (5, 5, True)
    assert result.offsets == {"x": 0, "y": 3, "z": 0, "w": 2}


def test_alignment_rounds_sizes_up() -> None:
    """Two 5-byte buffers live together at align 8: offsets 0 and 8, arena 16."""
    result = place([Buffer(0, 0, 2, 5), Buffer(1, 1, 3, 5)], align=8)
    assert sorted(result.offsets.values()) == [0, 8] and result.arena == result.lower_bound == 16


def test_zero_size_and_empty() -> None:
    assert place([]).arena == 0
    result = place([Buffer("z", 0, 1, 0), Buffer("a", 0, 1, 4)])
    assert result.offsets == {"z": 0, "a": 0} and result.arena == 4


@pytest.mark.parametrize(
    ("buffer", "message"),
    [
        (Buffer("n", 0, 1, -1), "buffer n: size -1 is negative"),
        (Buffer("e", 2, 2, 1), "buffer e: end 2 is not after start 2"),
    ],
)
def test_bad_buffers_are_refused(buffer: Buffer, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        place([buffer])


def _instance(name: str) -> list[Buffer]:
    from tigris.tools.place import read_buffers

    path = MINIMALLOC / f"{name}.1048576.csv"
    # the team's shared/ folder sits beside every clone, CI's included: a missing instance is a
    # broken checkout, and must fail rather than skip the allocator's main target
    assert path.exists(), f"{path} not found: the MiniMalloc instances live in shared/data/minimalloc"
    return read_buffers(path)


@pytest.mark.parametrize("name", ["A", "K"])
def test_greedy_by_size_matches_the_published_figure(name: str) -> None:
    buffers = _instance(name)
    p = Problem.of([b.start for b in buffers], [b.end for b in buffers], [b.size for b in buffers])
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, i))
    assert p.top(greedy(p, order, best_fit=False), range(len(buffers))) == 1352704


@pytest.mark.parametrize("name", ["A", "K"])
def test_minimalloc_instances_within_five_percent(name: str) -> None:
    """The issue's target (<= +5%); the search reaches the bound on both in about a second
    (bench/offsets.py prints the time; a timed test would only measure the machine)."""
    buffers = _instance(name)
    result = place(buffers, time_limit=10.0)
    assert result.lower_bound == 1048576
    assert_valid(buffers, result.offsets, 1)
    assert result.arena <= 1.05 * result.lower_bound and result.method == "search"


def test_no_time_keeps_the_greedy_placement() -> None:
    """With no time for the search the best greedy placement comes back, valid, not optimal."""
    buffers = _instance("A")
    result = place(buffers, time_limit=0.0)
    assert_valid(buffers, result.offsets, 1)
    assert result.lower_bound < result.arena < 1352704 and not result.optimal and "fit by" in result.method


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tigris.tools.place", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_prints_arena_bound_ratio_time(tmp_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_text("buffer,start,end,size\nx,0,2,3\ny,1,3,2\nz,2,4,2\nw,3,5,3\n")
    proc = run_cli(str(path), "--offsets")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["arena", "5"] and lines[1].split() == ["lower", "bound", "5"]
    assert lines[2].startswith("ratio        1.0000 (LB") or lines[2].startswith(
        "ratio        1.0000 (+0.00%"
    )
    assert lines[4].startswith("time") and lines[5] == "buffer,offset"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("buffer,start,end\nx,0,1\n", "the header must name buffer,start,end,size; missing size"),
        ("buffer,start,end,size\nx,0,1,-4\n", "b.csv:2: buffer x: size -4 is negative"),
        ("buffer,start,end,size\nx,0,1,4\ny,3,3,4\n", "b.csv:3: buffer y: end 3 is not after start 3"),
        ("buffer,start,end,size\nx,0,one,4\n", "b.csv:2: end: expected an integer, got 'one'"),
        ("buffer,start,end,size\nx,0,1\n", "b.csv:2: expected 4 fields, got 3"),
        ("buffer,start,end,size\nx,0,1,4\nx,1,2,4\n", "b.csv:3: buffer 'x' appears twice"),
    ],
)
def test_cli_errors_are_one_line(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "b.csv"
    path.write_text(content)
    proc = run_cli(str(path))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ") and expected in proc.stderr


def test_cli_missing_file(tmp_path: Path) -> None:
    proc = run_cli(str(tmp_path / "none.csv"))
    assert (
        proc.returncode == 1 and proc.stderr.startswith("error: cannot read") and proc.stderr.count("\n") == 1
    )


@pytest.mark.parametrize(
    ("flag", "expected"),
    [(("--align", "0"), "--align must be at least 1"), (("--time-limit", "-1"), "--time-limit must be")],
)
def test_cli_bad_flags(tmp_path: Path, flag: tuple[str, str], expected: str) -> None:
    path = tmp_path / "b.csv"
    path.write_text("buffer,start,end,size\nx,0,1,4\n")
    proc = run_cli(str(path), *flag)
    assert (
        proc.returncode == 1 and proc.stderr.startswith(f"error: {expected}") and proc.stderr.count("\n") == 1
    )


def test_bench_prints_a_model_row() -> None:
    """bench/offsets.py on one zoo model: its buffers reach the bound and their LB equals the
    planner's memory-timeline peak (the bench's own cross-check), so the bench cannot rot."""
    bench = Path(__file__).resolve().parents[2] / "bench" / "offsets.py"
    proc = subprocess.run(
        [sys.executable, str(bench), "--skip-light", "--models", "conv1d", "--time-limit", "0.5"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = [line.split() for line in proc.stdout.splitlines() if line.startswith("conv1d ")]
    assert row[4:5] == ["LB"] and row[7] == "yes"
    assert "summary (issue G9, Done-when)" in proc.stdout
