"""The plugin hook (tigris_dialects/plugins.py, docs/extending.md) with made-up plugins, so the
core's side holds whatever is installed: discovery and its errors, the registries, the
`convert-plugin-ops` pass, check-legal's rules for extension ops, the interpreter, the emitter
(`runtime_fields`, op types 128..254 through writer and reader), and the host runtime calling a
plugin kernel before the reference kernels. examples/extension is the real plugin, tested by
its own suites.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, FloatAttr, FunctionType, ModuleOp, StringAttr, TensorType, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Block, Dialect, Region
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.passes import ModulePass
from xdsl.traits import Pure
from xdsl.utils.exceptions import PassFailedException

from tigris.dialects import plugins
from tigris.dialects.plugins import PluginError, TigrisPlugin
from tigris.dialects.syntax import PositionalSyntax
from tigris.dialects.tgr.traits import RuntimeOp, TileCategory, TileKind

# -- a made-up plugin dialect ---------------------------------------------------------------


class _Unary(PositionalSyntax):
    input = operand_def(TensorType)
    output = result_def(TensorType)


@irdl_op_definition
class ScaleOp(_Unary):
    """y = alpha * x; runtime op type 200, parameter in the record's `alpha`."""

    name = "fake.scale"
    alpha = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(2.0, f32))
    traits = traits_def(Pure(), TileCategory(TileKind.POINTWISE), RuntimeOp(200))

    def runtime_fields(self) -> dict[str, object]:
        return {"alpha": self.alpha.value.data}


@irdl_op_definition
class CoreTypeOp(_Unary):
    name = "fake.core_type"  # claims RELU's op type
    traits = traits_def(Pure(), TileCategory(TileKind.POINTWISE), RuntimeOp(3))


@irdl_op_definition
class WindowOp(_Unary):
    name = "fake.window"
    traits = traits_def(Pure(), TileCategory(TileKind.SPATIAL), RuntimeOp(201))


@irdl_op_definition
class ResampleOp(_Unary):
    name = "fake.resample"
    traits = traits_def(Pure(), TileCategory(TileKind.RESAMPLE), RuntimeOp(202))


@irdl_op_definition
class TwinOp(_Unary):
    name = "fake.twin"  # the same op type as fake.scale
    traits = traits_def(Pure(), TileCategory(TileKind.POINTWISE), RuntimeOp(200))


@irdl_op_definition
class BogusFieldsOp(_Unary):
    name = "fake.bogus_fields"
    traits = traits_def(Pure(), TileCategory(TileKind.POINTWISE), RuntimeOp(202))

    def runtime_fields(self) -> dict[str, object]:
        return {"op_type": 3}  # not a field an op may set


FAKE = Dialect("fake", [ScaleOp, CoreTypeOp, WindowOp, ResampleOp, TwinOp, BogusFieldsOp])


