/* kernels_i8_window.c - int8 convolutions, dense layers and pools (channels-last, band-aware;
 * conv, depthwise, conv1d and the max / average pools also compute 2-D tiles, kernels_fast.h).
 *
 * conv family, fully_conn, matmul: acc = sum (x - zp_x)(w - zp_w[c]) (+ bias[c]) in int32;
 * y = clamp(rint((float)acc * S[c]) + zp_y, act_min, act_max) with the op's float32 scales S
 * (i8_math.h tigris_i8_requant). Padding holds zp_x, so it adds 0.
 * Before anything is written the kernels check that no accumulator can leave int32 (taps x
 * largest |x - zp_x| x largest |w - zp_w| + largest |bias|: quant/arith.py dense_accumulator_fits,
 * which compute-quant-scales checks at compile time).
 */
#include <string.h>

#include "i8_math.h"
#include "kernels_fast.h"
#include "kernels_i8.h"

#define POOL_CHUNK 32 /* channels pooled side by side by the fast loops */

/* The window of op along H and W (tk_axis_t, kernels_internal.h) over x. */
static int window_axes(const tigris_op_t *op, const tigris_view_t *x, tk_axis_t *ah, tk_axis_t *aw) {
    int err = tk_axis_init(ah, x->h, op->kernel_h, op->stride_h, op->dilation_h, op->pad_top, op->pad_bottom);
    if (err != TIGRIS_KERNEL_OK) return err;
    return tk_axis_init(aw, x->w, op->kernel_w, op->stride_w, op->dilation_w, op->pad_left, op->pad_right);
}

/* TIGRIS_KERNEL_ERR_BAND unless every in-image row that output rows [o0, o1) of a transposed
 * convolution read is resident: output row o reads input row (o + pb - k d) / s where that
 * divides exactly. */
static int transposed_rows(const tigris_view_t *x, const tk_axis_t *ax, int32_t o0, int32_t o1) {
    int32_t lo = INT32_MAX, hi = -1, o, k;
    for (o = o0; o < o1; ++o) {
        for (k = 0; k < ax->k; ++k) {
            const int32_t t = o + ax->pb - k * ax->d;
            if (t < 0 || t % ax->s != 0 || t / ax->s >= ax->in) continue;
            if (t / ax->s < lo) lo = t / ax->s;
            if (t / ax->s > hi) hi = t / ax->s;
        }
    }
    if (hi < 0) return TIGRIS_KERNEL_OK;
    return (lo < x->h_start || hi >= x->h_end) ? TIGRIS_KERNEL_ERR_BAND : TIGRIS_KERNEL_OK;
}

static int full_rows(const tigris_view_t *v) {
    return (v->h_start == 0 && v->h_end == v->h) ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_BAND;
}

/* Largest |value - zp| over the storage range. */
static uint32_t max_offset(const tigris_i8_storage_t *s, int32_t zp) {
    int32_t up = s->qmax - zp, down = zp - s->qmin;
    return (uint32_t)(up > down ? up : down);
}

/* The weight's storage and zero points along `axis` (per channel or one), and the largest
 * |w - zp| over all channels. */
typedef struct {
    tigris_i8_storage_t s;
    const int32_t *zps; /* per channel, or NULL: zp */
    int32_t zp;
    uint32_t max_offset;
} i8_weight_q_t;

static int weight_q(const tigris_plan_t *plan, uint16_t t, int32_t axis, int32_t channels, i8_weight_q_t *w) {
    int32_t c;
    int err;
    if ((err = tigris_i8_storage(plan->tensors[t].dtype, &w->s)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_channel_zps(plan, t, axis, channels, &w->zps, &w->zp)) != TIGRIS_KERNEL_OK) return err;
    w->max_offset = 0;
    for (c = 0; c < (w->zps != NULL ? channels : 1); ++c) {
        int32_t zp = w->zps != NULL ? w->zps[c] : w->zp;
        uint32_t m;
        if ((err = tigris_i8_check_zp(&w->s, zp)) != TIGRIS_KERNEL_OK) return err;
        m = max_offset(&w->s, zp);
        if (m > w->max_offset) w->max_offset = m;
    }
    return TIGRIS_KERNEL_OK;
}

/* w->s.bias + zp of channel c: (byte ^ flip) - this is w - zp_w. */
static int32_t weight_offset(const i8_weight_q_t *w, int32_t c) {
    return w->s.bias + (w->zps != NULL ? w->zps[c] : w->zp);
}

/* The optional int32 bias (operand `index`): `channels` values, and the largest |bias|. */
static int bias_of(const tigris_plan_t *plan, const tigris_mem_t *mem, const tigris_op_t *op, uint32_t index,
                   int32_t channels, const int32_t **bias, uint32_t *max_abs) {
    tigris_view_t b;
    uint16_t t;
    int32_t c;
    int err;
    *bias = NULL;
    *max_abs = 0;
    if (op->num_inputs <= index) return TIGRIS_KERNEL_OK;
    t = tk_input(plan, op, index);
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of(plan, mem, t, &b)) != TIGRIS_KERNEL_OK) return err;
    if (b.dtype != TIGRIS_DTYPE_I32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (plan->tensors[t].size != (uint32_t)channels * 4u) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((uintptr_t)b.data % sizeof(int32_t) != 0) return TIGRIS_KERNEL_ERR_PARAMS;
    *bias = (const int32_t *)(const void *)b.data;
    for (c = 0; c < channels; ++c) {
        int32_t v = (*bias)[c];
        uint32_t m = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
        if (m > *max_abs) *max_abs = m;
    }
    return TIGRIS_KERNEL_OK;
}

