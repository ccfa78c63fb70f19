"""The reader trusts nothing: each corruption is rejected with its own message, and random
mutations never raise anything but TgrsFormatError.

Corruptions are made at the byte level (the CRC is then recomputed, so the check under
test is the one that fires). The valid plans come from test_tgrs_roundtrip.py; the cases
live in test/support/tgrs_corruptions.py, which the C loader's tests share.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from tgrs_corruptions import CASES, FILES, mutate  # test/support (on sys.path via conftest.py)
from tigris.emit.tgrs import TgrsFormatError, read_plan, write_plan


@pytest.mark.parametrize(("base", "corrupt", "code", "message"), CASES, ids=[c[3][:40] for c in CASES])
def test_corruption_is_rejected_with_its_own_message(
    base: str, corrupt: Callable[[bytes], bytes], code: str, message: str
) -> None:
    data = corrupt(FILES[base])
    assert data != FILES[base]
    with pytest.raises(TgrsFormatError, match=message) as info:
        read_plan(data)
    assert info.value.code == code
    assert str(info.value).count("\n") == 0


def test_messages_are_distinct() -> None:
    messages = set()
    for base, corrupt, _, _ in CASES:
        with pytest.raises(TgrsFormatError) as info:
            read_plan(corrupt(FILES[base]))
        messages.add(str(info.value))
    assert len(messages) == len(CASES)


def test_random_mutations_only_raise_format_errors() -> None:
    rng = random.Random(20240611)
    codes: dict[str, int] = {}
    messages: set[str] = set()
    accepted = 0
    bases = list(FILES.values())
    for _ in range(2000):
        data = mutate(rng, rng.choice(bases))
        try:
            plan = read_plan(data)
        except TgrsFormatError as e:
            codes[e.code] = codes.get(e.code, 0) + 1
            messages.add(str(e).split(":")[1])
            continue
        accepted += 1
        write_plan(plan)  # whatever the reader accepts is a plan the writer can write
    assert {"BAD_RECORD", "BAD_SECTION", "BAD_CRC", "BAD_SIZE", "TOO_SMALL"} <= set(codes), codes
    assert codes["BAD_RECORD"] > 300, codes  # most mutations get past the container checks
    assert len(messages) > 40, sorted(messages)
