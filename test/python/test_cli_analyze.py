"""`tigris analyze`: size parsing, hand-computed plans of tiny models, the whole zoo, errors.

Expected numbers are worked out here by hand from the rules of transforms/plan/memory.py:
every tensor takes its size padded to the alignment (32 B by default); a tensor is live
during [birth, death] inclusive, so a step's inputs and outputs coexist; model outputs live
to the last step. Pointwise ops need as many input rows as output rows; a 3x3 conv with
pad 1 needs r + 2 input rows for r output rows.

Flash figures are the .tgrs file, laid out by hand from docs/tgrs-format.md: a 64-byte
header, a 16-byte section entry per present section, then the sections in kind order, each
starting 16-aligned: records (tensor 24 B, op 108, stage 28, tile plan 24, weight entry 12,
weight block 12), the u16 index pool (model inputs and outputs, each op's inputs and outputs,
each stage's ops, inputs and outputs), the i32 shape pool (every tensor's dims), the strings
(a leading NUL, then the graph, tensor and op names, NUL-terminated), the weight data.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
import zoo
from onnx import TensorProto, helper, numpy_helper

from tigris.tools.budgets import BudgetError, parse_align, parse_memory, parse_size
from tigris.tools.cli import main
from tigris.transforms.plan.passes import DEFAULT_ALIGN

K = 1024

# ---------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("262144", 262144), ("256K", 256 * K), ("256k", 256 * K), ("256KB", 256 * K), ("256KiB", 256 * K),
        ("256kib", 256 * K), ("1M", K * K), ("1MiB", K * K), ("4mb", 4 * K * K), ("1G", K * K * K),
        ("0.5M", 512 * K), ("1.5K", 1536), ("512B", 512), ("1", 1),
    ],
)  # fmt: skip
def test_valid_sizes(text: str, expected: int) -> None:
    assert parse_size(text, "-m") == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "expected a size"), ("12X", "expected a size"), ("-1", "expected a size"),
        ("1e3", "expected a size"), ("256 K", "expected a size"), ("K", "expected a size"),
        ("1.K", "expected a size"), ("256KiBB", "expected a size"),
        ("0", "at least 1 byte"), ("0K", "at least 1 byte"),
        ("0.3K", "307.2 bytes, not a whole number"), ("1.5", "1.5 bytes, not a whole number"),
    ],
)  # fmt: skip
def test_invalid_sizes_name_flag_and_value(text: str, reason: str) -> None:
    with pytest.raises(BudgetError) as e:
        parse_size(text, "-f")
    assert str(e.value).startswith(f"bad -f value '{text}': ") and reason in str(e.value)
    assert "\n" not in str(e.value)


def test_fast_plus_slow() -> None:
    assert parse_memory("256K") == (256 * K, None)
    assert parse_memory("64K+8M") == (64 * K, 8 * K * K)
    assert parse_memory("64K+0") == parse_memory("64K+0K") == (64 * K, 0)  # no PSRAM
    for bad in ("256K+", "+8M", "1+2+3", "64K+8X", "0+0", "64K+-0"):
        with pytest.raises(BudgetError, match=f"bad -m value '{bad.replace('+', '[+]')}'"):
            parse_memory(bad)


@pytest.mark.parametrize(
    ("text", "ok"), [("32", True), ("4", True), ("1", True), ("24", False), ("0", False), ("x", False), ("-8", False)]
)
def test_align(text: str, ok: bool) -> None:
    if ok:
        assert parse_align(text) == int(text)
    else:
        with pytest.raises(BudgetError, match=f"bad --align value '{text}': expected a power of two"):
            parse_align(text)


# ------------------------------------------------------------------ tiny models


def save(tmp_path: Path, name: str, nodes, inputs, outputs, weights=()) -> Path:
    graph = helper.make_graph(nodes, name, inputs, outputs, list(weights))
    path = tmp_path / f"{name}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def value(name: str, shape: list[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


@pytest.fixture
def relu3(tmp_path: Path) -> Path:
    """x -> Relu -> a (also a model output) -> Relu -> b -> Relu -> c (output); 1x1x8x8 float."""
    nodes = [helper.make_node("Relu", [i], [o], name=f"relu_{o}") for i, o in (("x", "a"), ("a", "b"), ("b", "c"))]
    shape = [1, 1, 8, 8]
    return save(tmp_path, "relu3", nodes, [value("x", shape)], [value("a", shape), value("c", shape)])


@pytest.fixture
def convs(tmp_path: Path) -> Path:
    """x -> 3x3 conv (pad 1) -> a -> 3x3 conv (pad 1) -> y; 1x2x8x8 float, no bias."""
    nodes = [
        helper.make_node("Conv", [i, w], [o], name=n, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        for i, w, o, n in (("x", "w1", "a", "conv1"), ("a", "w2", "y", "conv2"))
    ]
    weights = [numpy_helper.from_array(np.ones((2, 2, 3, 3), np.float32), w) for w in ("w1", "w2")]
    return save(tmp_path, "convs", nodes, [value("x", [1, 2, 8, 8])], [value("y", [1, 2, 8, 8])], weights)


def analyze_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["analyze", *args, "--json"]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


RELU_T = 1 * 1 * 8 * 8 * 4  # 256 B, a multiple of 32: no padding
RELU_ROW = RELU_T // 8  # 32 B


def test_relu3_one_stage(relu3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(relu3), "-m", "768")
    # step 0: x, a; step 1: a, b; step 2: a (an output: live to the end), b, c
    assert r["unscheduled_peak_bytes"] == 3 * RELU_T == 768
    assert r["largest_tensor"]["bytes"] == RELU_T
    assert (r["verdict"], r["fits"], r["stage_count"], r["scheduled_peak_bytes"]) == ("fits", True, 1, 768)
    assert r["headroom_bytes"] == 0
    # one stage loads x and spills the outputs a and c
    assert r["slow_traffic_bytes"] == {"written": 2 * RELU_T, "read": RELU_T}
    assert r["slow_peak_bytes"] == 3 * RELU_T and r["needs_slow_memory"] is False
    # the smallest arena: any one Relu tiled to one-row bands holds one row in, one row out
    assert r["min_budget_bytes"] == 2 * RELU_ROW == 64
    assert r["smallest_fitting_budget_bytes"] == 64 and r["smallest_pow2_budget_bytes"] == 64
    # flash: no weights; 6 sections: 64 + 6 * 16 = 160; tensors 4 * 24 at 160; ops 3 * 108 at 256
    # (to 580); stage 28 at 592 (to 620); index pool at 624: 1 input + 2 outputs + 3 ops * 2
    # + the stage's 3 ops, 1 input, 2 outputs = 15 * 2 (to 654); shape pool at 656: 4 tensors
    # * 4 dims * 4 = 64 (to 720); strings at 720: "" relu3 x a b c relu_a relu_b relu_c = 36
    assert r["flash_bytes"] == 720 + 36 == 756 and r["weight_bytes"] == 0
    assert r["dtype"] == "float32" and r["op_count"] == 3
    assert [t["name"] for t in r["outputs"]] == ["a", "c"]


def test_relu3_one_tiled_stage_beats_normal_stages(relu3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(relu3), "-m", "512")
    # the greedy cut: steps 0-1 peak at 2T; adding step 2 would hold a, b, c: [0,1] and [2,2],
    # spilling a, b, c and loading x, b: 5T. The shortest-path cut (the default) finds less:
    # the three Relus as one stage (3T untiled, a an output living to the end) tiled in bands
    # of 512 * 8 // 768 = 5 rows: 5 * 32 B of each of 3 live tensors = 480 <= 512, 2 tiles;
    # it loads x and spills the outputs a and c: 3T, b never leaves SRAM
    assert (r["verdict"], r["stage_count"], r["tiled_stages"], r["chains"]) == ("fits_tiled", 1, 1, 0)
    assert [(s["first_op"], s["last_op"], s["untiled_peak_bytes"]) for s in r["stages"]] == [
        ("relu_a", "relu_c", 3 * RELU_T),
    ]  # fmt: skip
    assert r["stages"][0]["inputs"] == ["x"] and r["stages"][0]["outputs"] == ["a", "c"]
    rows = {"tile_h": 5, "halo": 0, "tiles": 2, "chain": -1, "acc": 0, "tile_w": 0, "halo_w": 0, "tile_c": 0,
            "dense": False, "windows": 0, "cache": 0}
    assert r["stages"][0]["tile"] == rows
    assert r["slow_traffic_bytes"] == {"written": 2 * RELU_T, "read": RELU_T}
    # slow memory: x, a and c while the stage runs; tigris run agrees
    assert r["slow_peak_bytes"] == 3 * RELU_T and r["needs_slow_memory"] is True
    assert r["headroom_bytes"] == 512 - 3 * 5 * RELU_ROW == 32 and r["halo_overhead_pct"] == 0
    # sweep: one-row bands (3 * 32 = 96 B) already fit at /4; x2 and x4 hold everything untiled
    sweep = [(p["budget_bytes"], p["stage_count"]) for p in r["sweep"]]
    assert sweep == [(128, 1), (256, 1), (512, 1), (1024, 1), (2048, 1)]


def test_relu3_tiled(relu3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(relu3), "-m", "300")
    # every one-op stage holds 2T = 512 > 300; the three Relus as one stage (as at 512) are
    # tiled in bands of 300 * 8 // 768 - halo 0 = 3 rows: 3 * 3 * 32 = 288 <= 300, 3 tiles. It
    # moves 3T, less than the greedy's cut (stage 0 tiled alone, spilling a; stages 1-2
    # chained through b, loading a and spilling c: 4T)
    assert (r["verdict"], r["stage_count"], r["tiled_stages"], r["chained_stages"], r["chains"]) == (
        "fits_tiled", 1, 1, 0, 0,
    )  # fmt: skip
    rows = {"tile_h": 3, "halo": 0, "tiles": 3, "acc": 0, "tile_w": 0, "halo_w": 0, "tile_c": 0,
            "dense": False, "windows": 0, "cache": 0}  # full-width rows, no spatial op, no row caches
    assert [s["tile"] for s in r["stages"]] == [{**rows, "chain": -1}]
    assert r["scheduled_peak_bytes"] == 3 * 3 * RELU_ROW == 288 and r["headroom_bytes"] == 300 - 288
    # the stage reads x (all 8 rows once) and writes a and c
    assert r["slow_traffic_bytes"] == {"written": 2 * RELU_T, "read": RELU_T}
    assert r["slow_peak_bytes"] == 3 * RELU_T
    # flash: 7 sections (tile plans too): 64 + 7 * 16 = 176; tensors 96 (to 272); ops 3 * 108 at
    # 272 (to 596); stage 28 at 608 (to 636); the tile plan 56 at 640 (to 696); index pool at
    # 704: 1 + 2 + 6 + the stage's 3 ops, 1 input, 2 outputs = 15 * 2 (to 734); shape pool 64 at
    # 736; strings 36 at 800
    assert r["flash_bytes"] == 800 + 36 == 836


def test_compile_checks_the_psram_size(relu3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # at 300 B the plan holds x, a and c in slow memory while its tiles run (test_relu3_tiled): 3T
    out = tmp_path / "r.tgrs"
    assert main(["compile", str(relu3), "-m", f"300+{3 * RELU_T - 1}", "-o", str(out)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"error: the plan needs a slow buffer of {3 * RELU_T} bytes, 1 more than the PSRAM given "
        f"(-m 300+{3 * RELU_T - 1}); tigris analyze -m 300+{3 * RELU_T - 1} shows the stages"
    )
    assert not out.exists()
    assert main(["compile", str(relu3), "-m", f"300+{3 * RELU_T}", "-o", str(out)]) == 0 and out.exists()


def test_relu3_below_minimum_cannot_run(relu3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(relu3), "-m", "63")
    assert (r["verdict"], r["fits"], r["min_budget_bytes"]) == ("cannot_run", False, 64)
    assert main(["analyze", str(relu3), "-m", "63"]) == 0
    text = capsys.readouterr().out
    assert "verdict: cannot run: the 63 B budget is below the minimum 64 B" in text


@pytest.fixture
def diamond(tmp_path: Path) -> Path:
    """x -> Relu -> a -> Transpose (H, W) -> b; Add(a, b) -> c (output); 1x1x8x8 float."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("Transpose", ["a"], ["b"], name="transpose", perm=[0, 1, 3, 2]),
        helper.make_node("Add", ["a", "b"], ["c"], name="add"),
    ]
    shape = [1, 1, 8, 8]
    return save(tmp_path, "diamond", nodes, [value("x", shape)], [value("c", shape)])