/* taps * max_x * max_w + max_bias <= INT32_MAX: no accumulator can overflow. */
static int acc_fits(uint32_t taps, uint32_t max_x, uint32_t max_w, uint32_t max_bias) {
    const uint32_t limit = 0x7FFFFFFFu;
    uint32_t per_tap = max_x * max_w; /* <= 255 * 255 */
    if (max_bias > limit) return TIGRIS_KERNEL_ERR_PARAMS;
    if (per_tap != 0 && taps > (limit - max_bias) / per_tap) return TIGRIS_KERNEL_ERR_PARAMS;
    return TIGRIS_KERNEL_OK;
}

/* What every requantizing dense kernel reads: input/output storage and zero points, the clamp. */
typedef struct {
    tigris_i8_storage_t xs, ys;
    int32_t x_off; /* xs.bias + zp_x: (byte ^ flip) - x_off is x - zp_x */
    int32_t y_zp, lo, hi;
} i8_io_t;

static int io_setup(const tigris_op_t *op, const tigris_view_t *x, const tigris_view_t *y, i8_io_t *io) {
    int err;
    if ((err = tigris_i8_storage(x->dtype, &io->xs)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_storage(y->dtype, &io->ys)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&io->xs, op->input_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&io->ys, op->output_zp)) != TIGRIS_KERNEL_OK) return err;
    io->x_off = io->xs.bias + op->input_zp;
    io->y_zp = op->output_zp;
    return tigris_i8_act_range(op, &io->ys, &io->lo, &io->hi);
}

static inline int32_t centered(uint8_t byte, uint8_t flip, int32_t offset) {
    return (int32_t)(uint8_t)(byte ^ flip) - offset;
}

/* -- CONV, DEPTHWISE, CONV1D ------------------------------------------------------------------ */

/* CONV: W OHWI [O, KH, KW, C/g]; CONV1D: W OKI [O, K, C/g] on [N, L, C] (W = 1); DEPTHWISE:
 * W HWC [KH, KW, C m], output channel o = c m + j reads input channel c = o / m. */