@register_impls
class FakeFunctions(InterpreterFunctions):
    @impl(ScaleOp)
    def run_scale(self, interpreter: Interpreter, op: ScaleOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (np.float32(op.alpha.value.data) * np.asarray(args[0], np.float32),)


@dataclass(frozen=True)
class FakePass(ModulePass):
    name = "fake-pass"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


@dataclass
class FakeEntryPoint:
    """What `importlib.metadata.entry_points` yields: a name, a value and load()."""

    name: str
    value: str
    loaded: Callable[[], object]

    def load(self) -> object:
        return self.loaded()


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """installed(name=plugin, ...): exactly these plugins are installed (a TigrisPlugin, or a
    function the entry point's load() calls)."""

    def install(**found: object) -> None:
        entries = [
            FakeEntryPoint(name, f"fake_module:{name.upper()}", p if callable(p) else (lambda p=p: p))
            for name, p in found.items()
        ]
        monkeypatch.setattr(plugins, "_entry_points", lambda: entries)
        plugins.installed_plugins.cache_clear()

    install()
    yield install
    plugins.installed_plugins.cache_clear()


def _fake_plugin(**parts: Any) -> TigrisPlugin:
    return TigrisPlugin(dialects={"fake": lambda: FAKE}, **parts)


def _module(*ops: type[PositionalSyntax], shape: tuple[int, ...] = (1, 2, 4, 3)) -> ModuleOp:
    """@main(x) chaining one op of each class."""
    t = TensorType(f32, shape)
    block = Block(arg_types=[t])
    value = block.args[0]
    for index, cls in enumerate(ops):
        op = cls.build(operands=[value], result_types=[t])
        op.attributes["tgr.name"] = StringAttr(f"n{index}")
        block.add_op(op)
        value = op.results[0]
    block.add_op(ReturnOp(value))
    return ModuleOp([FuncOp("main", FunctionType.from_lists([t], [t]), Region(block))])


# -- discovery ---------------------------------------------------------------------------------


def test_no_plugin_installed(installed: Callable[..., None]) -> None:
    from tigris.dialects import get_all_dialects
    from tigris.transforms import get_all_passes

    assert plugins.installed_plugins() == {}
    assert sorted(get_all_dialects()) == ["onnx", "tgr"]
    assert sorted(get_all_passes()) == sorted(get_all_passes(plugins=False))
    assert plugins.normalize_patterns() == [] and plugins.interpreter_functions() == []
    assert plugins.runtime_parts() == ([], [])


def test_a_plugin_that_fails_to_load_is_named_in_one_line(installed: Callable[..., None]) -> None:
    def broken() -> object:
        raise ModuleNotFoundError("No module named 'nowhere'\n(more detail)")

    installed(broken=broken)
    with pytest.raises(PluginError) as e:
        plugins.installed_plugins()
    assert str(e.value) == (
        "TiGrIS plugin 'broken' (fake_module:BROKEN) failed to load: "
        "ModuleNotFoundError: No module named 'nowhere'"
    )
    installed(wrong=lambda: {"dialects": {}})
    with pytest.raises(PluginError, match=r"^TiGrIS plugin 'wrong' \(fake_module:WRONG\) is a dict, not a "):
        plugins.installed_plugins()


def test_the_plugin_object_is_checked() -> None:
    with pytest.raises(ValueError, match="'not-c' is not a C identifier"):
        TigrisPlugin(runtime_sources=lambda: [], runtime_kernel="not-c")
    with pytest.raises(ValueError, match="go together"):
        TigrisPlugin(runtime_kernel="k")
    with pytest.raises(TypeError, match="dialects must map names to factories"):
        TigrisPlugin(dialects=[FAKE])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="normalize_patterns must be a factory"):
        TigrisPlugin(normalize_patterns=())  # type: ignore[arg-type]


def test_registries_include_plugin_parts(installed: Callable[..., None]) -> None:
    from tigris.dialects import get_all_dialects, make_context
    from tigris.transforms import get_all_passes

    installed(fake=_fake_plugin(passes={"fake-pass": lambda: FakePass}))
    assert get_all_dialects()["fake"]() is FAKE
    assert get_all_passes()["fake-pass"]() is FakePass
    assert "fake-pass" not in get_all_passes(plugins=False)
    make_context().get_op("fake.scale")  # a context for scripts and tests knows the dialect


@pytest.mark.parametrize(
    ("found", "message"),
    [
        ({"a": TigrisPlugin(dialects={"tgr": lambda: FAKE})},
         "TiGrIS plugin 'a': dialect 'tgr' is already defined by TiGrIS"),
        ({"a": _fake_plugin(), "b": _fake_plugin()},
         "TiGrIS plugin 'b': dialect 'fake' is already defined by plugin 'a'"),
    ],
)  # fmt: skip
def test_a_dialect_name_is_taken_once(installed: Callable[..., None], found: dict, message: str) -> None:
    from tigris.dialects import get_all_dialects

    installed(**found)
    with pytest.raises(PluginError, match=f"^{message}$"):
        get_all_dialects()


