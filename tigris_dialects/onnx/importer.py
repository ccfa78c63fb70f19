"""ONNX -> `onnx` dialect. The only module that imports the `onnx` package.

Loads the model (binary with external data beside it, or ONNX text syntax), converts an
opset older than `MIN_OPSET` with `onnx.version_converter`, binds dynamic input dims from
`--input-shape`, computes float64/float16 tensors in float32 (one warning), runs strict
shape inference with data propagation, and emits `func.func @main` with ops in the DFS
order of `graph_order`. Initializers become `tgr.weight`; any node without a typed op
becomes `onnx.generic`.

The IR stays faithful (nothing is folded here: `fold-constants` does that), but an output
whose type ONNX could not infer up front, because it depends on values computed from
constants (a Reshape target built by Concat(Unsqueeze(Constant)), a Resize `sizes` from
Concat, a shape from Shape of a static tensor), is inferred again for its node alone, with
those values computed by the reference interpreter (`folding.py`, the rule fold-constants
uses). Nodes are visited in topological order, so one walk reaches the fixed point. Only a
shape that depends on the model's inputs at run time is refused.

Every user mistake raises `OnnxImportError` with one line naming the file, node or tensor.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
    f32,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import InterpretationError, VerifyException

from tigris.dialects.constants import constant_array
from tigris.dialects.onnx.base import OnnxOp
from tigris.dialects.onnx.dialect import OPS_BY_TYPE
from tigris.dialects.onnx.element_types import element_type
from tigris.dialects.onnx.errors import OnnxImportError
from tigris.dialects.onnx.folding import Evaluator, compile_time_args
from tigris.dialects.onnx.graph_order import CycleError, dfs_order
from tigris.dialects.onnx.ops_quant import GenericOp
from tigris.dialects.onnx.ops_tensor import ReshapeOp
from tigris.dialects.syntax import group_results
from tigris.dialects.tgr.weight import make_weight, weight_value

MIN_OPSET = 7
"""The oldest opset the `onnx` dialect is written for; older models are converted to it."""
FOLD_LIMIT = 1 << 16
"""Constant values of at most this many elements are computed at import to type the ops that
read them (shape arithmetic); larger ones (weights) are left to fold-constants."""
_IN_FLOAT32 = {10: "float16", 11: "float64"}
"""TensorProto element types computed in float32."""
_DEFAULT_DOMAINS = ("", "ai.onnx")
_ANY_DOMAIN_OPS = ("Silu",)  # exporters put Silu in com.microsoft or their own domain
_SHAPE_PRESERVING_CUSTOM = ("Silu",)


def parse_input_shapes(specs: Sequence[str]) -> dict[str, list[int]]:
    """`name:1x3x224x224` strings (from --input-shape) as a dict."""
    shapes: dict[str, list[int]] = {}
    for spec in specs:
        name, sep, dims = spec.rpartition(":")
        if not sep or not name or not re.fullmatch(r"\d+(x\d+)*", dims):
            raise OnnxImportError(f"bad --input-shape '{spec}': expected NAME:DxDx..., e.g. input:1x3x224x224")
        shapes[name] = [int(d) for d in dims.split("x")]
    return shapes


def import_model_file(path: str | Path, input_shapes: Mapping[str, list[int]] | None = None) -> ModuleOp:
    path = Path(path)
    if not path.is_file():
        why = "it is a directory" if path.is_dir() else "not a regular file" if path.exists() else "no such file"
        raise OnnxImportError(f"cannot open '{path}': {why}; name the model file (.onnx or .onnxtxt)")
    if path.suffix in (".onnxtxt", ".onnxtext"):
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise OnnxImportError(f"cannot read '{path}': {_first_line(e)}") from None
        return import_model_text(text, input_shapes, str(path))
    try:
        model = onnx.load(str(path))
    except Exception as e:  # protobuf raises DecodeError/RuntimeError variants
        raise OnnxImportError(f"'{path}' is not a valid ONNX model: {_first_line(e)}") from None
    return import_model(model, input_shapes, str(path))


def import_model_bytes(
    data: bytes, input_shapes: Mapping[str, list[int]] | None = None, source: str = "<stdin>"
) -> ModuleOp:
    try:
        model = onnx.load_model_from_string(data)
    except Exception as e:
        raise OnnxImportError(f"'{source}' is not a valid ONNX model: {_first_line(e)}") from None
    return import_model(model, input_shapes, source)


def import_model_text(
    text: str, input_shapes: Mapping[str, list[int]] | None = None, source: str = "<text>"
) -> ModuleOp:
    """ONNX textual syntax; whole-line `//` and `#` comments are removed first, so
    lit `RUN:`/`CHECK:` lines may use either."""
    lines = ["" if re.match(r"\s*(//|#)", line) else line for line in text.splitlines()]
    try:
        model = onnx.parser.parse_model("\n".join(lines))
    except Exception as e:
        raise OnnxImportError(f"'{source}' is not valid ONNX text: {_first_line(e)}") from None
    return import_model(model, input_shapes, source)


def import_model(
    model: onnx.ModelProto, input_shapes: Mapping[str, list[int]] | None = None, source: str = "<model>"
) -> ModuleOp:
    if not model.graph.node and not model.graph.output:
        raise OnnxImportError(f"'{source}' contains no graph (empty or not an ONNX model)")
    model = _at_supported_opset(model, source)
    _bind_input_shapes(model.graph, dict(input_shapes or {}))
    _compute_in_float32(model, source)
    try:
        inferred = onnx.shape_inference.infer_shapes(_shape_shadow(model), strict_mode=True, data_prop=True)
    except Exception as e:
        raise OnnxImportError(f"shape inference failed on '{source}': {_first_line(e)}") from None
    return _GraphImporter(model, inferred.graph).build()


def _opset(model: onnx.ModelProto) -> int | None:
    return next((o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS), None)


def _at_supported_opset(model: onnx.ModelProto, source: str) -> onnx.ModelProto:
    """The model itself from MIN_OPSET on (newer opsets are read as they are); older ones
    converted to MIN_OPSET by onnx's version converter, or one line naming the op it could
    not convert."""
    opset = _opset(model)
    if opset is None:
        raise OnnxImportError(f"'{source}' imports no version of the ONNX operator set (no \"\" domain in opset_import)")
    if opset >= MIN_OPSET:
        return model
    from onnx import version_converter

    shadow, added = _initializers_as_inputs(model)
    try:
        converted = version_converter.convert_version(shadow, MIN_OPSET)
    except Exception as e:
        node, reason = _conversion_culprit(shadow, opset, e)
        where = f"node '{node.name or node.output[0]}' ({node.op_type})" if node is not None else "a node"
        raise OnnxImportError(
            f"'{source}' uses opset {opset}; converting it to opset {MIN_OPSET} failed at {where}: {reason}"
        ) from None
    inputs = [i for i in converted.graph.input if i.name not in added]
    del converted.graph.input[:]
    converted.graph.input.extend(inputs)
    return converted


def _initializers_as_inputs(model: onnx.ModelProto) -> tuple[onnx.ModelProto, set[str]]:
    """A copy whose initializers are all graph inputs too (the converter looks node inputs up
    among graph inputs, as IR version 3 required), and the names it had to add."""
    shadow = onnx.ModelProto()
    shadow.CopyFrom(model)
    listed = {i.name for i in shadow.graph.input}
    added = {t.name for t in shadow.graph.initializer} - listed
    for tensor in shadow.graph.initializer:
        if tensor.name in added:
            shadow.graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
    return shadow, added


def _conversion_culprit(
    model: onnx.ModelProto, opset: int, error: Exception
) -> tuple[onnx.NodeProto | None, str]:
    """The node the version converter stopped at and why, from its error text (which names the
    op type) or, failing that, by converting each node alone (its inputs typed as inferred)."""
    text = str(error)
    reason = text.split("failed: ", 1)[-1].strip().splitlines()[0] if text.strip() else type(error).__name__
    nodes = [n for n in model.graph.node if n.domain in _DEFAULT_DOMAINS]
    for node in nodes:
        if not onnx.defs.has(node.op_type):
            return node, f"{node.op_type} is not an ONNX op"
    named = [n for n in nodes if re.search(rf"\b{re.escape(n.op_type)}\b", text)]
    if named:
        return named[0], re.sub(r"Op '%s' has no registered schema.*", "no registered schema", reason)
    from onnx import helper, version_converter

    try:
        graph = onnx.shape_inference.infer_shapes(model).graph
    except Exception:
        graph = model.graph
    infos = {v.name: v for v in [*graph.input, *graph.value_info, *graph.output]}
    for node in nodes:
        inputs = [infos.get(n) or helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in node.input if n]
        outputs = [infos.get(n) or helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in node.output if n]
        alone = helper.make_model(
            helper.make_graph([node], "alone", inputs, outputs), opset_imports=[helper.make_opsetid("", opset)]
        )
        try:
            version_converter.convert_version(alone, MIN_OPSET)
        except Exception:
            return node, reason
    return None, reason


def _compute_in_float32(model: onnx.ModelProto, source: str) -> None:
    """float64 and float16 tensors become float32 (inputs, outputs, initializers, constants, Cast
    targets), so the runtime's float kernels run them; said once on stderr, not per tensor."""
    graph = model.graph
    found: set[str] = set()

    def retype(tensor_type: onnx.TypeProto.Tensor) -> None:
        if tensor_type.elem_type in _IN_FLOAT32:
            found.add(_IN_FLOAT32[tensor_type.elem_type])
            tensor_type.elem_type = onnx.TensorProto.FLOAT

    def to_float32(tensor: onnx.TensorProto) -> None:
        if tensor.data_type in _IN_FLOAT32:
            found.add(_IN_FLOAT32[tensor.data_type])
            array = numpy_helper.to_array(tensor).astype(np.float32)
            tensor.CopyFrom(numpy_helper.from_array(array, tensor.name))

    for info in [*graph.input, *graph.output, *graph.value_info]:
        retype(info.type.tensor_type)
    for tensor in graph.initializer:
        to_float32(tensor)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                to_float32(attr.t)
            elif attr.name == "to" and node.op_type == "Cast" and attr.i in _IN_FLOAT32:
                found.add(_IN_FLOAT32[attr.i])
                attr.i = onnx.TensorProto.FLOAT
    if found:
        kinds = " and ".join(sorted(found))
        print(f"warning: '{source}' has {kinds} tensors; TiGrIS computes them in float32", file=sys.stderr)


