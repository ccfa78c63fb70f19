"""The C loader (runtime/src/tigris_loader.c, tigris_lz4.c, tigris_crc32.c) agrees with the
Python reader, bit for bit on the error codes.

`runtime/tests/load_plan.c` loads `.tgrs` files from heap blocks of exactly their size and
prints the `tigris_error_t` name; `runtime/tests/test_lz4.c` drives the LZ4 decoder and the
CRC. Every test runs them built with AddressSanitizer + UndefinedBehaviorSanitizer (the
normal build is checked to compile and agree), and a sanitizer report fails the test.

- every zoo model, at a roomy and a tiling budget, stored raw, LZ4 and XIP: TIGRIS_OK, and
  every `tigris_plan_t` field is what the header and section table say;
- every corruption case of test/support/tgrs_corruptions.py (shared with the reader's
  test_tgrs_corruption.py): the code the Python reader raises;
- C-only checks: a misaligned buffer (BAD_ALIGN), plans just over each compiled limit of
  tigris.h (PLAN_LIMITS, built with small -DTIGRIS_MAX_*), extension op types;
- LZ4 streams of python-lz4 decode to their input, malformed ones fail cleanly, and random
  mutations decode exactly as python-lz4 decodes them; CRC-32 equals zlib's;
- no function of the three sources has a stack frame over 1 KiB.
"""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import lz4.block
import pytest
from stack_usage import assert_stack_usage  # test/support
from tgrs_corruptions import CASES, FILES, lz4_has_zero_offset, sections, set_field  # test/support
from tgrs_zoo import REPRESENTATIVE, VARIANTS, zoo_plan  # test/support
from tigris.emit.tgrs import (
    Op,
    PlanFile,
    Stage,
    Tensor,
    TgrsFormatError,
    TilePlan,
    Weight,
    read_plan,
    write_plan,
)
from tigris.emit.tgrs.enums import DType, FileFlag, OpType, WeightLayout
from tigris.emit.tgrs.enums import SectionKind as K
from tigris.emit.tgrs.records import HEADER, OP
from tigris.tools import runtime_build

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "runtime" / "src"
TOOLS = ROOT / "runtime" / "tests"
SOURCES = [SRC / "tigris_loader.c", SRC / "tigris_lz4.c", SRC / "tigris_crc32.c"]
BUDGETS = (1 << 22, 8192)  # roomy; small enough that every conv model tiles
F32 = DType.F32


def tool(main: str, *, sanitize: bool = True, flags: Sequence[str] = ()) -> Path:
    name = Path(main).stem + ("_asan" if sanitize else "")
    return runtime_build.build(name, [*SOURCES, TOOLS / main], sanitize=sanitize, extra_flags=flags)


