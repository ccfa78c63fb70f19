/* kernels_fast.h - fast compute paths of the hot reference kernels, and the window rules
 * they share with those kernels (not public API).
 *
 * The reference kernels (kernels_f32_window.c, kernels_i8_window.c) validate an op's operands,
 * shapes and parameters, then hand the checked geometry to one of these loops when it applies.
 * The loops produce the same bytes as the reference loops:
 *   - int8: the int32 accumulator sum (x - zx)(w - zw) + bias is exact in any order, so the
 *     zero-point terms are hoisted (D - zw Sx - zx Sw + n zx zw, computed modulo 2^32: the
 *     reference's acc_fits check guarantees the true value fits int32) and the requantization is
 *     i8_math.h's, its rounding tigris_i8_round_fast (the value of the reference's rintf-based
 *     tigris_i8_round_to for every float); the int8 pools keep their state per channel, order-free
 *     (max, exact int32 sums);
 *   - float32: every output element sums its taps in the reference order (taps row by row, then
 *     the input channels, the bias last) into one float accumulator; blocking only computes
 *     several elements side by side, never reorders one element's sum (a convolution's sum cut
 *     into weight panels waits in the output between them, stored and reloaded exactly), and
 *     does not depend on the band or tile, so a tiled run equals an untiled one;
 *   - float32 element-wise ops, pad and resize: per element the reference's float operations,
 *     the op chosen once per run of elements instead of per element.
 * Building with -DTIGRIS_KERNELS_REFERENCE_ONLY leaves the reference loops alone: the oracle of
 * test_runtime_kernels_fast.py.
 *
 * 2-D tiles: conv, depthwise, conv1d and the max / average pools compute the resident window of
 * their output, rows [y.h_start, y.h_end) x columns [y.w_start, y.w_end), each output pixel from
 * the input pixels its taps hit inside the image, addressed by full-tensor coordinates (padding
 * is decided against the full extents, never against the window). Before writing anything they
 * check (tk_window_resident) that every such pixel is resident, so a window one row or column
 * short is TIGRIS_KERNEL_ERR_BAND, never a read outside the input's bytes. A full-width band is
 * the window [0, w).
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

/* Element offset of column `col` (resident) from the start of a resident row of v. */
static inline size_t tk_col(const tigris_view_t *v, int32_t col) {
    return (size_t)(col - v->w_start) * (size_t)v->c;
}

/* The input positions [*lo, *hi) that outputs [o0, o1) along ax read inside the image: the hull
 * of their in-image taps (tk_axis_taps), empty (*lo == *hi) if they read only padding. A hull is
 * enough: the resident positions are one interval too. With a dilation the first in-image tap
 * does not grow with the output index while a window starts in the padding before the image,
 * nor the last one while it ends in the padding after it, so the outputs are visited one by
 * one from each end, but only until the first window that starts (from the front), or ends
 * (from the back), inside the extent: every window after it (before it) starts later (ends
 * earlier), as the stride is positive. A band's check then costs its padded edges, not its
 * width (a tiled run checks every tile's band). */
static inline void tk_axis_reads(const tk_axis_t *ax, int32_t o0, int32_t o1, int32_t *lo, int32_t *hi) {
    const int64_t span = (int64_t)(ax->k - 1) * ax->d + 1; /* tk_axis_init: below TK_GEOMETRY_LIMIT */
    int32_t o, first, end;
    *lo = INT32_MAX;
    *hi = INT32_MIN;
    for (o = o0; o < o1; ++o) {
        const int32_t start = o * ax->s - ax->pb;
        tk_axis_taps(ax, start, 0, ax->in, &first, &end);
        if (first != end && start + first * ax->d < *lo) *lo = start + first * ax->d;
        if (start >= 0) break;
    }
    for (o = o1; o-- > o0;) {
        const int32_t start = o * ax->s - ax->pb;
        tk_axis_taps(ax, start, 0, ax->in, &first, &end);
        if (first != end && start + (end - 1) * ax->d + 1 > *hi) *hi = start + (end - 1) * ax->d + 1;
        if ((int64_t)start + span <= (int64_t)ax->in) break;
    }
    if (*lo >= *hi) *lo = *hi = 0;
}

/* TIGRIS_KERNEL_ERR_BAND unless x holds every in-image pixel that the resident output window of
 * y reads along ah (rows) and aw (columns); call it before writing anything, so a refused op
 * leaves its output alone. */
static inline int tk_window_resident(const tigris_view_t *x, const tigris_view_t *y, const tk_axis_t *ah,
                                     const tk_axis_t *aw) {
    int32_t lo, hi;
    tk_axis_reads(ah, y->h_start, y->h_end, &lo, &hi);
    if (lo < hi && (lo < x->h_start || hi > x->h_end)) return TIGRIS_KERNEL_ERR_BAND;
    tk_axis_reads(aw, y->w_start, y->w_end, &lo, &hi);
    if (lo < hi && (lo < x->w_start || hi > x->w_end)) return TIGRIS_KERNEL_ERR_BAND;
    return TIGRIS_KERNEL_OK;
}

/* The taps an average pool divides by for the window at `start`: those inside the image, or
 * (count_include_pad) inside the explicitly padded extent; the ceil-mode overhang never counts. */
static inline int32_t tk_axis_pool_count(const tk_axis_t *ax, int32_t start, int include_pad) {
    int32_t first, end;
    if (include_pad) tk_axis_taps(ax, start, -ax->pb, ax->in + ax->pe, &first, &end);
    else tk_axis_taps(ax, start, 0, ax->in, &first, &end);
    return end - first;
}

/* A function the compiler must not inline: a loop that vectorizes alone but not inside its
 * caller's loop nest, or a frame that must not add to its caller's (no frame above 1 KiB). */
#if defined(__GNUC__)
#define TK_NOINLINE __attribute__((noinline))
#else
#define TK_NOINLINE
#endif

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