def test_a_pass_name_is_taken_once(installed: Callable[..., None]) -> None:
    from tigris.transforms import get_all_passes

    installed(a=TigrisPlugin(passes={"check-legal": lambda: FakePass}))
    with pytest.raises(PluginError, match="^TiGrIS plugin 'a': pass 'check-legal' is already defined by "):
        get_all_passes()


def test_a_failing_part_names_the_plugin(installed: Callable[..., None]) -> None:
    from tigris.dialects import get_all_dialects

    def no_dialect() -> Dialect:
        raise ImportError("cannot import name 'EXT'")

    def no_patterns() -> list:
        raise RuntimeError("boom")

    installed(bad=TigrisPlugin(dialects={"bad": no_dialect}, normalize_patterns=no_patterns))
    factory = get_all_dialects()["bad"]  # listing is fine: factories run on first use
    with pytest.raises(PluginError, match="^TiGrIS plugin 'bad': dialect 'bad' failed to load: ImportError"):
        factory()
    with pytest.raises(PluginError, match="^TiGrIS plugin 'bad': normalize_patterns failed to load: Runtime"):
        plugins.normalize_patterns()


def test_runtime_sources_must_exist(installed: Callable[..., None], tmp_path: Path) -> None:
    installed(c=TigrisPlugin(runtime_sources=lambda: [tmp_path / "missing.c"], runtime_kernel="k"))
    with pytest.raises(PluginError, match="^TiGrIS plugin 'c': runtime source .*missing.c does not exist$"):
        plugins.runtime_parts()


# -- passes ----------------------------------------------------------------------------------


ONNX_ONLY = """func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = onnx.generic %x {op_type = "ThresholdedRelu", node_attributes = {alpha = 0.25 : f32}, tgr.name = "tr"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %1 = onnx.LRN %0 {size = 3 : i64, tgr.name = "lrn"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %1 : tensor<1x2x4x4xf32>
}
"""


def test_convert_plugin_ops_without_plugins_changes_nothing(installed: Callable[..., None]) -> None:
    from xdsl.parser import Parser

    from tigris.dialects import make_context
    from tigris.transforms.normalize.convert_plugin_ops import ConvertPluginOpsPass

    ctx = make_context()
    module = Parser(ctx, ONNX_ONLY).parse_module()
    before = str(module)
    ConvertPluginOpsPass().apply(ctx, module)
    assert str(module) == before


def test_check_legal_accepts_extension_ops(installed: Callable[..., None]) -> None:
    from tigris.transforms.normalize.check_legal import CheckLegalPass

    CheckLegalPass().apply(Context(), _module(ScaleOp, ScaleOp))


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        ((CoreTypeOp,), "node 'n0' (fake.core_type): extension ops use runtime op types 128..254, not 3"),
        ((ScaleOp, TwinOp), "node 'n1' (fake.twin): runtime op type 200 is fake.scale's too"),
        ((WindowOp,), "node 'n0' (fake.window): tile category spatial without a SpatialWindow trait"),
        ((ResampleOp,), "node 'n0' (fake.resample): tile category resample: the runtime bands extension ops"),
    ],
)  # fmt: skip
def test_check_legal_refuses_what_the_runtime_cannot_run(ops: tuple, message: str) -> None:
    import re

    from tigris.transforms.normalize.check_legal import CheckLegalPass

    with pytest.raises(PassFailedException, match=f"^{re.escape(message)}"):
        CheckLegalPass().apply(Context(), _module(*ops))


def test_the_interpreter_runs_plugin_ops(installed: Callable[..., None]) -> None:
    from tigris.dialects.interpreter import run_module

    installed(fake=_fake_plugin(interpreter_functions=lambda: [FakeFunctions]))
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 4, 3)
    (y,) = run_module(_module(ScaleOp, ScaleOp), [x])
    np.testing.assert_array_equal(y, 4 * x)


# -- emission and the host runtime ---------------------------------------------------------------


def _compiled(module: ModuleOp, budget: int) -> bytes:
    from tigris.emit.tgrs.target import plan_bytes
    from tigris.transforms.pipelines import TigrisCompilePass

    TigrisCompilePass(budget=budget).plan_and_lower(Context(), module)
    return plan_bytes(module)


