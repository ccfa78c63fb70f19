"""The ONNX package's backend test models through `tigris compile` + `tigris run`.

Every case of onnx/backend/test/data/{pytorch-converted,pytorch-operator,simple} and the `light`
models runs the way a user runs it (test/support/onnx_conformance.py: the CLI in-process, the C
runtime, the outputs onnx ships as the oracle, within 1e-4 or the case's own tolerance).

The outcome of every case is pinned here. A case in PASSING must match; any other case must be
refused with exactly one `error:` line (exit status 1) of the reason pinned in REFUSED, never a
traceback, never a wrong answer. So a regression fails, and so does a case that starts passing
(move it to PASSING: the list stays exact). The reasons allowed to stay are FINAL, and
every refusal left is one of them (issue 13's list): no op a model uses is missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from onnx_conformance import ERROR, PASS, Case, cases, float_kinds, run_case

PASSING = frozenset({
    "light/test_bvlc_alexnet",
    "light/test_densenet121",
    "light/test_inception_v1",
    "light/test_inception_v2",
    "light/test_resnet50",
    "light/test_shufflenet",
    "light/test_squeezenet",
    "light/test_vgg19",
    "light/test_zfnet512",
    "pytorch-converted/test_AvgPool1d",
    "pytorch-converted/test_AvgPool1d_stride",
    "pytorch-converted/test_AvgPool2d",
    "pytorch-converted/test_AvgPool2d_stride",
    "pytorch-converted/test_BatchNorm1d_3d_input_eval",
    "pytorch-converted/test_BatchNorm2d_eval",
    "pytorch-converted/test_BatchNorm2d_momentum_eval",
    "pytorch-converted/test_BatchNorm3d_eval",
    "pytorch-converted/test_BatchNorm3d_momentum_eval",
    "pytorch-converted/test_ConstantPad2d",
    "pytorch-converted/test_Conv1d",
    "pytorch-converted/test_Conv1d_dilated",
    "pytorch-converted/test_Conv1d_groups",
    "pytorch-converted/test_Conv1d_pad1",
    "pytorch-converted/test_Conv1d_pad1size1",
    "pytorch-converted/test_Conv1d_pad2",
    "pytorch-converted/test_Conv1d_pad2size1",
    "pytorch-converted/test_Conv1d_stride",
    "pytorch-converted/test_Conv2d",
    "pytorch-converted/test_Conv2d_depthwise",
    "pytorch-converted/test_Conv2d_depthwise_padded",
    "pytorch-converted/test_Conv2d_depthwise_strided",
    "pytorch-converted/test_Conv2d_depthwise_with_multiplier",
    "pytorch-converted/test_Conv2d_dilated",
    "pytorch-converted/test_Conv2d_groups",
    "pytorch-converted/test_Conv2d_groups_thnn",
    "pytorch-converted/test_Conv2d_no_bias",
    "pytorch-converted/test_Conv2d_padding",
    "pytorch-converted/test_Conv2d_strided",
    "pytorch-converted/test_ConvTranspose2d",
    "pytorch-converted/test_ConvTranspose2d_no_bias",
    "pytorch-converted/test_ELU",
    "pytorch-converted/test_Embedding",
    "pytorch-converted/test_Embedding_sparse",
    "pytorch-converted/test_GLU",
    "pytorch-converted/test_GLU_dim",
    "pytorch-converted/test_LeakyReLU",
    "pytorch-converted/test_LeakyReLU_with_negval",
    "pytorch-converted/test_Linear",
    "pytorch-converted/test_Linear_no_bias",
    "pytorch-converted/test_LogSoftmax",
    "pytorch-converted/test_MaxPool1d",
    "pytorch-converted/test_MaxPool1d_stride",
    "pytorch-converted/test_MaxPool1d_stride_padding_dilation",
    "pytorch-converted/test_MaxPool2d",
    "pytorch-converted/test_MaxPool2d_stride_padding_dilation",
    "pytorch-converted/test_PReLU_1d",
    "pytorch-converted/test_PReLU_1d_multiparam",
    "pytorch-converted/test_PReLU_2d",
    "pytorch-converted/test_PReLU_2d_multiparam",
    "pytorch-converted/test_PReLU_3d",
    "pytorch-converted/test_PReLU_3d_multiparam",
    "pytorch-converted/test_PixelShuffle",
    "pytorch-converted/test_PoissonNLLLLoss_no_reduce",
    "pytorch-converted/test_ReLU",
    "pytorch-converted/test_ReflectionPad2d",
    "pytorch-converted/test_ReplicationPad2d",
    "pytorch-converted/test_SELU",
    "pytorch-converted/test_Sigmoid",
    "pytorch-converted/test_Softmax",
    "pytorch-converted/test_Softmin",
    "pytorch-converted/test_Softplus",
    "pytorch-converted/test_Softsign",
    "pytorch-converted/test_Tanh",
    "pytorch-converted/test_ZeroPad2d",
    "pytorch-converted/test_log_softmax_dim3",
    "pytorch-converted/test_log_softmax_lastdim",
    "pytorch-converted/test_softmax_functional_dim3",
    "pytorch-converted/test_softmax_lastdim",
    "pytorch-operator/test_operator_add_broadcast",
    "pytorch-operator/test_operator_add_size1_broadcast",
    "pytorch-operator/test_operator_add_size1_right_broadcast",
    "pytorch-operator/test_operator_add_size1_singleton_broadcast",
    "pytorch-operator/test_operator_addconstant",
    "pytorch-operator/test_operator_addmm",
    "pytorch-operator/test_operator_basic",
    "pytorch-operator/test_operator_chunk",
    "pytorch-operator/test_operator_clip",
    "pytorch-operator/test_operator_concat2",
    "pytorch-operator/test_operator_conv",
    "pytorch-operator/test_operator_convtranspose",
    "pytorch-operator/test_operator_exp",
    "pytorch-operator/test_operator_flatten",
    "pytorch-operator/test_operator_index",
    "pytorch-operator/test_operator_max",
    "pytorch-operator/test_operator_maxpool",
    "pytorch-operator/test_operator_min",
    "pytorch-operator/test_operator_mm",
    "pytorch-operator/test_operator_non_float_params",
    "pytorch-operator/test_operator_pad",
    "pytorch-operator/test_operator_params",
    "pytorch-operator/test_operator_permute2",
    "pytorch-operator/test_operator_pow",
    "pytorch-operator/test_operator_reduced_mean",
    "pytorch-operator/test_operator_reduced_mean_keepdim",
    "pytorch-operator/test_operator_reduced_sum",
    "pytorch-operator/test_operator_reduced_sum_keepdim",
    "pytorch-operator/test_operator_repeat",
    "pytorch-operator/test_operator_repeat_dim_overflow",
    "pytorch-operator/test_operator_selu",
    "pytorch-operator/test_operator_sqrt",
    "pytorch-operator/test_operator_symbolic_override",
    "pytorch-operator/test_operator_symbolic_override_nested",
    "pytorch-operator/test_operator_view",
    "simple/test_expand_shape_model1",
    "simple/test_expand_shape_model2",
    "simple/test_expand_shape_model3",
    "simple/test_expand_shape_model4",
    "simple/test_shrink",
    "simple/test_sign_model",
    "simple/test_single_relu_model",
})  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    reason: str
    pattern: str
    """A regular expression the error line must contain."""


STRING = Refusal("string tensors", r"^tensor '\w+' holds string elements, which TiGrIS does not support$")
SEQUENCE = Refusal("sequence types", r"output '\w+' is a sequence; TiGrIS compiles tensors only$")
TRAINING = Refusal("training-only op (Gradient)", r"^1 operator is not supported: Gradient '")
POOL_3D = Refusal("3-D spatial ops", r"3 spatial dims: the format has H and W only$")
CONV_3D = Refusal("3-D spatial ops", r"^tgr.conv needs rank-3 or 4 input and weight, got \(\d+(, \d+){4}\)")
SYMBOLIC = Refusal("symbolic input dimension", r"has dynamic shape .*; bind it with --input-shape ")
FINAL = frozenset(r.reason for r in (STRING, SEQUENCE, TRAINING, POOL_3D, CONV_3D, SYMBOLIC))
"""The reasons issue 13 allows to remain."""


REFUSED: dict[str, Refusal] = {
    **{f"pytorch-converted/test_{name}": POOL_3D for name in (
        "AvgPool3d", "AvgPool3d_stride", "AvgPool3d_stride1_pad0_gpu_input", "MaxPool3d", "MaxPool3d_stride",
        "MaxPool3d_stride_padding")},
    **{f"pytorch-converted/test_Conv3d{suffix}": CONV_3D for suffix in (
        "", "_dilated", "_dilated_strided", "_groups", "_no_bias", "_stride", "_stride_padding")},
    "simple/test_gradient_of_add": TRAINING,
    "simple/test_gradient_of_add_and_mul": TRAINING,
    **{f"simple/test_sequence_model{i}": SEQUENCE for i in range(1, 8)},
    "simple/test_sequence_model8": SYMBOLIC,
    **{f"simple/test_strnorm_model_{name}": STRING for name in (
        "monday_casesensintive_lower", "monday_casesensintive_nochangecase", "monday_casesensintive_upper",
        "monday_empty_output", "monday_insensintive_upper_twodim", "nostopwords_nochangecase")},
}  # fmt: skip

CASES = {case.id: case for case in cases()}


def test_every_case_is_pinned_once() -> None:
    assert not PASSING & REFUSED.keys()
    assert set(CASES) == PASSING | REFUSED.keys()


def test_refusals_are_final_reasons_only() -> None:
    for case_id, refusal in REFUSED.items():
        assert refusal.reason in FINAL, case_id


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case(case_id: str, tmp_path: pytest.TempPathFactory) -> None:
    case: Case = CASES[case_id]
    outcome = run_case(case, tmp_path)  # type: ignore[arg-type]
    if case_id in PASSING:
        assert outcome.status == PASS, f"{case_id} regressed ({outcome.status}): {outcome.detail}"
    else:
        refusal = REFUSED[case_id]
        assert outcome.status != PASS, f"{case_id} now passes: move it to PASSING"
        assert outcome.status == ERROR, f"{case_id} must be refused ({refusal.reason}), got {outcome.status}:\n{outcome.detail}"
        assert re.search(refusal.pattern, outcome.detail), f"{case_id}: not {refusal.reason}: {outcome.detail}"
    kinds = float_kinds(case)
    if kinds and outcome.status == PASS:  # computed in float32, said once
        assert len(outcome.warnings) == 1 and all(k in outcome.warnings[0] for k in kinds), outcome.warnings
    elif not kinds:
        assert outcome.warnings == ()
