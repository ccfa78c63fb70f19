"""docs/tgrs-format.md keeps up with the definition: every record, field and op type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tigris.emit.tgrs.enums import DType, OpType, SectionKind, WeightLayout
from tigris.emit.tgrs.records import RECORDS, SECTION_ELEMENT

DOC = (Path(__file__).resolve().parents[2] / "docs" / "tgrs-format.md").read_text()


@pytest.mark.parametrize("rec", RECORDS, ids=[r.c_name for r in RECORDS])
def test_every_record_and_field_is_documented(rec) -> None:  # type: ignore[no-untyped-def]
    heading = re.search(rf"^#+ .*`{rec.c_name}` \((\d+) bytes\)$", DOC, re.MULTILINE)
    assert heading is not None, f"no heading for {rec.c_name}"
    assert int(heading.group(1)) == rec.size
    section = DOC[heading.end() : DOC.find("\n#", heading.end())]
    for f in rec.fields:
        assert re.search(rf"\| {rec.offsets[f.name]} \| [^|]*`{f.name}`", section), f"{rec.c_name}.{f.name}"


def test_every_op_type_is_documented_with_its_value() -> None:
    for m in OpType:
        if m is not OpType.UNKNOWN:
            assert f"| `{m.name}` | {m.value} |" in DOC, m.name


def test_section_kinds_layouts_and_dtypes_are_documented_with_their_values() -> None:
    for k in SectionKind:
        assert f"| {k.value} | `{k.name}` | {SECTION_ELEMENT[k]} |" in DOC, k.name
    for w in WeightLayout:
        assert f"| {w.value} | `{w.name}` |" in DOC, w.name
    for d in DType:
        assert f"`{d.name}` {d.value} ({d.size}" in DOC, d.name