def test_extension_ops_are_emitted_with_their_fields() -> None:
    from tigris.emit.tgrs import read_plan
    from tigris.emit.tgrs.enums import OpType

    plan = read_plan(_compiled(_module(ScaleOp), 1 << 20))
    (op,) = plan.ops
    assert op.op_type == OpType(200) and op.op_type.name == "CUSTOM_200"
    assert op.alpha == 2.0


def test_runtime_fields_are_checked() -> None:
    from tigris.emit.tgrs.from_ir import FromIrError

    with pytest.raises(FromIrError, match=r"runtime_fields\(\) sets 'op_type', which is not a tigris_op_t"):
        _compiled(_module(BogusFieldsOp), 1 << 20)


KERNEL_C = """#include "tigris_kernels.h"

/* op type 200: y = alpha * x, band-aware; every other op: not mine */
int fake_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                void *user_ctx) {
    tigris_view_t x, y;
    int32_t row;
    size_t i;
    (void)op_index;
    (void)user_ctx;
    if (op->op_type != 200) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (tigris_view_of(plan, mem, tigris_op_inputs(plan, op)[0], &x) != TIGRIS_KERNEL_OK ||
        tigris_view_of(plan, mem, tigris_op_outputs(plan, op)[0], &y) != TIGRIS_KERNEL_OK)
        return TIGRIS_KERNEL_ERR_PARAMS;
    for (row = y.h_start; row < y.h_end; row++) {
        const float *xp = (const float *)(const void *)tigris_view_row(&x, 0, row);
        float *yp = (float *)(void *)tigris_view_row(&y, 0, row);
        if (xp == NULL || yp == NULL) return TIGRIS_KERNEL_ERR_BAND;
        for (i = 0; i < (size_t)y.w * (size_t)y.c; i++) yp[i] = op->alpha * xp[i];
    }
    return TIGRIS_KERNEL_OK;
}
"""


def test_the_host_runs_plugin_kernels_before_the_reference_kernels(
    installed: Callable[..., None], tmp_path: Path
) -> None:
    """fake.scale (op type 200) -> tgr.relu -> fake.scale, tiled: the plugin kernel runs op 200
    band by band, and tgr.relu, which it refuses, falls through to the reference kernels."""
    from tigris.dialects.tgr.ops_elementwise import ReluOp
    from tigris.emit.tgrs import read_plan
    from tigris.tools import runtime_binding

    (tmp_path / "fake_kernel.c").write_text(KERNEL_C)
    kernel = tmp_path / "fake_kernel.c"
    installed(fake=_fake_plugin(runtime_sources=lambda: [kernel], runtime_kernel="fake_kernel"))
    sources, flags = runtime_binding.plugin_build()
    assert sources == [tmp_path / "fake_kernel.c"] and flags[-1] == "-DTIGRIS_HOST_KERNELS(X)=X(fake_kernel)"
    data = _compiled(_module(ScaleOp, ReluOp, ScaleOp, shape=(1, 4, 16, 8)), 2048)
    assert all(s.tile_plan is not None for s in read_plan(data).stages)
    x = np.random.default_rng(0).standard_normal((1, 4, 16, 8)).astype(np.float32)
    runtime_binding.host_library.cache_clear()
    try:
        result = runtime_binding.run_plan(data, [x], fast=2048)
    finally:
        runtime_binding.host_library.cache_clear()
    np.testing.assert_array_equal(result.outputs[0], 2 * np.maximum(2 * x, 0))
    # one stage of the three ops, tiled (peak 4096 > 2048; bands of 8 of the 16 rows hold 2 x 1024
    # B): it moves x and the output like a chain of the three would, in fewer stages (shortest-path
    # cuts, G3)
    assert result.stats["stages_tiled"] == 1 and result.stats["total_tiles"] >= 2