def run(args: Sequence[str | Path]) -> str:
    """Run a test tool; it must exit 0 with nothing on stderr (no sanitizer report)."""
    result = subprocess.run(
        [str(a) for a in args],
        check=False,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    assert result.returncode == 0 and not result.stderr, (
        f"{args[0]}: exit {result.returncode}\n{result.stderr}"
    )
    return result.stdout


def load(
    files: Sequence[bytes], *, exe: Path | None = None, offset: int = 0, fields: bool = False
) -> list[str]:
    """The loader's verdict on each file (`TIGRIS_OK`, `TIGRIS_ERR_BAD_CRC`, ...), or with
    `fields` the whole output per file (its verdict line and its field lines)."""
    exe = exe or tool("load_plan.c")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, data in enumerate(files):
            path = Path(tmp) / f"{i}.tgrs"
            path.write_bytes(data)
            paths.append(path)
        opts = [*(["--offset", str(offset)] if offset else []), *(["--fields"] if fields else [])]
        out = run([exe, *opts, *paths])
    if not fields:
        lines = out.split()
        assert len(lines) == len(files)
        return lines
    blocks = out.replace("\n  ", "\t").splitlines()
    assert len(blocks) == len(files)
    return blocks


def c_name(code: str) -> str:
    """The tigris_error_t name of a TgrsFormatError code (or "OK")."""
    return "TIGRIS_OK" if code == "OK" else f"TIGRIS_ERR_{code}"


def python_code(data: bytes) -> str:
    try:
        read_plan(data)
    except TgrsFormatError as e:
        return e.code
    return "OK"


# ---- builds ---------------------------------------------------------------------------


def test_normal_and_sanitized_builds_agree() -> None:
    files = [*FILES.values(), *(corrupt(FILES[base]) for base, corrupt, _, _ in CASES)]
    assert load(files, exe=tool("load_plan.c", sanitize=False)) == load(files)


def test_error_strings() -> None:
    lines = [line.split(" ", 2) for line in run([tool("load_plan.c"), "--error-strings"]).splitlines()]
    texts = {int(code): text for code, _, text in lines}
    assert sorted(texts) == list(range(-13, 1))
    assert texts[-13] == "unknown error"
    known = [texts[c] for c in range(-12, 1)]
    assert all(known) and len(set(known)) == len(known) and "unknown error" not in known


def test_stack_frames_stay_under_1k() -> None:
    usage = assert_stack_usage(SOURCES, limit=1024)
    assert any(name.endswith(":tigris_plan_load") for name in usage["-O2"])


@pytest.mark.skipif(shutil.which("size") is None, reason="binutils `size` is not installed")
def test_loader_object_size() -> None:
    """Flash footprint of the loader at -Os (text + data); a loose bound against bloat."""
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / "tigris_loader.o"
        subprocess.run([runtime_build.compiler(), *runtime_build.STRICT_FLAGS, "-Os",
                        f"-I{runtime_build.INCLUDE_DIR}", "-c", str(SOURCES[0]), "-o", str(obj)], check=True)  # fmt: skip
        text, data, bss = (int(v) for v in subprocess.run(
            ["size", str(obj)], capture_output=True, text=True, check=True).stdout.splitlines()[1].split()[:3])  # fmt: skip
    assert data == 0 and bss == 0  # no mutable globals
    assert text < 12 * 1024, text


# ---- valid plans ------------------------------------------------------------------------


def expected_fields(data: bytes) -> dict[str, str]:
    """What each tigris_plan_t field must be, from the header and section table."""
    h = dict(zip(HEADER.names, HEADER.struct.unpack_from(data, 0)))
    secs = sections(data)

    def at(kind: K) -> str:
        return str(secs[kind][0]) if kind in secs else "-1"

    index = secs[K.INDEX_POOL][0]
    name_off = secs[K.STRINGS][0] + h["name"]
    return {
        "header": "0", "tensors": at(K.TENSORS), "ops": at(K.OPS), "stages": at(K.STAGES),
        "tile_plans": at(K.TILE_PLANS), "index_pool": at(K.INDEX_POOL), "shape_pool": at(K.SHAPE_POOL),
        "strings": at(K.STRINGS), "weight_entries": at(K.WEIGHT_ENTRIES), "weight_blob": at(K.WEIGHT_BLOB),
        "weight_blocks": at(K.WEIGHT_BLOCKS), "weight_blocks_data": at(K.WEIGHT_BLOCK_DATA),
        "num_weight_blocks": str(h["num_weight_blocks"]),
        "weight_compression": "1" if h["flags"] & FileFlag.LZ4 else "0",
        "quant_params": at(K.QUANT_PARAMS), "quant_data": at(K.QUANT_DATA),
        "num_quant_params": str(h["num_quant_params"]),
        "model_inputs": str(index + 2 * h["model_inputs"]), "model_outputs": str(index + 2 * h["model_outputs"]),
        "tables": at(K.TABLES), "num_model_inputs": str(h["num_model_inputs"]),
        "num_model_outputs": str(h["num_model_outputs"]),
        "index_pool_len": str(secs[K.INDEX_POOL][2]), "shape_pool_len": str(secs[K.SHAPE_POOL][2]),
        "quant_data_len": str(secs[K.QUANT_DATA][2] if K.QUANT_DATA in secs else 0),
        "model_name": data[name_off : data.index(b"\0", name_off)].decode(),
        "decompression_overhead": str(h["fast_reserved"]),
    }  # fmt: skip


def check_fields(files: dict[str, bytes]) -> None:
    for (key, data), out in zip(files.items(), load(list(files.values()), fields=True)):
        verdict, *lines = out.split("\t")
        assert verdict == "TIGRIS_OK", key
        got = dict(line.split(" ", 1) if " " in line else (line, "") for line in lines)
        assert got == expected_fields(data), key


def test_reader_fixture_plans_load_with_every_field() -> None:
    check_fields(FILES)


def test_zoo_plans_load(model_zoo: dict[str, Path]) -> None:
    """The representative zoo models (tgrs_zoo.REPRESENTATIVE: every op type, tile-plan kind,
    int8 and tables) at both budgets, raw and LZ4, and XIP and the greedy's cuts (chains) at the
    tiling budget (an XIP plan is the raw plan with the XIP flag: both budgets would add nothing
    but time). Every zoo model's
    plans are loaded and run by the C runtime in bench/e2e_sweep.py (its fields are compared here only)."""
    plans = {
        f"{key} {budget} {variant}": zoo_plan(model_zoo[key], budget, variant)
        for key in REPRESENTATIVE
        for budget in BUDGETS
        for variant in VARIANTS
        if variant not in ("xip", "greedy") or budget == BUDGETS[-1]  # the greedy's cuts: chains
    }
    check_fields(plans)


# ---- corruptions: the same code as the Python reader -------------------------------------


@pytest.fixture(scope="module")
def corruption_results() -> list[str]:
    return load([corrupt(FILES[base]) for base, corrupt, _, _ in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[3][:40] for c in CASES])
def test_corruption_gets_the_python_code(index: int, corruption_results: list[str]) -> None:
    base, corrupt, code, _ = CASES[index]
    assert python_code(corrupt(FILES[base])) == code
    assert corruption_results[index] == c_name(code)


def test_misaligned_buffer() -> None:
    plan, corrupt = FILES["int8"], FILES["int8"][:40]
    for offset in (1, 2, 3, 5):
        assert load([plan, corrupt], offset=offset) == ["TIGRIS_ERR_BAD_ALIGN"] * 2
    for offset in (4, 8, 12):  # records need 4-byte alignment only
        assert load([plan, corrupt], offset=offset) == ["TIGRIS_OK", "TIGRIS_ERR_TOO_SMALL"]


def test_extension_op_types_are_accepted() -> None:
    """tigris.h reserves op types 128..254 for extension ops (docs/extending.md): the loader
    and the Python reader accept them; UNKNOWN 255 and the unassigned codes below 128 (the gaps
    between the built-in ranges: 53..59 after the unary ops, 86..127 after the reductions) never."""
    files = [set_field(FILES["int8"], K.OPS, OP, 0, "op_type", t) for t in (128, 200, 254, 255, 53, 86, 127)]
    assert load(files) == ["TIGRIS_OK"] * 3 + ["TIGRIS_ERR_BAD_RECORD"] * 4
    assert [python_code(f) for f in files] == ["OK"] * 3 + ["BAD_RECORD"] * 4


def test_names_are_utf8_as_python_decodes_it() -> None:
    """The model name replaced by random bytes (mostly >= 0x80, no NUL): the loader's UTF-8
    check agrees with Python's strict decoder (overlongs, surrogates, > U+10FFFF, truncated)."""
    base = FILES["int8"]
    strings = sections(base)[K.STRINGS][0]
    name = strings + struct.unpack_from("<I", base, HEADER.offsets["name"])[0]
    width = base.index(b"\0", name) - name
    rng = random.Random(5)
    points = [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x10FFFF]
    odd = [0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0x9F, 0xA0, 0x8F, 0x90]
    files = []
    for _ in range(600):
        raw = b""
        while len(raw) < width:  # valid characters at the encoding boundaries...
            raw += chr(rng.choice(points)).encode()
        raw = bytearray((raw + b"a" * width)[:width])  # (a cut character is invalid)
        for _ in range(rng.choice((0, 0, 1, 2))):  # ...then odd bytes here and there
            raw[rng.randrange(width)] = rng.choice(odd)
        d = base[:name] + bytes(raw) + base[name + width :]
        files.append(d[:16] + struct.pack("<I", zlib.crc32(d[64:])) + d[20:])
    expected = [c_name(python_code(d)) for d in files]
    assert min(expected.count("TIGRIS_OK"), expected.count("TIGRIS_ERR_BAD_RECORD")) > 100, expected
    assert load(files) == expected


# ---- compiled limits --------------------------------------------------------------------


def _plan(tensors: list[Tensor], ops: list[Op], stages: list[Stage], inputs, outputs, **kw) -> bytes:
    return write_plan(PlanFile("limits", tensors, ops, stages, tuple(inputs), tuple(outputs), **kw))


def many_model_io(k: int, outputs: bool) -> bytes:
    """k model inputs concatenated, or one input relu'd into k model outputs."""
    if outputs:
        t = [Tensor("x", F32, (1, 4))] + [Tensor(f"y{i}", F32, (1, 4)) for i in range(k)]
        ops = [Op(OpType.RELU, f"r{i}", (0,), (i + 1,)) for i in range(k)]
        return _plan(t, ops, [Stage(tuple(range(k)), (0,), tuple(range(1, k + 1)), 64)], [0], range(1, k + 1))
    t = [Tensor(f"x{i}", F32, (1, 4)) for i in range(k)] + [Tensor("y", F32, (1, 4 * k))]
    ops = [Op(OpType.CONCAT, "cat", tuple(range(k)), (k,), axis=1)]
    return _plan(t, ops, [Stage((0,), tuple(range(k)), (k,), 64)], range(k), [k])


def reload_set(k: int, reload: Sequence[int] | None = None) -> bytes:
    """Stage 0 relus one input into k tensors, stage 1 reloads them (or `reload`) and
    concatenates them: one model input, one output."""
    t = [Tensor("x", F32, (1, 4))] + [Tensor(f"t{i}", F32, (1, 4)) for i in range(k)]
    t.append(Tensor("y", F32, (1, 4 * k)))
    ops = [Op(OpType.RELU, f"r{i}", (0,), (i + 1,)) for i in range(k)]
    ops.append(Op(OpType.CONCAT, "cat", tuple(range(1, k + 1)), (k + 1,), axis=1))
    spilled = tuple(range(1, k + 1))
    stages = [Stage(tuple(range(k)), (0,), spilled, 64), Stage((k,), tuple(reload or spilled), (k + 1,), 64)]
    return _plan(t, ops, stages, [0], [k + 1])


def relu_chain(m: int, shape: tuple[int, ...], tiled: bool, constant: bool = False) -> bytes:
    """x -> m relus in one stage (tiled or not); with `constant`, then + a constant."""
    t = [Tensor(f"a{i}", F32, shape) for i in range(m + 1)]
    ops = [Op(OpType.RELU, f"r{i}", (i,), (i + 1,)) for i in range(m)]
    weights, tiles = [], []
    if constant:
        t += [Tensor("w", F32, shape, weight=0), Tensor("out", F32, shape)]
        ops.append(Op(OpType.ADD, "add", (m, m + 1), (m + 2,)))
        weights = [Weight(bytes(4 * (2 * 64)), WeightLayout.CHANNELS_LAST)]
    if tiled:
        tiles = [TilePlan(tile_h=4, num_tiles=2, halo=0, out_h=8, peak=64)]
    out = len(t) - 1
    stage = Stage(tuple(range(len(ops))), (0,), (out,), 4096, tile_plan=0 if tiled else None)
    return _plan(t, ops, [stage], [0], [out], tile_plans=tiles, weights=weights)


def wide_concat(operands: Sequence[int]) -> bytes:
    """x relu'd into max(operands) + 1 tensors, then one concat of `operands`, one stage."""
    k = max(operands) + 1
    t = [Tensor("x", F32, (1, 4))] + [Tensor(f"t{i}", F32, (1, 4)) for i in range(k)]
    t.append(Tensor("y", F32, (1, 4 * len(operands))))
    ops = [Op(OpType.RELU, f"r{i}", (0,), (i + 1,)) for i in range(k)]
    ops.append(Op(OpType.CONCAT, "cat", tuple(o + 1 for o in operands), (k + 1,), axis=1))
    return _plan(t, ops, [Stage(tuple(range(k + 1)), (0,), (k + 1,), 64)], [0], [k + 1])


RANK4 = (1, 2, 8, 8)
SLOW4 = ("TIGRIS_MAX_SLOW_ALLOCS=4",)
BANDS4 = ("TIGRIS_MAX_BANDS=4",)
OPS4 = ("TIGRIS_MAX_FAST_ALLOCS=2", "TIGRIS_MAX_SLOW_ALLOCS=2")  # at most 4 operands per op
LIMIT_CASES = [
    # (-D flags, plan, expected): each limit at its boundary, and what it does not count
    (SLOW4, many_model_io(4, outputs=False), "OK"),
    (SLOW4, many_model_io(5, outputs=False), "PLAN_LIMITS"),
    (SLOW4, many_model_io(4, outputs=True), "OK"),
    (SLOW4, many_model_io(5, outputs=True), "PLAN_LIMITS"),
    (SLOW4, reload_set(4), "OK"),
    (SLOW4, reload_set(5), "PLAN_LIMITS"),
    (SLOW4, reload_set(5, reload=(1, 2, 3, 4, 1, 2)), "OK"),  # distinct tensors count
    (BANDS4, relu_chain(3, RANK4, tiled=True), "OK"),  # 4 activations
    (BANDS4, relu_chain(4, RANK4, tiled=True), "PLAN_LIMITS"),
    (BANDS4, relu_chain(4, RANK4, tiled=False), "OK"),  # not tiled: no bands
    (BANDS4, relu_chain(6, (1, 64), tiled=True), "OK"),  # rank 2: never banded
    (BANDS4, relu_chain(2, RANK4, tiled=True, constant=True), "OK"),  # the constant is not banded
    (BANDS4, relu_chain(3, RANK4, tiled=True, constant=True), "PLAN_LIMITS"),
    (OPS4, wide_concat([0, 1, 2]), "OK"),
    (OPS4, wide_concat([0, 1, 2, 3]), "PLAN_LIMITS"),
    (OPS4, wide_concat([0, 0, 1, 1, 2, 2]), "OK"),
]


@pytest.mark.parametrize(
    ("flags", "plan", "expected"),
    LIMIT_CASES,
    ids=[f"{'+'.join(c[0])}-{i}" for i, c in enumerate(LIMIT_CASES)],
)
def test_plan_limits(flags: tuple[str, ...], plan: bytes, expected: str) -> None:
    assert python_code(plan) == "OK"  # limits are the C loader's alone
    assert load([plan], exe=tool("load_plan.c", flags=[f"-D{f}" for f in flags])) == [c_name(expected)]
    assert load([plan]) == ["TIGRIS_OK"]  # within the default limits


# ---- LZ4 and CRC --------------------------------------------------------------------------


def decode(cases: Sequence[tuple[bytes, int]]) -> list[bytes | None]:
    """tigris_lz4_decompress of each (stream, capacity): the output, or None for -1."""
    with tempfile.TemporaryDirectory() as tmp:
        args: list[str] = []
        for i, (stream, cap) in enumerate(cases):
            (Path(tmp) / f"{i}.lz4").write_bytes(stream)
            args += [str(cap), str(Path(tmp) / f"{i}.lz4"), str(Path(tmp) / f"{i}.out")]
        returned = [int(v) for v in run([tool("test_lz4.c"), "decode", *args]).split()]
        out = []
        for i, n in enumerate(returned):
            out.append(None if n < 0 else (Path(tmp) / f"{i}.out").read_bytes())
            assert n < 0 or len(out[-1]) == n
    return out


def _inputs() -> dict[str, bytes]:
    rng = random.Random(7)
    text = b"the quick brown fox jumps over the lazy dog; " * 40
    return {
        "empty": b"",
        "one byte": b"x",
        "twelve": b"abcdefghijkl",
        "thirteen repeated": b"a" * 13,
        "repetitive": b"a" * 1000,
        "random": bytes(rng.getrandbits(8) for _ in range(5000)),
        "long literal run": bytes(rng.getrandbits(8) for _ in range(300)) + b"z" * 100,
        "long match": b"abc" * 10000,  # match lengths with 255-extension bytes
        "overlapping": b"ab" * 200 + b"xyz" * 200,  # offsets 2 and 3 < match length
        "text": text,
        "mixed": bytes(rng.getrandbits(2) for _ in range(4096)),
        "weights": bytes(16) * 8 + bytes(rng.getrandbits(8) for _ in range(700)) + bytes(100),
    }


def test_lz4_decodes_python_streams() -> None:
    inputs = _inputs()
    streams = {k: lz4.block.compress(x, store_size=False) for k, x in inputs.items()}
    assert any(len(s) < len(inputs[k]) // 10 for k, s in streams.items())
    cases, expect = [], []
    for k, x in inputs.items():
        for cap in (len(x), len(x) + 17):
            cases.append((streams[k], cap))
            expect.append(x)
        if x:
            cases.append((streams[k], len(x) - 1))  # one byte too small
            expect.append(None)
    assert decode(cases) == expect


def test_lz4_malformed_streams_fail_cleanly() -> None:
    lits = bytes(range(65, 65 + 16))
    stream = lz4.block.compress(b"0123456789" * 50, store_size=False)
    malformed = {
        "no input": (b"", 10),
        "offset 0": (bytes([0xF0, 1]) + lits + b"\x00\x00" + bytes([0x50]) + b"vwxyz", 64),
        "offset before the start": (bytes([0xF0, 1]) + lits + b"\x11\x00" + bytes([0x50]) + b"vwxyz", 64),
        "literals past the input": (bytes([0xF0, 40]) + lits, 100),
        "literal length runs off": (bytes([0xF0, 255, 255]), 1000),
        "match length runs off": (bytes([0x1F, 65, 1, 0, 255, 255]), 1000),
        "no last literals": (bytes([0xF0, 1]) + lits + b"\x01\x00", 64),
        "match in the last 5 bytes": (bytes([0xF0, 1]) + lits + b"\x01\x00" + bytes([0x20]) + b"yz", 64),
        "match 12 bytes from the end": (
            bytes([0xF0, 1]) + lits + b"\x01\x00" + bytes([0x70]) + b"tuvwxyz",
            64,
        ),
        "output too small": (stream, 499),
        "truncated offset": (stream[: stream.index(b"\x0a\x00") + 1], 500),
    }
    results = decode(list(malformed.values()))
    assert dict(zip(malformed, results)) == dict.fromkeys(malformed)
    # every strict prefix of a stream fails or decodes to less than the whole
    prefixes = decode([(stream[:n], 500) for n in range(len(stream))])
    assert all(p is None or len(p) < 500 for p in prefixes)
    # the end-of-block rules at their boundary: the last match starts 12 bytes before the end
    ok = bytes([0xF0, 1]) + lits + b"\x01\x00" + bytes([0x80]) + b"stuvwxyz"
    expected = lits + lits[-1:] * 4 + b"stuvwxyz"
    assert decode([(ok, 64), (ok, 28)]) == [expected] * 2
    assert lz4.block.decompress(ok, uncompressed_size=28) == expected


def test_lz4_random_mutations_decode_as_python_lz4() -> None:
    rng = random.Random(11)
    values = [x for x in _inputs().values() if len(x) >= 13]
    cases: list[tuple[bytes, int]] = []
    for _ in range(600):
        x = rng.choice(values)[: rng.choice([13, 40, 64, 100, 700, 5000])]
        s = bytearray(lz4.block.compress(x, store_size=False))
        for _ in range(rng.randint(1, 3)):
            how = rng.randrange(4)
            if how == 0:
                s[rng.randrange(len(s))] ^= 1 << rng.randrange(8)
            elif how == 1:
                s[rng.randrange(len(s))] = rng.choice([0, 1, 0x0F, 0xF0, 0xFF, rng.getrandbits(8)])
            elif how == 2:
                del s[rng.randrange(len(s)) :]
            else:
                s.insert(rng.randrange(len(s) + 1), rng.getrandbits(8))
            if not s:
                s = bytearray(b"\x00")
        cases.append((bytes(s), len(x) + rng.choice([0, 0, 0, 1, -1])))
    agreed = zero_offsets = 0
    results = decode(cases)
    for (stream, cap), ours in zip(cases, results):
        try:
            theirs = lz4.block.decompress(stream, uncompressed_size=cap)
        except lz4.block.LZ4BlockError:
            theirs = None
        if ours == theirs:
            agreed += 1
        else:  # the one known difference (tgrs_corruptions.py)
            assert ours is None and theirs is not None and lz4_has_zero_offset(stream), stream.hex()
            zero_offsets += 1
    assert agreed > 550 and sum(d is not None for d in results) > 50, (agreed, zero_offsets)


@pytest.mark.parametrize("small", [False, True], ids=["byte-table", "nibble-table"])
def test_crc32_matches_zlib(small: bool) -> None:
    rng = random.Random(3)
    blobs = [b"", b"123456789", bytes(1), bytes(rng.getrandbits(8) for _ in range(70001))]
    blobs += [bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 600))) for _ in range(20)]
    exe = tool("test_lz4.c", flags=["-DTIGRIS_CRC32_SMALL"] if small else [])
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, b in enumerate(blobs):
            paths.append(Path(tmp) / f"{i}.bin")
            paths[-1].write_bytes(b)
        for split in (0, 5, 1 << 20):
            got = run([exe, "crc", str(split), *paths]).split()
            assert got == [f"{zlib.crc32(b):08x}" for b in blobs]
    assert got[1] == "cbf43926"