int tigris_i8_conv(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tigris_view_t x, y, w;
    i8_io_t io;
    i8_weight_q_t wq;
    tigris_i8_scales_t q;
    tk_axis_t ah, aw;
    const int32_t *bias, *ws;
    const tigris_tensor_t *wt;
    uint32_t max_bias;
    uint32_t taps;
    int32_t O, C, KH, KW, group, icg, ocg, n, oy, ox, o;
    const int depthwise = op->op_type == TIGRIS_OP_DEPTHWISE;
    uint16_t tw = tk_input(plan, op, 1);
    int err;
    (void)op_index;
    (void)user_ctx;
    if (tw == TIGRIS_NONE16 || tk_input(plan, op, 0) == TIGRIS_NONE16 || tk_output(plan, op, 0) == TIGRIS_NONE16)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of_window(plan, mem, tk_input(plan, op, 0), &x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of_window(plan, mem, tk_output(plan, op, 0), &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, tw, &w)) != TIGRIS_KERNEL_OK) return err;
    if ((err = io_setup(op, &x, &y, &io)) != TIGRIS_KERNEL_OK) return err;
    wt = &plan->tensors[tw];
    ws = tigris_tensor_shape(plan, wt); /* tigris_view_of checked it lies in the pool */
    O = y.c;
    C = x.c;
    KH = op->kernel_h;
    KW = op->kernel_w;
    group = op->group;
    if (y.n != x.n || group < 1) return TIGRIS_KERNEL_ERR_SHAPE;
    if (depthwise) { /* group is the depth multiplier */
        icg = 1;
        ocg = group;
        if (wt->ndim != 3 || ws[0] != KH || ws[1] != KW || ws[2] != O || (int64_t)C * group != O)
            return TIGRIS_KERNEL_ERR_SHAPE;
    } else {
        if (C % group != 0 || O % group != 0) return TIGRIS_KERNEL_ERR_SHAPE;
        icg = C / group;
        ocg = O / group;
        if (op->op_type == TIGRIS_OP_CONV1D) {
            if (wt->ndim != 3 || ws[0] != O || ws[1] != KH || ws[2] != icg || KW != 1 || x.w != 1)
                return TIGRIS_KERNEL_ERR_SHAPE;
        } else if (wt->ndim != 4 || ws[0] != O || ws[1] != KH || ws[2] != KW || ws[3] != icg) {
            return TIGRIS_KERNEL_ERR_SHAPE;
        }
    }
    if ((uint64_t)wt->size != (uint64_t)O * (uint64_t)KH * (uint64_t)KW * (uint64_t)icg) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = window_axes(op, &x, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (y.h != tk_axis_conv_length(&ah) || y.w != tk_axis_conv_length(&aw)) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tigris_i8_scales(plan, op, (uint32_t)O, &q)) != TIGRIS_KERNEL_OK) return err;
    if ((err = weight_q(plan, tw, depthwise ? 2 : 0, O, &wq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = bias_of(plan, mem, op, 2, O, &bias, &max_bias)) != TIGRIS_KERNEL_OK) return err;
    taps = (uint32_t)KH * (uint32_t)KW * (uint32_t)icg; /* == the weight's size, < 2^32 */
    if ((err = acc_fits(taps, max_offset(&io.xs, op->input_zp), wq.max_offset, max_bias)))
        return err;
    if ((err = tk_window_resident(&x, &y, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED && io.xs.flip == 0x80u && wq.s.flip == 0x80u && (!depthwise || group == 1)) {
        tk_i8_conv_args_t fa; /* both int8 storage: the fast loops (kernels_i8_fast.c) */
        fa.x = &x;
        fa.y = &y;
        fa.w = &w;
        fa.ah = ah;
        fa.aw = aw;
        fa.group = depthwise ? C : group;
        fa.x_zp = op->input_zp;
        fa.y_zp = io.y_zp;
        fa.lo = io.lo;
        fa.hi = io.hi;
        fa.w_zps = wq.zps;
        fa.w_zp = wq.zp;
        fa.bias = bias;
        fa.scales = q.bits;
        return depthwise ? tk_i8_depthwise_fast(&fa) : tk_i8_conv_fast(&fa);
    }

    for (n = 0; n < y.n; ++n) {
        for (oy = y.h_start; oy < y.h_end; ++oy) {
            uint8_t *yrow = tigris_view_row(&y, n, oy);
            const int32_t iy0 = oy * ah.s - ah.pb;
            int32_t ky0, ky1;
            tk_axis_taps(&ah, iy0, 0, x.h, &ky0, &ky1);
            for (ox = y.w_start; ox < y.w_end; ++ox) {
                const int32_t ix0 = ox * aw.s - aw.pb;
                uint8_t *yp = yrow + tk_col(&y, ox);
                int32_t kx0, kx1;
                tk_axis_taps(&aw, ix0, 0, x.w, &kx0, &kx1);
                for (o = 0; o < O; ++o) {
                    const int32_t w_off = weight_offset(&wq, o);
                    const int32_t cin = (o / ocg) * icg; /* depthwise: o / m */
                    int32_t acc = bias != NULL ? bias[o] : 0;
                    int32_t ky, kx, i;
                    for (ky = ky0; ky < ky1; ++ky) {
                        const uint8_t *xrow = tigris_view_row(&x, n, iy0 + ky * ah.d);
                        for (kx = kx0; kx < kx1; ++kx) {
                            const uint8_t *xp = xrow + tk_col(&x, ix0 + kx * aw.d) + (size_t)cin, *wp;
                            if (depthwise) {
                                wp = w.data + ((size_t)ky * (size_t)KW + (size_t)kx) * (size_t)O + (size_t)o;
                                acc += centered(*xp, io.xs.flip, io.x_off) * centered(*wp, wq.s.flip, w_off);
                                continue;
                            }
                            wp = w.data + (((size_t)o * (size_t)KH + (size_t)ky) * (size_t)KW + (size_t)kx) * (size_t)icg;
                            for (i = 0; i < icg; ++i)
                                acc += centered(xp[i], io.xs.flip, io.x_off) * centered(wp[i], wq.s.flip, w_off);
                        }
                    }
                    yp[o] = tigris_i8_byte(tigris_i8_requant(acc, tigris_i8_f32(q.bits[o]), io.y_zp, io.lo, io.hi));
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* -- CONV_TRANSPOSE ---------------------------------------------------------------------------- */

/* W OHWI [O, KH, KW, C/g], 1-D: OKI [O, K, C/g] (output channel o = g O/g + j); output row o
 * gathers input rows (o + pad_top - ky d) / stride that divide exactly (the scatter of TFLite's
 * TRANSPOSE_CONV); params = [output_padding_h(, output_padding_w)] extend the end. */
int tigris_i8_conv_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                             tigris_mem_t *mem, void *user_ctx) {
    tigris_view_t x, y, w;
    i8_io_t io;
    i8_weight_q_t wq;
    tigris_i8_scales_t q;
    tk_axis_t ah, aw;
    const int32_t *bias, *ws, *params = tk_params(plan, op);
    const tigris_tensor_t *wt;
    uint32_t max_bias;
    int32_t O, C, KH, KW, group, icg, ocg, n, oy, ox, o, oph = 0, opw = 0;
    uint16_t tw = tk_input(plan, op, 1);
    int err;
    (void)op_index;
    (void)user_ctx;
    if (tw == TIGRIS_NONE16 || tk_input(plan, op, 0) == TIGRIS_NONE16 || tk_output(plan, op, 0) == TIGRIS_NONE16)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of(plan, mem, tk_input(plan, op, 0), &x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, tk_output(plan, op, 0), &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, tw, &w)) != TIGRIS_KERNEL_OK) return err;
    if ((err = io_setup(op, &x, &y, &io)) != TIGRIS_KERNEL_OK) return err;
    if (op->num_params > 2 || (op->num_params != 0 && params == NULL)) return TIGRIS_KERNEL_ERR_PARAMS;
    if (op->num_params >= 1) oph = params[0];
    if (op->num_params == 2) opw = params[1];
    wt = &plan->tensors[tw];
    ws = tigris_tensor_shape(plan, wt);
    O = y.c;
    C = x.c;
    KH = op->kernel_h;
    KW = op->kernel_w;
    group = op->group;
    if (y.n != x.n || group < 1 || C % group != 0 || O % group != 0) return TIGRIS_KERNEL_ERR_SHAPE;
    icg = C / group;
    ocg = O / group;
    if (wt->ndim == 3 ? tigris_k_layout(plan, tw) != TIGRIS_LAYOUT_OKI || KW != 1 || ws[2] != icg
                      : wt->ndim != 4 || ws[2] != KW || ws[3] != icg)
        return TIGRIS_KERNEL_ERR_SHAPE;
    if (ws[0] != O || ws[1] != KH) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = window_axes(op, &x, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (oph < 0 || opw < 0 || oph >= TK_GEOMETRY_LIMIT / 4 || opw >= TK_GEOMETRY_LIMIT / 4)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((int64_t)ah.s * (ah.in - 1) + tk_axis_span(&ah) + oph - ah.pb - ah.pe != y.h ||
        (int64_t)aw.s * (aw.in - 1) + tk_axis_span(&aw) + opw - aw.pb - aw.pe != y.w)
        return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tigris_i8_scales(plan, op, (uint32_t)O, &q)) != TIGRIS_KERNEL_OK) return err;
    if ((err = weight_q(plan, tw, 0, O, &wq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = bias_of(plan, mem, op, 2, O, &bias, &max_bias)) != TIGRIS_KERNEL_OK) return err;
    /* at most every tap reaches an output pixel (all of them when the dilation is a multiple of the stride) */
    if ((err = acc_fits((uint32_t)KH * (uint32_t)KW * (uint32_t)icg, max_offset(&io.xs, op->input_zp), wq.max_offset,
                        max_bias)))
        return err;
    if ((err = transposed_rows(&x, &ah, y.h_start, y.h_end)) != TIGRIS_KERNEL_OK) return err;

    for (n = 0; n < y.n; ++n) {
        for (oy = y.h_start; oy < y.h_end; ++oy) {
            uint8_t *yrow = tigris_view_row(&y, n, oy);
            for (ox = 0; ox < y.w; ++ox) {
                uint8_t *yp = yrow + (size_t)ox * (size_t)O;
                for (o = 0; o < O; ++o) {
                    const int32_t w_off = weight_offset(&wq, o);
                    const int32_t cin = (o / ocg) * icg;
                    int32_t acc = bias != NULL ? bias[o] : 0;
                    int32_t ky, kx, i;
                    for (ky = 0; ky < KH; ++ky) {
                        const int32_t ty = oy + ah.pb - ky * ah.d;
                        const uint8_t *xrow;
                        if (ty < 0 || ty % ah.s != 0 || ty / ah.s >= ah.in) continue;
                        xrow = tigris_view_row(&x, n, ty / ah.s);
                        for (kx = 0; kx < KW; ++kx) {
                            const int32_t tx = ox + aw.pb - kx * aw.d;
                            const uint8_t *xp, *wp;
                            if (tx < 0 || tx % aw.s != 0 || tx / aw.s >= aw.in) continue;
                            xp = xrow + (size_t)(tx / aw.s) * (size_t)C + (size_t)cin;
                            wp = w.data + (((size_t)o * (size_t)KH + (size_t)ky) * (size_t)KW + (size_t)kx) * (size_t)icg;
                            for (i = 0; i < icg; ++i)
                                acc += centered(xp[i], io.xs.flip, io.x_off) * centered(wp[i], wq.s.flip, w_off);
                        }
                    }
                    yp[o] = tigris_i8_byte(tigris_i8_requant(acc, tigris_i8_f32(q.bits[o]), io.y_zp, io.lo, io.hi));
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* -- FULLY_CONN, MATMUL ------------------------------------------------------------------------- */

/* x as rows of K values (any rank, whole), W [O, K] (PLAIN, or NK_HWC matching a channels-last
 * flatten), bias [O]; y [rows, O], or in blocks of output features rows of features [c0, c1)
 * only (tk_feature_block); in reduction blocks x holds K features [k0, k1) (tk_dense_blocks) and
 * each int32 sum (bias first) is carried in the accumulator, requantized after the last block. */
int tigris_i8_fully_conn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tigris_view_t x, y, w;
    i8_io_t io;
    i8_weight_q_t wq;
    tigris_i8_scales_t q;
    const int32_t *bias, *ws;
    const tigris_tensor_t *wt;
    uint32_t max_bias, rows, r;
    int32_t O, K, o, k, c0, c1, k0, k1;
    int32_t *sums;
    void *state;
    uint16_t tw = tk_input(plan, op, 1), tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    (void)user_ctx;
    if (tw == TIGRIS_NONE16 || tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of(plan, mem, tx, &x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, ty, &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, tw, &w)) != TIGRIS_KERNEL_OK) return err;
    if ((err = io_setup(op, &x, &y, &io)) != TIGRIS_KERNEL_OK) return err;
    if ((err = full_rows(&x)) != TIGRIS_KERNEL_OK || (err = full_rows(&y)) != TIGRIS_KERNEL_OK) return err;
    wt = &plan->tensors[tw];
    ws = tigris_tensor_shape(plan, wt);
    if (wt->ndim != 2) return TIGRIS_KERNEL_ERR_SHAPE;
    O = ws[0];
    K = ws[1];
    if (plan->tensors[tx].size % (uint32_t)K != 0) return TIGRIS_KERNEL_ERR_SHAPE;
    rows = plan->tensors[tx].size / (uint32_t)K;
    if ((uint64_t)rows * (uint64_t)O != plan->tensors[ty].size) return TIGRIS_KERNEL_ERR_SHAPE;
    if (plan->tensors[ty].ndim >= 3 && (int64_t)y.h * y.w != 1) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tigris_i8_scales(plan, op, (uint32_t)O, &q)) != TIGRIS_KERNEL_OK) return err;
    if ((err = weight_q(plan, tw, 0, O, &wq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = bias_of(plan, mem, op, 2, O, &bias, &max_bias)) != TIGRIS_KERNEL_OK) return err;
    if ((err = acc_fits((uint32_t)K, max_offset(&io.xs, op->input_zp), wq.max_offset, max_bias))) return err;
    if ((err = tk_feature_block(mem, op_index, O, &c0, &c1)) != TIGRIS_KERNEL_OK) return err;
    err = tk_dense_blocks(plan, mem, op_index, tx, K, (uint64_t)rows * (uint64_t)(c1 - c0), &k0, &k1, &state);
    if (err != TIGRIS_KERNEL_OK) return err;
    sums = (int32_t *)state;
    for (r = 0; r < rows; ++r) {
        const uint8_t *xr = x.data + (size_t)r * (size_t)(k1 - k0); /* x[r, k0 + k] for k in [0, k1 - k0) */
        uint8_t *yr = y.data + (size_t)r * (size_t)(c1 - c0); /* a block: rows of c1 - c0 features */
        for (o = c0; o < c1; ++o) {
            const uint8_t *wr = w.data + (size_t)o * (size_t)K + (size_t)k0;
            const int32_t w_off = weight_offset(&wq, o);
            int32_t *sum = sums != NULL ? sums + (size_t)r * (size_t)(c1 - c0) + (size_t)(o - c0) : NULL;
            int32_t acc = sum != NULL && k0 > 0 ? *sum : (bias != NULL ? bias[o] : 0);
            for (k = 0; k < k1 - k0; ++k)
                acc += centered(xr[k], io.xs.flip, io.x_off) * centered(wr[k], wq.s.flip, w_off);
            if (k1 < K) { /* an earlier reduction block: keep the partial sum (exact in int32: acc_fits) */
                *sum = acc;
                continue;
            }
            yr[o - c0] = tigris_i8_byte(tigris_i8_requant(acc, tigris_i8_f32(q.bits[o]), io.y_zp, io.lo, io.hi));
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* a [..., M, K] (or [K]) @ b [..., K, N], numpy broadcasting of the batch axes, each operand in
 * its own storage (tk_nd_t strides); zero points: a per tensor, b per column (or per tensor);
 * one multiplier per column. */
int tigris_i8_matmul(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t a, b, y;
    tigris_i8_storage_t as, ys;
    i8_weight_q_t bq;
    tigris_i8_scales_t q;
    int32_t idx[TK_MAX_RANK];
    int32_t M, K, N, nb, j, m, c, k, lo, hi;
    ptrdiff_t a_m, a_k, b_k, b_n, y_m, y_n;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (op->num_inputs != 2 || tk_input(plan, op, 0) == TIGRIS_NONE16 || tk_input(plan, op, 1) == TIGRIS_NONE16 ||
        tk_output(plan, op, 0) == TIGRIS_NONE16)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_k_nd_of(plan, mem, tk_input(plan, op, 0), &a)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_nd_of(plan, mem, tk_input(plan, op, 1), &b)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_nd_of(plan, mem, tk_output(plan, op, 0), &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_storage(a.dtype, &as)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_storage(y.dtype, &ys)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&a)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&b)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&y)) != TIGRIS_KERNEL_OK) return err;
    if (a.rank < 1 || b.rank < 2) return TIGRIS_KERNEL_ERR_UNSUPPORTED; /* a vector rhs has no columns */
    M = a.rank >= 2 ? a.dims[a.rank - 2] : 1;
    K = a.dims[a.rank - 1];
    a_m = a.rank >= 2 ? a.strides[a.rank - 2] : 0;
    a_k = a.strides[a.rank - 1];
    if (b.dims[b.rank - 2] != K) return TIGRIS_KERNEL_ERR_SHAPE;
    N = b.dims[b.rank - 1];
    b_k = b.strides[b.rank - 2];
    b_n = b.strides[b.rank - 1];
    nb = y.rank - (a.rank >= 2 ? 2 : 1);
    if (nb < 0 || nb < a.rank - 2 || nb < b.rank - 2 || y.dims[y.rank - 1] != N) return TIGRIS_KERNEL_ERR_SHAPE;
    if (a.rank >= 2 && y.dims[y.rank - 2] != M) return TIGRIS_KERNEL_ERR_SHAPE;
    y_m = a.rank >= 2 ? y.strides[y.rank - 2] : 0;
    y_n = y.strides[y.rank - 1];
    for (j = 0; j < nb; ++j) { /* batch axes broadcast right-aligned */
        int32_t ja = j - (nb - (a.rank - 2)), jb = j - (nb - (b.rank - 2));
        if (ja >= 0 && a.dims[ja] != 1 && a.dims[ja] != y.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
        if (jb >= 0 && b.dims[jb] != 1 && b.dims[jb] != y.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
        idx[j] = 0;
    }
    if ((err = tigris_i8_check_zp(&as, op->input_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_check_zp(&ys, op->output_zp)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_act_range(op, &ys, &lo, &hi)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_scales(plan, op, (uint32_t)N, &q)) != TIGRIS_KERNEL_OK) return err;
    if ((err = weight_q(plan, b.tensor, b.rank - 1, N, &bq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = acc_fits((uint32_t)K, max_offset(&as, op->input_zp), bq.max_offset, 0))) return err;
    for (;;) {
        ptrdiff_t ao = 0, bo = 0, yo = 0;
        for (j = 0; j < nb; ++j) {
            int32_t ja = j - (nb - (a.rank - 2)), jb = j - (nb - (b.rank - 2));
            if (ja >= 0 && a.dims[ja] != 1) ao += (ptrdiff_t)idx[j] * a.strides[ja];
            if (jb >= 0 && b.dims[jb] != 1) bo += (ptrdiff_t)idx[j] * b.strides[jb];
            yo += (ptrdiff_t)idx[j] * y.strides[j];
        }
        for (m = 0; m < M; ++m) {
            for (c = 0; c < N; ++c) {
                const int32_t b_off = weight_offset(&bq, c);
                int32_t acc = 0;
                for (k = 0; k < K; ++k)
                    acc += centered(a.data[ao + m * a_m + k * a_k], as.flip, as.bias + op->input_zp) *
                           centered(b.data[bo + k * b_k + c * b_n], bq.s.flip, b_off);
                y.data[yo + m * y_m + c * y_n] =
                    tigris_i8_byte(tigris_i8_requant(acc, tigris_i8_f32(q.bits[c]), op->output_zp, lo, hi));
            }
        }
        for (j = nb - 1; j >= 0; --j) {
            if (++idx[j] < y.dims[j]) break;
            idx[j] = 0;
        }
        if (j < 0) return TIGRIS_KERNEL_OK;
    }
}

/* -- pools ----------------------------------------------------------------------------------- */

/* An average from the exact sum of (x - zp_x) over count elements (i8_math.h tigris_i8_mean). */
static inline uint8_t pool_mean(const tigris_i8_move_t *p, int32_t total, int32_t count) {
    return tigris_i8_byte(
        tigris_i8_mean(total, count, p->in.scale, p->out.scale, p->out.zp, p->out.s.qmin, p->out.s.qmax));
}

/* A picked (max) stored value of the input, as the result's byte. */
static inline uint8_t pool_pick(const tigris_i8_move_t *p, int32_t value) {
    return tigris_i8_move_byte(p, tigris_i8_byte(value));
}

/* TIGRIS_KERNEL_ERR_SHAPE if an average over outputs [0, out) of ax would divide by zero
 * (checked over the whole extent, so every tile of a plan gets the same answer). */
static int pool_counts_nonzero(const tk_axis_t *ax, int32_t out, int include_pad) {
    int32_t o;
    for (o = 0; o < out; ++o)
        if (tk_axis_pool_count(ax, o * ax->s - ax->pb, include_pad) == 0) return TIGRIS_KERNEL_ERR_SHAPE;
    return TIGRIS_KERNEL_OK;
}

/* MAX_POOL: the max of stored values (padding never wins; a window with no input element gives
 * qmin), moved to the result's parameters. AVG_POOL: the mean of the window's values; with
 * COUNT_INCLUDE_PAD the explicit pads count (as the real 0), the ceil-mode overhang never counts. */
/* The pool loop below with the channels innermost: per output pixel, POOL_CHUNK channels keep
 * their state (the largest stored value, or the sum of value - zp) side by side over the window's
 * in-image taps, in a fixed-length loop compilers vectorize; max and an exact int32 sum do not
 * depend on the order, so the bytes are the reference loop's. */
static void i8_pool_fast(const tigris_view_t *x, const tigris_view_t *y, const tigris_i8_move_t *pq,
                         const tk_axis_t *ah, const tk_axis_t *aw, int is_max, int include_pad) {
    const int32_t C = x->c;
    const size_t step = (size_t)aw->d * (size_t)C; /* x from one tap to the next along W */
    const uint8_t flip = pq->in.s.flip;
    const int32_t off = is_max ? 0 : pq->in.s.bias + pq->in.zp;
    int32_t st[POOL_CHUNK];
    int32_t n, oy, ox, c0, j;
    for (n = 0; n < y->n; ++n) {
        for (oy = y->h_start; oy < y->h_end; ++oy) {
            uint8_t *yrow = tigris_view_row(y, n, oy);
            const int32_t iy0 = oy * ah->s - ah->pb, rows = tk_axis_pool_count(ah, iy0, include_pad);
            int32_t ky0, ky1;
            tk_axis_taps(ah, iy0, 0, x->h, &ky0, &ky1);
            for (ox = y->w_start; ox < y->w_end; ++ox) {
                const int32_t ix0 = ox * aw->s - aw->pb;
                const int32_t count = is_max ? 0 : rows * tk_axis_pool_count(aw, ix0, include_pad);
                uint8_t *yp = yrow + tk_col(y, ox);
                int32_t kx0, kx1, ky, kx;
                tk_axis_taps(aw, ix0, 0, x->w, &kx0, &kx1);
                for (c0 = 0; c0 < C; c0 += POOL_CHUNK) {
                    const int32_t len = C - c0 < POOL_CHUNK ? C - c0 : POOL_CHUNK;
                    for (j = 0; j < POOL_CHUNK; ++j) st[j] = 0;
                    for (ky = ky0; ky < ky1 && kx0 < kx1; ++ky) { /* no pointer into x for padding only */
                        const uint8_t *xr =
                            tigris_view_row(x, n, iy0 + ky * ah->d) + tk_col(x, ix0 + kx0 * aw->d) + (size_t)c0;
                        for (kx = 0; kx < kx1 - kx0; ++kx) {
                            const uint8_t *xp = xr + (size_t)kx * step;
                            if (len == POOL_CHUNK && is_max) {
                                for (j = 0; j < POOL_CHUNK; ++j) {
                                    const int32_t u = (uint8_t)(xp[j] ^ flip);
                                    st[j] = u > st[j] ? u : st[j];
                                }
                            } else if (len == POOL_CHUNK) {
                                for (j = 0; j < POOL_CHUNK; ++j) st[j] += (int32_t)(uint8_t)(xp[j] ^ flip) - off;
                            } else {
                                for (j = 0; j < len; ++j) {
                                    const int32_t u = (uint8_t)(xp[j] ^ flip);
                                    if (is_max) st[j] = u > st[j] ? u : st[j];
                                    else st[j] += u - off;
                                }
                            }
                        }
                    }
                    for (j = 0; j < len; ++j)
                        yp[c0 + j] = is_max ? pool_pick(pq, st[j] - pq->in.s.bias) : pool_mean(pq, st[j], count);
                }
            }
        }
    }
}

int tigris_i8_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tigris_view_t x, y;
    tigris_i8_move_t pq;
    tk_axis_t ah, aw;
    const int is_max = op->op_type == TIGRIS_OP_MAX_POOL;
    const int ceil_mode = (op->flags & TIGRIS_OPF_CEIL_MODE) != 0;
    const int include_pad = (op->flags & TIGRIS_OPF_COUNT_INCLUDE_PAD) != 0;
    int32_t C, n, oy, ox, c;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (tk_input(plan, op, 0) == TIGRIS_NONE16 || tk_output(plan, op, 0) == TIGRIS_NONE16)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of_window(plan, mem, tk_input(plan, op, 0), &x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of_window(plan, mem, tk_output(plan, op, 0), &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_move_setup(plan, tk_input(plan, op, 0), tk_output(plan, op, 0), &pq)) != TIGRIS_KERNEL_OK)
        return err;
    C = x.c;
    if (y.n != x.n || y.c != C) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = window_axes(op, &x, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (y.h != tk_axis_pool_length(&ah, ceil_mode) || y.w != tk_axis_pool_length(&aw, ceil_mode))
        return TIGRIS_KERNEL_ERR_SHAPE;
    if (!is_max) {
        if ((int64_t)ah.k * aw.k > TIGRIS_I8_MAX_MEAN_COUNT) return TIGRIS_KERNEL_ERR_PARAMS; /* the sum fits int32 */
        if ((err = pool_counts_nonzero(&ah, y.h, include_pad)) != TIGRIS_KERNEL_OK) return err;
        if ((err = pool_counts_nonzero(&aw, y.w, include_pad)) != TIGRIS_KERNEL_OK) return err;
    }
    if ((err = tk_window_resident(&x, &y, &ah, &aw)) != TIGRIS_KERNEL_OK) return err;
    if (TK_FAST_ENABLED) {
        i8_pool_fast(&x, &y, &pq, &ah, &aw, is_max, include_pad);
        return TIGRIS_KERNEL_OK;
    }

    for (n = 0; n < y.n; ++n) {
        for (oy = y.h_start; oy < y.h_end; ++oy) {
            uint8_t *yrow = tigris_view_row(&y, n, oy);
            const int32_t iy0 = oy * ah.s - ah.pb, rows = tk_axis_pool_count(&ah, iy0, include_pad);
            int32_t ky0, ky1;
            tk_axis_taps(&ah, iy0, 0, x.h, &ky0, &ky1);
            for (ox = y.w_start; ox < y.w_end; ++ox) {
                const int32_t ix0 = ox * aw.s - aw.pb;
                /* an average's divisor, <= MAX_MEAN_COUNT (a max pool's window may hold more taps) */
                const int32_t count = is_max ? 0 : rows * tk_axis_pool_count(&aw, ix0, include_pad);
                uint8_t *yp = yrow + tk_col(&y, ox);
                int32_t kx0, kx1;
                tk_axis_taps(&aw, ix0, 0, x.w, &kx0, &kx1);
                for (c = 0; c < C; ++c) {
                    int32_t best = 0, total = 0, ky, kx;
                    for (ky = ky0; ky < ky1; ++ky) {
                        const uint8_t *xrow = tigris_view_row(&x, n, iy0 + ky * ah.d) + c;
                        for (kx = kx0; kx < kx1; ++kx) {
                            const int32_t u = (int32_t)(uint8_t)(xrow[tk_col(&x, ix0 + kx * aw.d)] ^ pq.in.s.flip);
                            if (u > best) best = u;
                            if (!is_max) total += u - pq.in.s.bias - pq.in.zp; /* |.| <= 255 count */
                        }
                    }
                    yp[c] = is_max ? pool_pick(&pq, best - pq.in.s.bias) : pool_mean(&pq, total, count);
                }
            }
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* The resident rows x columns of channel c of batch item n into *state: the sum of value - zp
 * (a mean) or the largest stored value (a max), both starting at 0. Exact int32 arithmetic: all
 * rows in one call, a band or a window per tile give the same state. */
static void i8_pool_rows(const tigris_view_t *x, const tigris_i8_move_t *pq, int32_t n, int32_t c, int is_max,
                         int32_t *state) {
    const int32_t cols = x->w_end - x->w_start;
    int32_t acc = *state, r, i;
    for (r = x->h_start; r < x->h_end; ++r) {
        const uint8_t *xp = tigris_view_row(x, n, r) + c;
        for (i = 0; i < cols; ++i) {
            const int32_t u = (int32_t)(uint8_t)(xp[(size_t)i * (size_t)x->c] ^ pq->in.s.flip);
            if (is_max) {
                if (u > acc) acc = u;
            } else {
                acc += u - pq->in.s.bias - pq->in.zp; /* |.| <= 255 a pixel, H W <= MAX_MEAN_COUNT */
            }
        }
    }
    *state = acc;
}

/* i8_pool_rows for channels [c, c + len) (len <= POOL_CHUNK) at once, state[j] for channel
 * c + j: the pixels outermost, the channels side by side (max and an exact int32 sum do not
 * depend on the order, so the state is i8_pool_rows'). */
static void i8_pool_rows_block(const tigris_view_t *x, const tigris_i8_move_t *pq, int32_t n, int32_t c, int32_t len,
                               int is_max, int32_t *state) {
    const int32_t cols = x->w_end - x->w_start;
    const uint8_t flip = pq->in.s.flip;
    const int32_t off = pq->in.s.bias + pq->in.zp;
    int32_t st[POOL_CHUNK], r, i, j;
    for (j = 0; j < POOL_CHUNK; ++j) st[j] = j < len ? state[j] : 0;
    for (r = x->h_start; r < x->h_end; ++r) {
        const uint8_t *xr = tigris_view_row(x, n, r) + c;
        for (i = 0; i < cols; ++i) {
            const uint8_t *xp = xr + (size_t)i * (size_t)x->c;
            if (len == POOL_CHUNK && is_max) {
                for (j = 0; j < POOL_CHUNK; ++j) {
                    const int32_t u = (uint8_t)(xp[j] ^ flip);
                    st[j] = u > st[j] ? u : st[j];
                }
            } else if (len == POOL_CHUNK) {
                for (j = 0; j < POOL_CHUNK; ++j) st[j] += (int32_t)(uint8_t)(xp[j] ^ flip) - off;
            } else {
                for (j = 0; j < len; ++j) {
                    const int32_t u = (uint8_t)(xp[j] ^ flip);
                    if (is_max) st[j] = u > st[j] ? u : st[j];
                    else st[j] += u - off;
                }
            }
        }
    }
    for (j = 0; j < len; ++j) state[j] = st[j];
}

/* The accumulator of a reduction tile (one int32 per batch item and channel), checked to hold
 * what the pixels before the tile can leave (a max: a stored value; a mean: at most 255 a pixel;
 * before a window, at most rows [0, h_start) and columns [0, w_start) of its rows), so that no
 * later tile overflows int32 whatever the arena held. */
static int i8_pool_accumulator(const tigris_mem_t *mem, const tigris_view_t *x, const tigris_view_t *y, int is_max,
                               int32_t channels, int32_t **acc) {
    const size_t count = (size_t)x->n * (size_t)channels;
    const int64_t before = (int64_t)x->h_start * x->w + (int64_t)x->w_start * (x->h_end - x->h_start);
    const int64_t bound = is_max ? 255 : 255 * before;
    void *state;
    size_t k;
    int err = tigris_k_accumulator(mem, (uint64_t)count * sizeof(int32_t), x, y, &state);
    if (err != TIGRIS_KERNEL_OK) return err;
    *acc = (int32_t *)state;
    for (k = 0; before > 0 && k < count; ++k)
        if ((*acc)[k] < (is_max ? 0 : -bound) || (*acc)[k] > bound) return TIGRIS_KERNEL_ERR_PARAMS;
    return TIGRIS_KERNEL_OK;
}

/* GLOBAL_AVG: the mean over the spatial axes; GLOBAL_MAX: the max of stored values, moved to the
 * result's parameters. In reduction tiles a band at a time. */
int tigris_i8_global_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx) {
    tigris_view_t x, y;
    tigris_i8_move_t pq;
    int32_t n, c, c0 = 0, c1, pixels, *acc = NULL;
    const int is_max = op->op_type == TIGRIS_OP_GLOBAL_MAX, reduces = tk_reduces(mem, op_index);
    int err;
    (void)user_ctx;
    if (tk_input(plan, op, 0) == TIGRIS_NONE16 || tk_output(plan, op, 0) == TIGRIS_NONE16)
        return TIGRIS_KERNEL_ERR_PARAMS;
    /* the input as a window (reduction tiles cut along W); the output is written whole */
    if ((err = tigris_view_of_window(plan, mem, tk_input(plan, op, 0), &x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, tk_output(plan, op, 0), &y)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_move_setup(plan, tk_input(plan, op, 0), tk_output(plan, op, 0), &pq)) != TIGRIS_KERNEL_OK)
        return err;
    if (!reduces && ((err = full_rows(&x)) != TIGRIS_KERNEL_OK || (err = full_rows(&y)) != TIGRIS_KERNEL_OK ||
                     x.w_start != 0 || x.w_end != x.w))
        return err != TIGRIS_KERNEL_OK ? err : TIGRIS_KERNEL_ERR_BAND;
    if (y.n != x.n || y.c != x.c || y.h != 1 || y.w != 1) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((int64_t)x.h * x.w > TIGRIS_I8_MAX_MEAN_COUNT) return TIGRIS_KERNEL_ERR_PARAMS; /* the sum fits int32 */
    pixels = x.h * x.w;
    if (pixels < 1) return TIGRIS_KERNEL_ERR_SHAPE; /* a mean or max of nothing */
    c1 = x.c; /* reduction tiles: the accumulator holds the tile's channel block */
    if (reduces && ((err = tk_reduce_channels(mem, x.c, &c0, &c1)) != TIGRIS_KERNEL_OK ||
                    (err = i8_pool_accumulator(mem, &x, &y, is_max, c1 - c0, &acc)) != TIGRIS_KERNEL_OK))
        return err;
    for (n = 0; TK_FAST_ENABLED && n < x.n; ++n) { /* POOL_CHUNK channels at a time */
        uint8_t *yn = tigris_view_row(&y, n, 0);
        int32_t len, j;
        for (c = c0; c < c1; c += len) {
            int32_t own[POOL_CHUNK];
            int32_t *state = acc != NULL ? acc + (size_t)n * (size_t)(c1 - c0) + (size_t)(c - c0) : own;
            len = c1 - c < POOL_CHUNK ? c1 - c : POOL_CHUNK;
            for (j = 0; j < len && x.h_start == 0 && x.w_start == 0; ++j) state[j] = 0;
            i8_pool_rows_block(&x, &pq, n, c, len, is_max, state);
            for (j = 0; j < len && x.h_end == x.h && x.w_end == x.w; ++j)
                yn[c + j] = is_max ? pool_pick(&pq, state[j] - pq.in.s.bias) : pool_mean(&pq, state[j], pixels);
        }
    }
    for (n = 0; !TK_FAST_ENABLED && n < x.n; ++n) {
        uint8_t *yn = tigris_view_row(&y, n, 0);
        for (c = c0; c < c1; ++c) {
            int32_t own = 0; /* untiled: the state lives here for the one call */
            int32_t *state = acc != NULL ? acc + (size_t)n * (size_t)(c1 - c0) + (size_t)(c - c0) : &own;
            if (x.h_start == 0 && x.w_start == 0) *state = 0;
            i8_pool_rows(&x, &pq, n, c, is_max, state);
            if (x.h_end == x.h && x.w_end == x.w) yn[c] = is_max ? pool_pick(&pq, *state - pq.in.s.bias) : pool_mean(&pq, *state, pixels);
        }
    }
    return TIGRIS_KERNEL_OK;
}