def test_without_the_plugin_kernel_the_run_fails(installed: Callable[..., None]) -> None:
    from tigris.tools import runtime_binding

    data = _compiled(_module(ScaleOp), 1 << 20)
    runtime_binding.host_library.cache_clear()
    try:
        with pytest.raises(runtime_binding.RunError, match=r"^op 0 '.*' \(op type 200\): op type or dtype "
                                                           r"combination not implemented$") as info:
            runtime_binding.run_plan(data, [np.zeros((1, 2, 4, 3), np.float32)])  # (no plugin: no IR op name)
        assert info.value.op == 0
    finally:
        runtime_binding.host_library.cache_clear()


# -- the command-line tools, with plugins installed as distributions -------------------------------


def _distribution(root: Path, name: str, module_source: str) -> Path:
    """A minimal installed distribution under `root` (a dist-info folder and one module), with a
    `tigris.plugins` entry point `name` -> `{name}_plugin:PLUGIN`: on PYTHONPATH, importlib
    finds it as it finds a pip-installed package."""
    info = root / f"{name}_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[tigris.plugins]\n{name} = {name}_plugin:PLUGIN\n")
    (root / f"{name}_plugin.py").write_text(module_source)
    return root


def _tool(tool: str, args: list[str], pythonpath: Path) -> subprocess.CompletedProcess[str]:
    import os

    main = {"tigris-opt": "tigris.tools.tigris_opt", "tigris": "tigris.tools.cli",
            "xdsl-opt": "xdsl.tools.xdsl_opt"}  # fmt: skip
    script = f"import sys; from {main[tool]} import main; sys.exit(main())"
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120,
                          env=env, check=False)  # fmt: skip


def test_a_broken_installed_plugin_is_one_error_line(tmp_path: Path) -> None:
    root = _distribution(tmp_path / "site", "broken", "import no_such_module_anywhere\n")
    model = tmp_path / "m.onnxtxt"
    model.write_text('<ir_version: 8, opset_import: ["" : 17]>\ng (float[1,2] x) => (float[1,2] y) { y = Relu (x) }\n')
    compile_args = ["compile", str(model), "-m", "1K", "-o", str(tmp_path / "y.tgrs")]
    for tool, args in (("tigris-opt", [str(model)]), ("tigris", compile_args)):
        proc = _tool(tool, args, root)
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr == (
            "error: TiGrIS plugin 'broken' (broken_plugin:PLUGIN) failed to load: "
            "ModuleNotFoundError: No module named 'no_such_module_anywhere'\n"
        ), proc.stderr


PASS_PLUGIN = '''
from dataclasses import dataclass

from tigris.dialects.plugins import TigrisPlugin


def _pass():
    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class MarkPass(ModulePass):
        name = "mark-main"

        def apply(self, ctx, op):
            from xdsl.dialects.builtin import UnitAttr

            for inner in op.walk():
                if inner.name == "func.func":
                    inner.attributes["marked"] = UnitAttr()

    return MarkPass


PLUGIN = TigrisPlugin(passes={"mark-main": _pass})
'''


IDENTITY = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}\n"


@pytest.mark.parametrize("tool", ["tigris-opt", "xdsl-opt"])
def test_plugin_passes_reach_tigris_opt_and_xdsl_opt(tool: str, tmp_path: Path) -> None:
    root = _distribution(tmp_path / "site", "mark", PASS_PLUGIN)
    source = tmp_path / "x.mlir"
    source.write_text(IDENTITY)
    proc = _tool(tool, [str(source), "-p", "mark-main"], root)
    assert proc.returncode == 0, proc.stderr
    assert "attributes {marked}" in proc.stdout, proc.stdout


def test_run_errors_name_a_plugin_op_by_its_ir_name(installed: Callable[..., None]) -> None:
    """op_kind (the `(tgr.conv)` of `tigris run`'s errors) finds core and plugin ops by RuntimeOp."""
    from tigris.emit.tgrs.enums import OpType
    from tigris.tools.runtime_binding import op_kind

    assert op_kind(int(OpType.CONV)) == "tgr.conv" and op_kind(200) == "op type 200"
    installed(fake=_fake_plugin())
    assert op_kind(200) == "fake.scale"
