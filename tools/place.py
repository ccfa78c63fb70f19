"""`python -m tigris.tools.place buffers.csv [--align N] [--time-limit S]`: the offset allocator
on its own, for research.

Why a separate entry point: the allocator (transforms/plan/placement.py) is useful without
any model or `tigris-opt`: it reads the CSV format of MiniMalloc's benchmarks (header
`buffer,start,end,size`, one buffer live over [start, end) per row, extra columns ignored)
and prints the arena, the lower bound, their ratio and the time, so published instances
can be compared directly. A bad file is one `error:` line naming the row and field, exit 1.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tigris.transforms.plan.placement import Buffer, Placement, place, validate

COLUMNS = ("buffer", "start", "end", "size")


class InputError(ValueError):
    """A mistake in the CSV; the message is the whole error line."""


def _integer(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{where}: expected an integer, got {text!r}") from None


def read_buffers(path: Path) -> list[Buffer]:
    """The buffers of a MiniMalloc CSV; InputError names the first bad row and field
    (rows are counted as lines of the file, the header is line 1)."""
    try:
        text = path.read_text()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a text (CSV) file") from None
    rows = csv.reader(text.splitlines())
    header = [h.strip() for h in next(rows, [])]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}: the header must name {','.join(COLUMNS)}; missing {', '.join(missing)}")
    column = {c: header.index(c) for c in COLUMNS}
    buffers: list[Buffer] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise InputError(f"{path}:{line}: expected {len(header)} fields, got {len(row)}")
        name = row[column["buffer"]].strip()
        start, end, size = (_integer(row[column[c]].strip(), f"{path}:{line}: {c}") for c in COLUMNS[1:])
        buffer = Buffer(name, start, end, size)
        try:
            validate([buffer])  # the allocator's own rules, told with the row
        except ValueError as e:
            raise InputError(f"{path}:{line}: {e}") from None
        if name in seen:
            raise InputError(f"{path}:{line}: buffer {name!r} appears twice")
        seen.add(name)
        buffers.append(buffer)
    return buffers


def report(placement: Placement, seconds: float) -> str:
    gap = f"+{(placement.ratio - 1) * 100:.2f}%"
    return (
        f"arena        {placement.arena}\n"
        f"lower bound  {placement.lower_bound}\n"
        f"ratio        {placement.ratio:.4f} ({gap}{', optimal' if placement.optimal else ''})\n"
        f"found by     {placement.method}\n"
        f"time         {seconds:.3f} s\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tigris.tools.place", description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="buffer,start,end,size (MiniMalloc's format)")
    parser.add_argument("--align", type=int, default=1, help="every offset a multiple of N bytes (default 1)")
    parser.add_argument("--time-limit", type=float, default=2.0, help="seconds of search at most (default 2)")
    parser.add_argument("--offsets", action="store_true", help="also print buffer,offset for every buffer")
    args = parser.parse_args(argv)
    try:
        if args.align < 1:
            raise InputError(f"--align must be at least 1, got {args.align}")
        if not args.time_limit >= 0:
            raise InputError(f"--time-limit must be >= 0, got {args.time_limit}")
        buffers = read_buffers(args.csv)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    started = time.perf_counter()
    placement = place(buffers, align=args.align, time_limit=args.time_limit)
    sys.stdout.write(report(placement, time.perf_counter() - started))
    if args.offsets:
        sys.stdout.write("buffer,offset\n" + "".join(f"{b.id},{placement.offsets[b.id]}\n" for b in buffers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
