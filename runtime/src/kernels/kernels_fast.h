/* kernels_fast.h - fast compute paths of the hot reference kernels (not public API).
 *
 * The reference kernels (kernels_f32_window.c, kernels_i8_window.c) validate an op's operands,
 * shapes and parameters, then hand the checked geometry to one of these loops when it applies.
 * The loops produce the same bytes as the reference loops:
 *   - int8: the int32 accumulator sum (x - zx)(w - zw) + bias is exact in any order, so the
 *     zero-point terms are hoisted (D - zw Sx - zx Sw + n zx zw, computed modulo 2^32: the
 *     reference's acc_fits check guarantees the true value fits int32) and the requantization is
 *     i8_math.h's tigris_i8_requant, as in the reference;
 *   - float32: every output element sums its taps in the reference order (taps row by row, then
 *     the input channels, the bias last) into one float accumulator; blocking only computes
 *     several elements side by side, never splits or reorders one element's sum, and does not
 *     depend on the band, so a tiled run equals an untiled one.
 * Building with -DTIGRIS_KERNELS_REFERENCE_ONLY leaves the reference loops alone: the oracle of
 * test_runtime_kernels_fast.py.
 */
#ifndef TIGRIS_KERNELS_FAST_H
#define TIGRIS_KERNELS_FAST_H

#include <stdint.h>

#include "kernels_internal.h"

/* A checked int8 CONV / CONV1D / DEPTHWISE (depth multiplier 1) whose x and w are I8 storage. */
typedef struct {
    const tigris_view_t *x, *y, *w;
    tk_axis_t ah, aw; /* checked by the reference kernel (TK_GEOMETRY_LIMIT) */
    int32_t group;         /* convolution groups (depthwise: 1 input channel per group) */
    int32_t x_zp, y_zp, lo, hi;
    const int32_t *w_zps;  /* per output channel, or NULL: w_zp */
    int32_t w_zp;
    const int32_t *bias;   /* per output channel, or NULL */
    const int32_t *scales; /* binary32 bits per output channel */
} tk_i8_conv_args_t;

/* A checked float32 CONV / CONV1D (OHWI weight) or DEPTHWISE (HWC weight, multiplier 1). */
typedef struct {
    const tigris_view_t *x, *y;
    const float *w, *bias; /* bias may be NULL */
    tk_axis_t ah, aw; /* checked by the reference kernel (TK_GEOMETRY_LIMIT) */
    int32_t group;
    uint8_t activation;
} tk_f32_conv_args_t;

/* Whether the fast paths are built in (0 under TIGRIS_KERNELS_REFERENCE_ONLY). */
#ifdef TIGRIS_KERNELS_REFERENCE_ONLY
#define TK_FAST_ENABLED 0
#else
#define TK_FAST_ENABLED 1
#endif

int tk_i8_conv_fast(const tk_i8_conv_args_t *a);
int tk_i8_depthwise_fast(const tk_i8_conv_args_t *a);
int tk_f32_conv_fast(const tk_f32_conv_args_t *a);
int tk_f32_depthwise_fast(const tk_f32_conv_args_t *a);

#endif /* TIGRIS_KERNELS_FAST_H */