def _shape_shadow(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy for shape inference in which custom-domain ops we know to keep their input's
    shape (Silu) are Identity, so ONNX can propagate shapes through them."""
    shadow = onnx.ModelProto()
    shadow.CopyFrom(model)
    for node in shadow.graph.node:
        if node.op_type in _SHAPE_PRESERVING_CUSTOM and node.domain not in _DEFAULT_DOMAINS:
            node.op_type, node.domain = "Identity", ""
            del node.attribute[:]
    return shadow


def _bind_input_shapes(graph: onnx.GraphProto, shapes: dict[str, list[int]]) -> None:
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    for name in shapes:
        if name not in {i.name for i in inputs}:
            known = ", ".join(i.name for i in inputs)
            raise OnnxImportError(f"--input-shape names '{name}', which is not a model input ({known})")
    for value in inputs:
        dims = value.type.tensor_type.shape.dim
        if value.name in shapes:
            new = shapes[value.name]
            if len(new) != len(dims):
                raise OnnxImportError(f"--input-shape for '{value.name}' has rank {len(new)}, the model says {len(dims)}")
            for dim, size in zip(dims, new):
                if dim.HasField("dim_value") and dim.dim_value > 0 and dim.dim_value != size:
                    raise OnnxImportError(f"--input-shape for '{value.name}' changes static dim {dim.dim_value} to {size}")
                dim.dim_value = size
        elif any(not (d.HasField("dim_value") and d.dim_value > 0) for d in dims):
            shown = "x".join(str(d.dim_value) if d.dim_value > 0 else d.dim_param or "?" for d in dims)
            hint = "x".join(str(d.dim_value) if d.dim_value > 0 else "1" for d in dims)
            raise OnnxImportError(
                f"input '{value.name}' has dynamic shape {shown}; bind it with --input-shape {value.name}:{hint}"
            )


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _ssa_name(name: str) -> str | None:
    hint = re.sub(r"[^A-Za-z0-9_.$-]", "_", name).strip("_")
    if not hint:
        return None
    return hint if not hint[0].isdigit() else "v" + hint


class _GraphImporter:
    """Builds one `func.func @main` from a shape-inferred graph."""

    def __init__(self, model: onnx.ModelProto, inferred: onnx.GraphProto) -> None:
        """`inferred` is the shape-inferred shadow of `model.graph` (see _shape_shadow): types only."""
        self.graph = model.graph
        self.opset = _opset(model) or MIN_OPSET
        self.opset_imports = list(model.opset_import)
        self.types: dict[str, TensorType] = {}
        self.type_protos: dict[str, onnx.TypeProto] = {}
        self.non_tensors: dict[str, str] = {}
        for info in [*inferred.input, *inferred.value_info, *inferred.output]:
            self._learn_type(info.name, info.type)
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.used = {name for node in self.graph.node for name in node.input} | {o.name for o in self.graph.output}
        self.values: dict[str, SSAValue] = {}
        self.ops: list[Operation] = []
        self.constants: dict[SSAValue, np.ndarray | None] = {}
        self.evaluate = Evaluator()

    def _learn_type(self, name: str, proto: onnx.TypeProto) -> None:
        """Record a static tensor type (the first one known wins), or what else the value is."""
        if name in self.types:
            return
        kind = proto.WhichOneof("value")
        if kind != "tensor_type":
            if kind is not None:
                self.non_tensors[name] = kind.removesuffix("_type")
            return
        tensor = proto.tensor_type
        if not tensor.HasField("shape") or tensor.elem_type == 0:
            return
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        if any(d < 0 for d in dims):
            return
        self.types[name] = TensorType(element_type(tensor.elem_type, name), dims)
        self.type_protos[name] = proto

    def build(self) -> ModuleOp:
        graph = self.graph
        inputs = [i for i in graph.input if i.name not in self.initializers]
        arg_types = [self.types[i.name] for i in inputs]
        block = Block(arg_types=arg_types)
        for arg, info in zip(block.args, inputs):
            arg.name_hint = _ssa_name(info.name)
            self.values[info.name] = arg
        for index, node in enumerate(graph.node):
            if not node.name:
                node.name = f"{node.op_type}_{index}"  # every error and report can name it
        for index in self._node_order():
            self._import_node(graph.node[index])
        results = [self._value(o.name, "graph output") for o in graph.output]
        block.add_ops([*self.ops, ReturnOp(*results)])
        func = FuncOp.from_region(
            "main", arg_types, [r.type for r in results], Region(block)
        )
        func.arg_attrs = ArrayAttr([DictionaryAttr({"tgr.name": StringAttr(i.name)}) for i in inputs])
        func.res_attrs = ArrayAttr([DictionaryAttr({"tgr.name": StringAttr(o.name)}) for o in graph.output])
        if graph.name:
            func.attributes["tgr.name"] = StringAttr(graph.name)
        return ModuleOp([func])

    def _node_order(self) -> list[int]:
        producer = {out: i for i, node in enumerate(self.graph.node) for out in node.output if out}
        consumers: list[list[int]] = [[] for _ in self.graph.node]
        for i, node in enumerate(self.graph.node):
            for name in node.input:
                p = producer.get(name)
                if p is not None and i not in consumers[p]:
                    consumers[p].append(i)
        try:
            return dfs_order(consumers)
        except CycleError as e:
            node = self.graph.node[e.node]
            raise OnnxImportError(f"the graph has a cycle through node '{node.name}' ({node.op_type})") from None

    def _value(self, name: str, user: str) -> SSAValue:
        if name in self.values:
            return self.values[name]
        tensor = self.initializers.get(name)
        if tensor is None:
            raise OnnxImportError(f"{user} uses tensor '{name}', which no node, input or initializer defines")
        array = numpy_helper.to_array(tensor)
        type_ = TensorType(element_type(tensor.data_type, name), array.shape)
        weight = make_weight(array, type_, name)
        weight.output.name_hint = _ssa_name(name)
        self.ops.append(weight)
        self.values[name] = weight.output
        self.type_protos.setdefault(name, onnx.helper.make_tensor_type_proto(tensor.data_type, array.shape))
        return weight.output

    def _import_node(self, node: onnx.NodeProto) -> None:
        label = f"node '{node.name}' ({node.op_type})"
        operands = [None if not name else self._value(name, label) for name in node.input]
        if any(out and out not in self.types for out in node.output):
            self._infer_alone(node, label)
        outputs = [out for out in node.output if out and (out in self.types or out in self.used)]
        for out in outputs:
            if out not in self.types:
                raise OnnxImportError(f"{label}: {self._untyped_reason(node, out)}")
        result_types: list[Attribute] = [self.types[out] for out in outputs]
        op = self._typed_op(node, operands, result_types) or self._generic_op(node, operands, result_types)
        op.attributes["tgr.name"] = StringAttr(node.name)
        op.location = NameLoc(StringAttr(node.name or node.op_type), UnknownLoc())
        for result, out in zip(op.results, outputs):
            result.name_hint = _ssa_name(out)
            self.values[out] = result
        self.ops.append(op)
        try:
            op.verify()
        except VerifyException as e:
            raise OnnxImportError(f"{label}: {_first_line(e)}") from None

    def _infer_alone(self, node: onnx.NodeProto, label: str) -> None:
        """ONNX shape inference on this node alone, now that its inputs' types are static and
        the values of its constant inputs are known (computed here if need be)."""
        domain = node.domain if node.domain not in _DEFAULT_DOMAINS else ""
        version = next((o.version for o in self.opset_imports if (o.domain or "") == domain), None)
        if version is None or not onnx.defs.has(node.op_type, domain):
            return
        schema = onnx.defs.get_schema(node.op_type, version, domain)
        names = [n for n in node.input if n]
        if any(n not in self.type_protos for n in names):
            return
        data: dict[str, onnx.TensorProto] = {}
        for name in names:
            if _elements(self.values[name].type) > FOLD_LIMIT:
                continue  # a weight: inference reads values of shape-like inputs only
            if name in self.initializers:
                data[name] = self.initializers[name]
            elif (value := self._constant(self.values[name])) is not None:
                data[name] = numpy_helper.from_array(np.ascontiguousarray(value), name)
        try:
            inferred = onnx.shape_inference.infer_node_outputs(
                schema, node, {n: self.type_protos[n] for n in names}, data, opset_imports=self.opset_imports
            )
        except Exception as e:
            raise OnnxImportError(f"{label}: shape inference failed: {_first_line(e)}") from None
        for name, proto in inferred.items():
            self._learn_type(name, proto)

    def _constant(self, value: SSAValue) -> np.ndarray | None:
        """The compile-time value of `value` (a weight, or a small result of ops on constants),
        or None. Memoized; values over FOLD_LIMIT elements are not computed."""
        if value in self.constants:
            return self.constants[value]
        owner = value.owner
        result = constant_array(value)
        if result is None and isinstance(owner, Operation) and all(_elements(r.type) <= FOLD_LIMIT for r in owner.results):
            args = compile_time_args(owner, self._constant)
            if args is not None:
                try:
                    arrays = self.evaluate(owner, args)
                except InterpretationError as e:
                    raise OnnxImportError(f"evaluating a constant: {_first_line(e)}") from None
                for r, array in zip(owner.results, arrays):
                    self.constants[r] = array
                return self.constants[value]
        self.constants[value] = result
        return result

    def _untyped_reason(self, node: onnx.NodeProto, out: str) -> str:
        """Why output `out` has no static tensor type, for the one error line."""
        kind = self.non_tensors.get(out)
        if kind is not None:
            return f"output '{out}' is a {kind}; TiGrIS compiles tensors only"
        domain = node.domain if node.domain not in _DEFAULT_DOMAINS else ""
        if not onnx.defs.has(node.op_type, domain):
            return f"the shape of output '{out}' cannot be inferred (ONNX does not know this op); static shapes are required"
        runtime = [n for n in node.input if n and n in self.values and self._constant(self.values[n]) is None]
        if not runtime:
            return f"the shape of output '{out}' cannot be inferred; static shapes are required"
        integers = [n for n in runtime if isinstance(self.types[n].element_type, IntegerType)]
        shown = ", ".join(f"'{n}'" for n in integers or runtime)  # shapes, sizes, counts are integers
        return (
            f"the shape of output '{out}' depends on the values of {shown}, known only at run time; "
            "TiGrIS needs static shapes (make them constants, or fix input dims with --input-shape NAME:DxD...)"
        )

    def _typed_op(
        self, node: onnx.NodeProto, operands: list[SSAValue | None], result_types: list[Attribute]
    ) -> Operation | None:
        if node.domain not in _DEFAULT_DOMAINS and node.op_type not in _ANY_DOMAIN_OPS:
            return None
        cls = OPS_BY_TYPE.get(node.op_type)
        if cls is None:
            return None
        definition = cls.get_irdl_definition()
        results = group_results(cls, result_types)
        if results is None:
            return None  # e.g. MaxPool with Indices: keep it faithful as a generic op
        properties: dict[str, Attribute] = {}
        for attr in node.attribute:
            value = self._attribute(attr, node)
            if attr.name not in definition.properties or value is None:
                return None
            properties[attr.name] = value
        if node.op_type in ("Softmax", "LogSoftmax") and self.opset < 13:
            return self._legacy_softmax(cls, node, operands, result_types, properties)
        grouped = _group_operands(definition.operands, operands)
        if grouped is None:
            raise OnnxImportError(f"node '{node.name}' ({node.op_type}) is missing a required input")
        return cls.build(operands=grouped, result_types=results, properties=properties)

    def _legacy_softmax(
        self, cls: type[OnnxOp], node: onnx.NodeProto, operands: list[SSAValue | None], result_types: list[Attribute],
        properties: dict[str, Attribute],
    ) -> Operation:
        """Before opset 13 Softmax (and LogSoftmax, `cls`) normalizes the input flattened to 2-D
        at `axis` (default 1). On the last axis that is today's op; elsewhere we emit what ONNX's
        version converter does: Reshape to 2-D, the op on axis -1, Reshape back."""
        (x,) = operands
        assert x is not None and isinstance(x.type, TensorType)
        shape = list(x.type.get_shape())
        attr = properties.get("axis")
        axis = (attr.value.data if isinstance(attr, IntegerAttr) else 1) % len(shape)
        if axis == len(shape) - 1:
            return cls.build(operands=[x], result_types=result_types, properties={"axis": IntegerAttr(axis, i64)})
        rows, cols = int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))
        flat_type = TensorType(x.type.element_type, [rows, cols])
        flat = self._reshape(x, flat_type, f"{node.name}.flatten")
        softmax = cls.build(operands=[flat], result_types=[flat_type])
        softmax.attributes["tgr.name"] = StringAttr(f"{node.name}.softmax")
        softmax.output.name_hint = _ssa_name(f"{node.output[0]}_softmax")
        self.ops.append(softmax)
        return ReshapeOp.build(
            operands=[softmax.output, self._shape_weight(shape, f"{node.name}.shape")], result_types=result_types
        )

    def _reshape(self, x: SSAValue, type_: TensorType, name: str) -> SSAValue:
        op = ReshapeOp.build(operands=[x, self._shape_weight(type_.get_shape(), f"{name}.shape")], result_types=[type_])
        op.attributes["tgr.name"] = StringAttr(name)
        op.reshaped.name_hint = _ssa_name(name)
        self.ops.append(op)
        return op.reshaped

    def _shape_weight(self, dims: Sequence[int], name: str) -> SSAValue:
        shape = np.array(list(dims), np.int64)
        weight = make_weight(shape, TensorType(IntegerType(64), [len(dims)]), name)
        weight.output.name_hint = _ssa_name(name)
        self.ops.append(weight)
        return weight.output

    def _generic_op(
        self, node: onnx.NodeProto, operands: list[SSAValue | None], result_types: list[Attribute]
    ) -> Operation:
        attrs: dict[str, Attribute] = {}
        for attr in node.attribute:
            value = self._attribute(attr, node)
            attrs[attr.name] = value if value is not None else StringAttr(f"<{onnx.AttributeProto.AttributeType.Name(attr.type)}>")
        properties: dict[str, Attribute] = {"op_type": StringAttr(node.op_type), "node_attributes": DictionaryAttr(attrs)}
        if node.domain:
            properties["domain"] = StringAttr(node.domain)
        absent = [i for i, v in enumerate(operands) if v is None]
        if absent:
            properties["absent_inputs"] = DenseArrayBase.from_list(i64, absent)
        present = [v for v in operands if v is not None]
        return GenericOp.build(operands=[present], result_types=[result_types], properties=properties)

    def _attribute(self, attr: onnx.AttributeProto, node: onnx.NodeProto) -> Attribute | None:
        kind = onnx.AttributeProto
        if attr.type == kind.INT:
            return IntegerAttr(attr.i, i64)
        if attr.type == kind.FLOAT:
            return FloatAttr(attr.f, f32)
        if attr.type == kind.STRING:
            return StringAttr(attr.s.decode("utf-8", "replace"))
        if attr.type == kind.INTS:
            return DenseArrayBase.from_list(i64, list(attr.ints))
        if attr.type == kind.FLOATS:
            return DenseArrayBase.from_list(f32, list(attr.floats))
        if attr.type == kind.STRINGS:
            return ArrayAttr([StringAttr(s.decode("utf-8", "replace")) for s in attr.strings])
        if attr.type == kind.TENSOR:
            array = numpy_helper.to_array(attr.t)
            type_ = TensorType(element_type(attr.t.data_type, node.name), array.shape)
            return weight_value(array, type_, node.output[0] if node.output else node.name)
        return None


def _group_operands(
    defs: Sequence[tuple[str, Any]], operands: list[SSAValue | None]
) -> list[SSAValue | list[SSAValue]] | None:
    """ONNX positional inputs in the nested form `build` wants; None if a required one is absent."""
    from xdsl.irdl import OptOperandDef, VarOperandDef

    grouped: list[SSAValue | list[SSAValue]] = []
    for index, (_, d) in enumerate(defs):
        if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef):
            grouped.append([v for v in operands[index:] if v is not None])
            return grouped
        value = operands[index] if index < len(operands) else None
        if isinstance(d, OptOperandDef):
            grouped.append([value] if value is not None else [])
        elif value is None:
            return None
        else:
            grouped.append(value)
    return grouped if len(operands) <= len(defs) else None


def _elements(type_: Attribute) -> int:
    return int(np.prod(type_.get_shape())) if isinstance(type_, TensorType) else 0
