/* kernels_f32_math.c - the float32 element-wise math of op types NEG..SILU (36..52).
 *
 * One value at a time for tigris_f32_unary. The formulas are onnxruntime's and the
 * interpreter's (tgr_unary.py), in float32 with the C library's expf/logf/sqrtf/erff/tanhf:
 * softplus in the stable form log1p(exp(-|x|)) + max(x, 0), elu/selu with expm1f, gelu's
 * tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
#include <math.h>

#include "kernels_f32.h"

static float sigmoid_of(float x) {
    const float e = expf(-fabsf(x));
    return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

static float gelu(float x, uint8_t mode) {
    if (mode == TIGRIS_GELU_TANH) {
        const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
        return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
    }
    return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f)); /* x / sqrt(2) */
}

static float shrink(float x, float lambd, float bias) {
    if (x < -lambd) return x + bias;
    if (x > lambd) return x - bias;
    return 0.0f;
}

static float hard_sigmoid(float x, float alpha, float beta) {
    const float v = alpha * x + beta;
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

float tigris_f32_math_unary(const tigris_op_t *op, float x) {
    switch (op->op_type) {
    case TIGRIS_OP_NEG: return -x;
    case TIGRIS_OP_ABS: return fabsf(x);
    case TIGRIS_OP_EXP: return expf(x);
    case TIGRIS_OP_LOG: return logf(x);
    case TIGRIS_OP_SQRT: return sqrtf(x);
    case TIGRIS_OP_RECIPROCAL: return 1.0f / x;
    case TIGRIS_OP_ELU: return x >= 0.0f ? x : op->alpha * expm1f(x);
    case TIGRIS_OP_SELU: return op->beta * (x > 0.0f ? x : op->alpha * expm1f(x));
    case TIGRIS_OP_SOFTPLUS: return log1pf(expf(-fabsf(x))) + (x > 0.0f ? x : 0.0f);
    case TIGRIS_OP_SOFTSIGN: return x / (1.0f + fabsf(x));
    case TIGRIS_OP_ERF: return erff(x);
    case TIGRIS_OP_GELU: return gelu(x, op->mode);
    case TIGRIS_OP_HARD_SIGMOID: return hard_sigmoid(x, op->alpha, op->beta);
    case TIGRIS_OP_SIGN: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); /* keeps 0, -0 and NaN */
    case TIGRIS_OP_SHRINK: return shrink(x, op->alpha, op->beta);
    case TIGRIS_OP_POW: return powf(x, op->alpha);
    default: return x * sigmoid_of(x); /* SILU */
    }
}