def test_sram_only_diamond(diamond: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # The Transpose needs a and b whole (2T = 512 B, the minimum budget); untiled the model peaks
    # at the Add, a + b + c = 3T = 768 B (x is dead after the Relu). With PSRAM at 512 B:
    # [relu, transpose] untiled (2T), the Add tiled; a and b are passed between the stages (2T).
    r = analyze_json(capsys, str(diamond), "-m", "512")
    assert [(s["first_op"], s["inputs"], s["outputs"]) for s in r["stages"]] == [
        ("relu", ["x"], ["a", "b"]), ("add", ["a", "b"], ["c"]),
    ]  # fmt: skip
    # Without PSRAM that plan needs 512 + 2T = 1024 B; one untiled stage needs 768 B and passes
    # nothing: the smallest SRAM-only budget. The search plans the grid 512, 608 (512 * 2^(1/4)
    # = 608.9, to 32 B), 736 (724.1), 864 (861.1): 608 and 736 still cut there, passing a and b
    # (totals over 1024: their arenas hold the Add's bands besides), 864 runs one stage whose
    # arena is its 768 B peak; its total, 768, ends the grid.
    r = analyze_json(capsys, str(diamond), "-m", "512+0")
    sram = r["sram_only"]
    assert (sram["budget_bytes"], sram["fits"], sram["plan"]) == (512, False, None)
    low = sram["smallest"]
    assert (low["arena_bytes"], low["between_stages_bytes"], low["total_bytes"], low["stage_count"]) == (768, 0, 768, 1)
    assert low["model_io_bytes"] == 2 * RELU_T and low["slow_buffer_bytes"] == 2 * RELU_T  # x and c
    assert r["fits"] is False
    assert main(["analyze", str(diamond), "-m", "512+0"]) == 0
    text = capsys.readouterr().out
    assert "verdict: does not fit 512 B without PSRAM: the smallest SRAM-only budget is 768 B (-m 768+0)" in text
    # 1000 B: the largest budget of the grid under it (992) plans one stage: arena 768
    r = analyze_json(capsys, str(diamond), "-m", "1000+0")
    plan = r["sram_only"]["plan"]
    assert (plan["compile_budget_bytes"], plan["arena_bytes"], plan["total_bytes"]) == (992, 768, 768)
    assert (r["fits"], r["budget_bytes"], r["stage_count"]) == (True, 992, 1)
    # tigris compile -m T+0: the plan at the chosen budget, or the smallest budget in the error
    out = tmp_path / "d.tgrs"
    assert main(["compile", str(diamond), "-m", "768+0", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "SRAM only: arena 768 B + 0 B between stages = 768 B of 768" in said and out.exists()
    # the SRAM-only compile plans the module its search normalized: the bytes of a plain compile
    # at the budget it chose (992 for 1000+0, as analyze says above)
    plain = tmp_path / "plain.tgrs"
    assert main(["compile", str(diamond), "-m", "1000+0", "-o", str(out)]) == 0
    assert main(["compile", str(diamond), "-m", "992", "-o", str(plain)]) == 0
    assert out.read_bytes() == plain.read_bytes()
    capsys.readouterr()
    assert main(["compile", str(diamond), "-m", "767+0", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no plan fits 767 bytes without PSRAM (-m 767+0): the smallest SRAM-only budget is "
                   "768 bytes (-m 768+0: arena 768 + 0 between stages)"]
    assert main(["compile", str(diamond), "-m", "768+0", "-c", "lz4", "-o", str(out)]) == 1
    assert capsys.readouterr().err.startswith("error: -m FAST+0 (no PSRAM) and -c lz4 cannot be combined")


def test_between_stages_by_hand(diamond: Path) -> None:
    from tigris.tools.report.analysis import normalized_module, planned
    from tigris.tools.report.slow_memory import between_stages, model_io_bytes, slow_peak

    _, plan = planned(normalized_module(diamond), 512, DEFAULT_ALIGN)
    # groups [relu, transpose] and [add]: a and b are spilled by the first and read by the
    # second (2T); x (to group 0) and c (group 1) are the model's I/O: the slow buffer holds
    # a, b and c while the Add runs
    assert between_stages(plan) == 2 * RELU_T and model_io_bytes(plan) == 2 * RELU_T
    assert slow_peak(plan) == 3 * RELU_T


CONV_T = 1 * 2 * 8 * 8 * 4  # 512 B
CONV_ROW = CONV_T // 8  # 64 B
CONV_MACS = 2 * 8 * 8 * (2 * 3 * 3)  # outputs x (C_in * kh * kw) = 2304 per conv


def test_conv_pair_fused_with_row_caches(convs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(convs), "-m", "640")
    # One fused stage with row caches: x and a are read by 3x3 windows, so they keep their rows
    # in slots. Tiles of r output rows: an interior tile needs a [kr - 1, kr + r + 1) (computes
    # its last r rows) and x [kr - 2, kr + r + 2) less what a's new rows do not read:
    # [kr, kr + r + 2), r + 2 rows each; slots 2 (r + 2) * 64, plus y's r-row band: r = 2 gives
    # 512 + 128 = 640 (r = 3: 640 + 192 > 640), 4 tiles, 512 bytes of slots.
    assert (r["verdict"], r["stage_count"], r["chains"], r["row_cache_groups"]) == ("fits_tiled", 1, 0, 1)
    tile = r["stages"][0]["tile"]
    assert (tile["tile_h"], tile["tiles"], tile["windows"], tile["cache"]) == (2, 4, 2, 512)
    assert r["scheduled_peak_bytes"] == 640 and r["row_cache_bytes"] == 512
    # every row of x read once, y written once, nothing recomputed (the chain below: 20 rows
    # read, 6 rows of a recomputed)
    assert r["slow_traffic_bytes"] == {"written": CONV_T, "read": CONV_T}
    assert r["halo_macs"] == 0 and r["recomputed_rows"] == 0


@pytest.mark.parametrize(("cuts", "recomputed"), [("greedy", 6), ("shortest", 0)])
def test_run_stats_count_recomputed_rows(
    convs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cuts: str, recomputed: int
) -> None:
    # the runtime counts what the kernels compute: the chain's bands of a (14 rows for 8, as in
    # test_conv_chain_halo_and_flash), the fused stage's row caches none twice
    plan = tmp_path / f"{cuts}.tgrs"
    assert main(["compile", str(convs), "-m", "640", "--cuts", cuts, "-o", str(plan)]) == 0
    capsys.readouterr()
    assert main(["run", str(plan), "-m", "640", "--stats"]) == 0
    stats = dict(line.split() for line in capsys.readouterr().out.splitlines() if len(line.split()) == 2)
    assert stats["recomputed_rows"] == str(recomputed)


def test_conv_chain_halo_and_flash(convs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = analyze_json(capsys, str(convs), "-m", "640", "-f", "1216", "--cuts", "greedy")
    assert r["unscheduled_peak_bytes"] == 2 * CONV_T
    # the greedy's cuts: two one-conv stages linked by a: r output rows need r + 2 rows of a and
    # r + 4 of x; the first stage's band (2r + 6) * 64 <= 640 gives r = 2, 4 tiles, halo RF - 1 = 4
    assert (r["verdict"], r["stage_count"], r["chains"]) == ("fits_tiled", 2, 1)
    rows = {"acc": 0, "tile_w": 0, "halo_w": 0, "tile_c": 0, "dense": False, "cache": 0}  # full-width rows
    assert r["stages"][0]["tile"] == {"tile_h": 2, "halo": 4, "tiles": 4, "chain": 0, "windows": 1, **rows}
    assert r["scheduled_peak_bytes"] == (2 * 2 + 6) * CONV_ROW == 640
    # y tiles [0,2) [2,4) [4,6) [6,8) need a rows [0,3) [1,5) [3,7) [5,8) (14 rows: 6 recomputed)
    # and x rows [0,4) [0,6) [2,8) [4,8) (20 rows read)
    assert r["slow_traffic_bytes"] == {"written": CONV_T, "read": 20 * CONV_ROW}
    assert r["total_macs"] == 2 * CONV_MACS and r["halo_macs"] == CONV_MACS * 6 // 8
    assert r["recomputed_rows"] == 14 - 8  # a's bands; y's four bands are its 8 rows
    assert r["halo_overhead_pct"] == pytest.approx(100 * 6 / 8 / 2)
    assert r["slow_peak_bytes"] == 2 * CONV_T  # x and y; a stays in SRAM
    # flash: two 2x2x3x3 float weights, each in its stage's block (stored raw): 10 sections
    # (tensors, ops, stages, tile plans, weight entries, weight blocks, 3 pools, block data):
    # 64 + 160 = 224; tensors 5 * 24 (to 344); ops 2 * 108 at 352 (to 568); stages 2 * 28 at 576
    # (to 632); the chain's tile plan 56 at 640 (to 696); weight entries 2 * 12 at 704 (to 728);
    # blocks 2 * 12 at 736 (to 760); index pool at 768: 1 + 1 + 2 ops * (2 in + 1 out) + 2 stages
    # * 3 = 14 * 2 (to 796); shape pool 5 tensors * 4 dims * 4 at 800 (to 880); strings: "" convs x
    # a y w1.ohwi w2.ohwi (the weights in their runtime layout) conv1 conv2 = 41 (to 921); block
    # data 144 + 144 at 928
    assert r["weight_bytes"] == 2 * 36 * 4 and r["flash_bytes"] == 928 + 288 == 1216
    assert r["plan_overhead_bytes"] == 1216 - 288 and r["flash_error"] is None
    assert r["flash_fits"] is True and r["slow_fits"] is None
    # one conv in 1 x 1 tiles (2-D): 3 x 3 input pixels of 8 bytes (72 -> 96 at align 32) + one
    # output pixel (8 -> 32)
    assert r["min_budget_bytes"] == 2 * CONV_ROW == 128
    # both convs need 128: the report names the first
    assert r["min_budget_op"] == {"name": "conv1", "op": "tgr.conv"}
    # at the minimum each conv tiles on its own in 2-D, which fits where the chained one-row
    # band ((2 + 6) * 64 = 512) would not
    assert r["smallest_fitting_budget_bytes"] == 128 and r["smallest_pow2_budget_bytes"] == 128


def test_chain_falls_back_to_per_stage_tiling(convs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # At 256 B the chain's one-row band needs 5 rows of x + 3 of a = 512 B, but each conv tiled
    # on its own needs 3 rows in + 1 row out = 256 B: the planner tiles them one by one (in
    # full-width strips, which fit) instead of chaining into an overflow.
    r = analyze_json(capsys, str(convs), "-m", "256+1K", "-f", "1199")
    assert (r["verdict"], r["fits"], r["chains"], r["tiled_stages"]) == ("fits_tiled", True, 0, 2)
    assert r["scheduled_peak_bytes"] == 4 * CONV_ROW and r["headroom_bytes"] == 0
    assert [s["tile"]["tile_h"] for s in r["stages"]] == [1, 1]
    # the file of test_conv_chain_halo_and_flash with two tile plans instead of one: they end at
    # 752, the weight entries follow without padding (to 776), blocks at 784, index pool at 816,
    # shape pool at 848, strings at 928 (to 969), block data at 976: 48 bytes more
    assert r["flash_bytes"] == 976 + 288 == 1264 and r["slow_budget_bytes"] == 1024 and r["flash_fits"] is False


def test_a_model_compile_cannot_write_has_no_flash_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """uint32 plans (the planner only counts bytes) but has no .tgrs dtype: the report keeps
    its memory figures and gives, instead of a flash size, the error tigris compile stops with."""
    x, y = (helper.make_tensor_value_info(n, TensorProto.UINT32, [1, 1, 8, 8]) for n in "xy")
    path = save(tmp_path, "u32", [helper.make_node("Identity", ["x"], ["y"], name="copy")], [x], [y])
    assert main(["compile", str(path), "-m", "64K", "-o", str(tmp_path / "u32.tgrs")]) == 1
    compile_error = capsys.readouterr().err.strip()
    assert compile_error == "error: func.func 'u32': element type ui32 has no .tgrs dtype"
    r = analyze_json(capsys, str(path), "-m", "64K", "-f", "1M")
    assert (r["verdict"], r["unscheduled_peak_bytes"]) == ("fits", 2 * 256)  # x and its copy y, 8 * 8 * 4 B each
    assert r["flash_bytes"] is None and r["plan_overhead_bytes"] is None and r["flash_fits"] is None
    assert f"error: {r['flash_error']}" == compile_error
    assert main(["analyze", str(path), "-m", "64K"]) == 0
    assert f"flash           unknown: tigris compile cannot write this model: {r['flash_error']}" in capsys.readouterr().out


def test_verbose_rows_and_text(relu3: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(relu3), "-m", "300", "-v"]) == 0
    rows = stage_rows(capsys.readouterr().out)
    assert [row.split()[:3] for row in rows] == [["0", "relu_a..relu_c", "3"]]  # test_relu3_tiled's plan
    assert "tiled: tile_h 3, halo 0, 3 tiles" in rows[0]
    assert rows[0].endswith("x -> a, c")


def stage_rows(text: str) -> list[str]:
    """The -v table's rows: the lines after its `#  ops ...` header."""
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "ops"])
    return [line for line in lines[header + 1 :] if line.strip()]


# --------------------------------------------------------------------- the zoo

ZOO = ("efficientnet", "ds_cnn", "conv1d", "mobilenet_v2_int8", "pytorch_idioms_int8", "dense_autoencoder_int8")
"""The models test_zoo runs `tigris analyze` and `tigris compile` on at 16K, 64K and 256K: float,
int8 and mixed (pytorch_idioms_int8), and the verdicts `cannot_run`, `fits` and `fits_tiled`
(efficientnet cannot run at 16K; ds_cnn fits tiled at 16K and untiled above). The test asserts that
coverage; bench/e2e_sweep.py checks the flash figure and the verdict of every zoo model at every
budget it sweeps."""
REQUIRED = {
    "fits", "verdict", "budget_bytes", "stage_count", "stages", "tiled_stages", "chains", "scheduled_peak_bytes",
    "unscheduled_peak_bytes", "slow_peak_bytes", "slow_traffic_bytes", "halo_overhead_pct", "flash_bytes",
    "min_budget_bytes",
}  # fmt: skip


def test_zoo(model_zoo: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seen: set[tuple[str, str]] = set()  # (verdict, dtype)
    for name in ZOO:
        check_zoo_model(name, model_zoo, tmp_path, capsys, seen)
    verdicts, dtypes = {v for v, _ in seen}, {d for _, d in seen}
    assert verdicts == {"cannot_run", "fits", "fits_tiled"} and dtypes == {"float32", "int8", "mixed (float32+int8)"}


def check_zoo_model(name: str, model_zoo: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                    seen: set[tuple[str, str]]) -> None:  # fmt: skip
    for budget in ("16K", "64K", "256K"):
        r = analyze_json(capsys, str(model_zoo[name]), "-m", budget)
        assert REQUIRED <= r.keys() and {"written", "read"} == r["slow_traffic_bytes"].keys()
        # the flash figure is the size of the file tigris compile writes, to the byte
        plan = tmp_path / f"{name}.{budget}.tgrs"
        assert main(["compile", str(model_zoo[name]), "-m", budget, "-o", str(plan)]) == 0
        assert capsys.readouterr().out == f"wrote {plan}: {plan.stat().st_size} bytes\n"
        assert r["flash_bytes"] == plan.stat().st_size and r["flash_error"] is None
        assert r["stage_count"] == len(r["stages"]) >= 1
        assert r["tiled_stages"] == sum(s["strategy"] == "tiled" for s in r["stages"])
        # an int8 model's float input and output (quantized, dequantized at the boundary) compute
        # nothing in float; pytorch_idioms_int8 does: dequantize -> HardSwish -> GAP -> quantize
        int8 = "mixed (float32+int8)" if name == "pytorch_idioms_int8" else "int8"
        assert r["dtype"] == (int8 if name.endswith("_int8") else "float32")
        b = r["budget_bytes"]
        expected = (
            "cannot_run" if b < r["min_budget_bytes"]
            else "overflows" if r["scheduled_peak_bytes"] > b
            else "fits" if all(s["strategy"] == "normal" for s in r["stages"])
            else "fits_tiled"
        )  # fmt: skip
        assert r["verdict"] == expected and r["fits"] == expected.startswith("fits")
        seen.add((r["verdict"], r["dtype"]))
        assert main(["analyze", str(model_zoo[name]), "-m", budget, "-v"]) == 0
        assert len(stage_rows(capsys.readouterr().out)) == r["stage_count"]


# ------------------------------------------------------------------- the shell


def test_json_is_all_of_stdout(relu3: Path) -> None:
    proc = subprocess.run(["tigris", "analyze", str(relu3), "-m", "64K", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["verdict"] == "fits"


def test_help_has_examples() -> None:
    top = subprocess.run(["tigris", "--help"], check=True, capture_output=True, text=True).stdout
    assert "tigris analyze model.onnx -m 256K -f 4M" in top
    sub = subprocess.run(["tigris", "analyze", "--help"], check=True, capture_output=True, text=True).stdout
    assert "examples:" in sub and "tigris analyze model.onnx -m 64K --json" in sub and "K = KB = KiB = 1024" in sub
    assert f"(default: the planner's, {DEFAULT_ALIGN})" in " ".join(sub.split())


def one_error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    assert main(["analyze", *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


def test_user_errors_are_one_line(relu3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = str(relu3)
    assert one_error(capsys, [model, "-m", "12X"]).startswith("error: bad -m value '12X': expected a size")
    assert one_error(capsys, [model, "-m", "64K+"]).startswith("error: bad -m value '64K+'")
    bad_flash = one_error(capsys, [model, "-m", "64K", "-f", "0"])
    assert bad_flash == "error: bad -f value '0': a size must be at least 1 byte"
    assert one_error(capsys, [model, "-m", "64K", "--align", "24"]).startswith("error: bad --align value '24'")
    missing = str(tmp_path / "nope.onnx")
    assert one_error(capsys, [missing, "-m", "64K"]) == (
        f"error: cannot open '{missing}': no such file; name the model file (.onnx or .onnxtxt)"
    )
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\xff\x00not a model")
    assert "is not a valid ONNX model" in one_error(capsys, [str(garbage), "-m", "64K"])
    assert "--input-shape" in one_error(capsys, [model, "-m", "64K", "--input-shape", "x:1x1x8"])


def test_unsupported_op_fails_check_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hardmax = helper.make_node("Hardmax", ["x"], ["y"], name="hard1")
    path = save(tmp_path, "hardmax", [hardmax], [value("x", [1, 4, 8, 8])], [value("y", [1, 4, 8, 8])])
    assert one_error(capsys, [str(path), "-m", "64K"]) == "error: 1 operator is not supported: Hardmax 'hard1'"


def test_errors_in_a_real_process_have_no_traceback(tmp_path: Path) -> None:
    args = ["tigris", "analyze", str(tmp_path / "nope.onnx"), "-m", "1.5"]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "error: bad -m value '1.5': that is 1.5 bytes, not a whole number\n"


def test_max_recompute_bounds_the_cuts(model_zoo: dict[str, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """--max-recompute reaches the planner from both commands: on the YOLO-like float net at 16K
    the shortest-path cuts buy less traffic with some halo recompute (bands that recompute
    their overlaps where row caches do not fit); at 0% they may add none, so analyze reports
    less recompute and more traffic, and compile writes that plan."""
    from tigris.emit.tgrs import read_plan

    model = str(model_zoo["yolo"])
    default = analyze_json(capsys, model, "-m", "16K")
    bounded = analyze_json(capsys, model, "-m", "16K", "--max-recompute", "0")
    assert (default["max_recompute_pct"], bounded["max_recompute_pct"]) == (10.0, 0.0)
    moved = [sum(r["slow_traffic_bytes"].values()) for r in (default, bounded)]
    assert moved[0] < moved[1] and default["halo_macs"] > bounded["halo_macs"]
    out = tmp_path / "bounded.tgrs"
    assert main(["compile", model, "-m", "16K", "--max-recompute", "0", "-o", str(out)]) == 0
    assert len(read_plan(out.read_bytes()).stages) == bounded["stage_count"] != default["stage_count"]


def test_cuts_reach_analyze_and_compile(convs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--cuts greedy plans the spec's stages (two convs chained) from both commands; a bad value
    is one error line."""
    from tigris.emit.tgrs import read_plan

    greedy = analyze_json(capsys, str(convs), "-m", "640", "--cuts", "greedy")
    out = tmp_path / "greedy.tgrs"
    assert main(["compile", str(convs), "-m", "640", "--cuts", "greedy", "-o", str(out)]) == 0
    assert len(read_plan(out.read_bytes()).stages) == greedy["stage_count"] == 2
    assert main(["analyze", str(convs), "-m", "640", "--cuts", "fastest"]) == 1  # usage, then the error
    assert "invalid choice: 'fastest'" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "100.5", "ten", "nan"])
def test_max_recompute_must_be_a_percentage(relu3: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(relu3), "-m", "1K", "--max-recompute", value]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: bad --max-recompute value '{value}': expected a percentage from 0 to 100, e.g. 10 or 2.5"]
