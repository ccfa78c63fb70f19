/* kernels_f32_shape.c - data movement: concat, pad, resize, reshapes, transpose.
 *
 * The parameters of concat, pad, resize and transpose name axes in runtime (channels-last)
 * order, so those kernels turn their tk_nd_t operands to runtime order and work there
 * (reductions: kernels_f32_reduce.c). Pure data movement (concat,
 * transpose, reshapes, nearest resize, edge/reflect pad) copies elements of any size; what
 * computes (linear resize, a constant pad value) is float32.
 */
#include <math.h>
#include <string.h>

#include "kernels_f32.h"
#include "kernels_fast.h"

/* Copy `count` elements of `elem` bytes between strided runs. */
static void copy_run(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride, int32_t count,
                     uint32_t elem) {
    int32_t i;
    if (dst_stride == 1 && src_stride == 1) {
        memcpy(dst, src, (size_t)count * elem);
        return;
    }
    for (i = 0; i < count; ++i)
        memcpy(dst + (ptrdiff_t)i * dst_stride * (ptrdiff_t)elem, src + (ptrdiff_t)i * src_stride * (ptrdiff_t)elem, elem);
}

/* Tensor t as a tk_nd_t in runtime order; `window`: a 2-D tile's window of columns is accepted
 * (only a kernel that computes exactly its output's window asks for that). */
static int runtime_nd_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, int window, tk_nd_t *nd) {
    int err;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = window ? tigris_k_nd_of_window(plan, mem, t, nd) : tigris_k_nd_of(plan, mem, t, nd);
    if (err == TIGRIS_KERNEL_OK) tigris_k_nd_to_runtime(nd);
    return err;
}

/* Tensor t as a tk_nd_t in runtime order, held in whole rows. */
static int runtime_nd(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, tk_nd_t *nd) {
    return runtime_nd_of(plan, mem, t, 0, nd);
}

/* Input i of a concat along `axis` (runtime order, a window accepted), checked against the
 * result y: the same rank, element type and dims off the axis, and whole rows if the axis is
 * spatial (tk_spatial_axis). */
static int concat_input(const tigris_plan_t *plan, const tigris_mem_t *mem, const tigris_op_t *op, uint32_t i,
                        const tk_nd_t *y, int32_t axis, tk_nd_t *x) {
    int32_t a;
    int err = runtime_nd_of(plan, mem, tk_input(plan, op, i), 1, x);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (x->rank != y->rank || x->elem != y->elem || x->dtype != y->dtype) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < y->rank; ++a)
        if (a != axis && x->dims[a] != y->dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
    return tk_spatial_axis(axis, y->rank) && tk_col_window(x) ? TIGRIS_KERNEL_ERR_BAND : TIGRIS_KERNEL_OK;
}

/* Copy operand 1 of a walk into operand 0, run by run along the last (channel) axis. */
static void copy_walk(tk_iter_t *it, const tk_nd_t *y, const tk_nd_t *x) {
    const int32_t last = it->rank - 1;
    if (!tk_iter_start(it)) return;
    do {
        copy_run(y->data + it->off[0] * (ptrdiff_t)y->elem, it->stride[0][last], x->data + it->off[1] * (ptrdiff_t)x->elem,
                 it->stride[1][last], tk_iter_inner(it), y->elem);
    } while (tk_iter_next(it));
}

/* CONCAT: each input into its part of the result along `axis` (runtime order), only where the
 * result is resident: its band of rows, and in a 2-D tile its window of columns (a channel or
 * batch concat; along a spatial axis a window is TIGRIS_KERNEL_ERR_BAND). Elements of any size. */
int tigris_f32_concat(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t y, x, part;
    tk_iter_t it;
    int32_t axis, offset;
    uint32_t i;
    int pass, err;
    (void)op_index;
    (void)user_ctx;

    err = runtime_nd_of(plan, mem, tk_output(plan, op, 0), 1, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    axis = op->axis < 0 ? op->axis + y.rank : op->axis;
    if (axis < 0 || axis >= y.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    if (tk_spatial_axis(axis, y.rank) && tk_col_window(&y)) return TIGRIS_KERNEL_ERR_BAND;
    /* pass 0 checks every input (shapes, what it holds), pass 1 copies: a bad op writes nothing */
    for (pass = 0; pass < 2; ++pass) {
        offset = 0;
        for (i = 0; i < op->num_inputs; ++i) {
            err = concat_input(plan, mem, op, i, &y, axis, &x);
            if (err != TIGRIS_KERNEL_OK) return err;
            if (x.dims[axis] > y.dims[axis] - offset) return TIGRIS_KERNEL_ERR_SHAPE;
            if (tk_concat_part(&y, axis, offset, x.dims[axis], &part)) {
                tigris_k_iter_output(&it, &part, NULL);
                err = tigris_k_iter_broadcast(&it, &part, NULL, &x);
                if (err != TIGRIS_KERNEL_OK) return err;
                if (pass == 1) copy_walk(&it, &part, &x);
            }
            offset += x.dims[axis];
        }
        if (offset != y.dims[axis]) return TIGRIS_KERNEL_ERR_SHAPE;
    }
    return TIGRIS_KERNEL_OK;
}

/* RESHAPE, FLATTEN, SQUEEZE, UNSQUEEZE: element i of the input in model order is element i of
 * the result in model order, each at its stored position (one memmove when both are stored in
 * model order); with TIGRIS_OPF_STORED_ORDER the stored bytes as they are. Elements of any size. */
int tigris_f32_copy(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tk_nd_t y, x;
    tk_flat_t f;
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    (void)op_index;
    (void)user_ctx;

    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tigris_k_nd_of(plan, mem, tx, &x);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_nd_of(plan, mem, ty, &y);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(&x);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(&y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (plan->tensors[tx].size != plan->tensors[ty].size || x.elem != y.elem) return TIGRIS_KERNEL_ERR_SHAPE;
    if (tk_reshape_copies_bytes(plan, op) || (tk_row_major(&x) && tk_row_major(&y))) {
        if (x.data != y.data) memmove(y.data, x.data, plan->tensors[ty].size);
        return TIGRIS_KERNEL_OK;
    }
    if (!tk_flat_start(&f, &y, &x)) return TIGRIS_KERNEL_OK;
    do {
        copy_run(y.data + f.off[0] * (ptrdiff_t)y.elem, f.stride[0], x.data + f.off[1] * (ptrdiff_t)x.elem, f.stride[1],
                 f.count, y.elem);
    } while (tk_flat_next(&f));
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                         void *user_ctx) {
    tk_nd_t y, x;
    tk_iter_t it;
    ptrdiff_t strides[TK_MAX_RANK];
    const int32_t *perm = tk_params(plan, op);
    uint32_t seen = 0;
    int32_t a;
    int err;
    (void)op_index;
    (void)user_ctx;

    err = runtime_nd(plan, mem, tk_input(plan, op, 0), &x);
    if (err == TIGRIS_KERNEL_OK) err = runtime_nd(plan, mem, tk_output(plan, op, 0), &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (perm == NULL || op->num_params != y.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    if (x.rank != y.rank || x.elem != y.elem) return TIGRIS_KERNEL_ERR_SHAPE;
    tigris_k_iter_output(&it, &y, NULL);
    for (a = 0; a < y.rank; ++a) { /* output axis a is input axis perm[a] */
        const int32_t p = perm[a];
        if (p < 0 || p >= x.rank || (seen & (1u << p)) != 0) return TIGRIS_KERNEL_ERR_PARAMS;
        seen |= 1u << p;
        if (x.dims[p] != y.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
        strides[a] = x.strides[p];
        err = tigris_k_check_rows(&x, p, it.lo[a], it.hi[a]);
        if (err != TIGRIS_KERNEL_OK) return err;
    }
    tigris_k_iter_add(&it, strides, x.row_axis >= 0 ? -(ptrdiff_t)x.h_start * x.strides[x.row_axis] : 0);
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1;
        copy_run(y.data + it.off[0] * (ptrdiff_t)y.elem, it.stride[0][last], x.data + it.off[1] * (ptrdiff_t)x.elem,
                 it.stride[1][last], tk_iter_inner(&it), y.elem);
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* -- pad ----------------------------------------------------------------------------------- */

/* Input index feeding output index j along one axis (numpy's pad after cropping negative
 * pads), or -1 where the constant goes. 64-bit: a pad may be any int32 (tigris_f32_pad has
 * checked that the crops leave len >= 0 elements). */
static int32_t pad_source(int32_t j, int32_t begin, int32_t end, int32_t in_len, uint8_t mode) {
    const int64_t crop = begin < 0 ? -(int64_t)begin : 0;
    const int64_t len = in_len - crop - (end < 0 ? -(int64_t)end : 0);
    int64_t t = (int64_t)j - (begin > 0 ? begin : 0);
    if (t >= 0 && t < len) return (int32_t)(crop + t);
    if (mode == TIGRIS_PAD_CONSTANT || len < 1) return -1;
    if (mode == TIGRIS_PAD_EDGE) return (int32_t)(crop + (t < 0 ? 0 : len - 1));
    if (len == 1) return (int32_t)crop;
    {
        const int64_t period = 2 * (len - 1); /* reflect without repeating the edge */
        t %= period;
        if (t < 0) t += period;
        return (int32_t)(crop + (t >= len ? period - t : t));
    }
}

int tigris_f32_pad(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tk_nd_t y, x;
    tk_iter_t it;
    const int32_t *pads = tk_params(plan, op);
    const uint8_t mode = op->mode;
    int32_t r, a, last;
    int err, copy_runs;
    (void)op_index;
    (void)user_ctx;

    /* a window of either (a 2-D tile): the walk covers the output's resident pixels, each
     * read checked against the input's (tk_resident_offset) */
    err = runtime_nd_of(plan, mem, tk_input(plan, op, 0), 1, &x);
    if (err == TIGRIS_KERNEL_OK) err = runtime_nd_of(plan, mem, tk_output(plan, op, 0), 1, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    r = y.rank;
    if (pads == NULL || op->num_params != 2 * r || mode > TIGRIS_PAD_EDGE) return TIGRIS_KERNEL_ERR_PARAMS;
    if (x.rank != r || x.elem != y.elem || x.dtype != y.dtype) return TIGRIS_KERNEL_ERR_SHAPE;
    if (mode == TIGRIS_PAD_CONSTANT && y.dtype != TIGRIS_DTYPE_F32 && op->pad_value != 0.0f)
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    for (a = 0; a < r; ++a) { /* in 64 bits: the pads are any int32 */
        const int64_t begin = pads[a], end = pads[r + a];
        const int64_t kept = x.dims[a] - (begin < 0 ? -begin : 0) - (end < 0 ? -end : 0);
        if ((int64_t)y.dims[a] != x.dims[a] + begin + end) return TIGRIS_KERNEL_ERR_SHAPE;
        if (kept < 0 || (mode != TIGRIS_PAD_CONSTANT && kept < 1 && y.dims[a] > 0)) return TIGRIS_KERNEL_ERR_SHAPE;
    }
    tigris_k_iter_output(&it, &y, NULL);
    if (r == 0 || !tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    last = r - 1;
    /* fast: the last axis (channels) not padded and contiguous in both, so a run is one copy of
     * x's run at the same indices (pad_source of index j is j) or one fill */
    copy_runs = TK_FAST_ENABLED && pads[last] == 0 && pads[r + last] == 0 && it.stride[0][last] == 1 &&
                x.strides[last] == 1;
    do {
        uint8_t *dst = y.data + it.off[0] * (ptrdiff_t)y.elem;
        const ptrdiff_t dst_step = it.stride[0][last] * (ptrdiff_t)y.elem;
        ptrdiff_t src = 0;
        int32_t j, inside = 1;
        for (a = 0; a < last && inside; ++a) { /* the source of the outer axes, or padding */
            const int32_t s = pad_source(it.idx[a], pads[a], pads[r + a], x.dims[a], mode);
            const ptrdiff_t at = s < 0 ? 0 : tk_resident_offset(&x, a, s);
            if (s < 0) {
                inside = 0;
            } else if (at < 0) {
                return TIGRIS_KERNEL_ERR_BAND;
            } else {
                src += at;
            }
        }
        if (copy_runs) { /* the run is x's run of the same indices, or all padding */
            const int32_t n = tk_iter_inner(&it);
            if (inside) {
                const ptrdiff_t at = tk_resident_offset(&x, last, it.lo[last]);
                if (at < 0 || tk_resident_offset(&x, last, it.lo[last] + n - 1) < 0) return TIGRIS_KERNEL_ERR_BAND;
                memcpy(dst, x.data + (src + at) * (ptrdiff_t)x.elem, (size_t)n * y.elem);
            } else if (y.dtype == TIGRIS_DTYPE_F32) {
                float *d = (float *)(void *)dst;
                for (j = 0; j < n; ++j) d[j] = op->pad_value;
            } else {
                memset(dst, 0, (size_t)n * y.elem);
            }
            continue;
        }
        for (j = 0; j < tk_iter_inner(&it); ++j) {
            const int32_t s = inside ? pad_source(it.lo[last] + j, pads[last], pads[r + last], x.dims[last], mode) : -1;
            uint8_t *d = dst + (ptrdiff_t)j * dst_step;
            if (s < 0 && y.dtype == TIGRIS_DTYPE_F32) {
                *(float *)(void *)d = op->pad_value;
            } else if (s < 0) {
                memset(d, 0, y.elem);
            } else {
                const ptrdiff_t at = tk_resident_offset(&x, last, s);
                if (at < 0) return TIGRIS_KERNEL_ERR_BAND;
                memcpy(d, x.data + (src + at) * (ptrdiff_t)x.elem, y.elem);
            }
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}

/* -- resize -------------------------------------------------------------------------------- */

/* The input taps of one output index along one axis: i0 (weight w0) and i1 (weight w1). */
typedef struct {
    int32_t i0, i1;
    float w0, w1;
} tk_taps_t;

/* onnxruntime's source coordinate (float32, upsamplebase.h) of output index j. */
static float source_coordinate(uint8_t coord_mode, int32_t j, int32_t out_len, int32_t in_len, float scale) {
    const float x = (float)j;
    switch (coord_mode) {
    case TIGRIS_COORD_ASYMMETRIC: return x / scale;
    case TIGRIS_COORD_ALIGN_CORNERS: return out_len == 1 ? 0.0f : x * (float)(in_len - 1) / (float)(out_len - 1);
    case TIGRIS_COORD_PYTORCH_HALF_PIXEL: return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    default: return (x + 0.5f) / scale - 0.5f; /* HALF_PIXEL */
    }
}

/* The taps of output index j: nearest rounds as the interpreter does (floor for asymmetric,
 * round_prefer_floor otherwise), linear takes two clamped neighbours (0.5 each at an edge). */
static void resize_taps(const tigris_op_t *op, int32_t j, int32_t out_len, int32_t in_len, int32_t scale,
                        tk_taps_t *t) {
    float c;
    t->i0 = t->i1 = j;
    t->w0 = 1.0f;
    t->w1 = 0.0f;
    if (scale == 1) return;
    c = source_coordinate(op->coord_mode, j, out_len, in_len, (float)scale);
    if (op->mode == TIGRIS_RESIZE_NEAREST) {
        const float f = floorf(c);
        int32_t i = (int32_t)f;
        if (op->coord_mode != TIGRIS_COORD_ASYMMETRIC && c - f > 0.5f) ++i;
        t->i0 = t->i1 = i < 0 ? 0 : (i > in_len - 1 ? in_len - 1 : i);
        return;
    }
    c = c < 0.0f ? 0.0f : (c > (float)(in_len - 1) ? (float)(in_len - 1) : c);
    t->i0 = (int32_t)c < in_len - 1 ? (int32_t)c : in_len - 1;
    t->i1 = t->i0 + 1 < in_len - 1 ? t->i0 + 1 : in_len - 1;
    if (t->i0 == t->i1) {
        t->w0 = t->w1 = 0.5f;
    } else {
        t->w1 = fabsf(c - (float)t->i0);
        t->w0 = fabsf(c - (float)t->i1);
    }
}

/* y[k] += w x[k] for k < n (one corner of a linear resize, over a run of channels). */
static void add_scaled(float *restrict y, const float *restrict x, float w, int32_t n) {
    int32_t i = 0, j;
    for (; i + 16 <= n; i += 16)
        for (j = 0; j < 16; ++j) y[i + j] += w * x[i + j];
    for (; i < n; ++i) y[i] += w * x[i];
}

/* One run of the resize walk along a last axis with scale 1, contiguous in x and y: output j
 * reads input j of that axis at every corner, so the reference's per-element taps are the same
 * for the whole run. Nearest: one copy. Linear: the corners' weights (the reference's products,
 * in its order) once, then each nonzero corner added over the run in the reference's corner
 * order, from 0.0f: per element the same float operations in the same order. base and the
 * outer taps and deltas are the reference's for this run. */
static int resize_run(const tk_iter_t *it, const tk_nd_t *y, const tk_nd_t *x, const tk_taps_t *taps,
                      const ptrdiff_t *delta, const int32_t *two, int32_t num_two, int linear, ptrdiff_t base) {
    const int32_t last = it->rank - 1, n = tk_iter_inner(it);
    const ptrdiff_t o0 = tk_resident_offset(x, last, it->lo[last]);
    uint8_t *d = y->data + it->off[0] * (ptrdiff_t)y->elem;
    float *yf = (float *)(void *)d;
    uint32_t corner;
    int32_t j;
    if (o0 < 0 || tk_resident_offset(x, last, it->lo[last] + n - 1) < 0) return TIGRIS_KERNEL_ERR_BAND;
    if (!linear) {
        memcpy(d, x->data + (base + o0) * (ptrdiff_t)x->elem, (size_t)n * y->elem);
        return TIGRIS_KERNEL_OK;
    }
    for (j = 0; j < n; ++j) yf[j] = 0.0f;
    for (corner = 0; corner < (1u << num_two); ++corner) {
        ptrdiff_t at = base + o0;
        float weight = 1.0f;
        int32_t k;
        for (k = 0; k < num_two; ++k) {
            const tk_taps_t *t = &taps[two[k]];
            if ((corner >> k) & 1u) {
                weight *= t->w1;
                at += delta[two[k]];
            } else {
                weight *= t->w0;
            }
        }
        if (weight != 0.0f) add_scaled(yf, (const float *)(const void *)x->data + at, weight, n);
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_resize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t y, x;
    tk_iter_t it;
    tk_taps_t taps[TK_MAX_RANK];
    ptrdiff_t delta[TK_MAX_RANK]; /* offset of tap i1 minus tap i0 along each axis */
    int32_t two[TK_MAX_RANK];     /* the axes a linear resize interpolates along */
    const int32_t *scales = tk_params(plan, op);
    const int linear = op->mode == TIGRIS_RESIZE_LINEAR;
    int32_t r, a, last, num_two = 0;
    int err, runs;
    (void)op_index;
    (void)user_ctx;

    /* a window of either (a 2-D tile): the walk covers the output's resident pixels, every
     * tap checked against the input's (tk_resident_offset) */
    err = runtime_nd_of(plan, mem, tk_input(plan, op, 0), 1, &x);
    if (err == TIGRIS_KERNEL_OK) err = runtime_nd_of(plan, mem, tk_output(plan, op, 0), 1, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    r = y.rank;
    if (scales == NULL || op->num_params != r || op->mode > TIGRIS_RESIZE_LINEAR ||
        op->coord_mode > TIGRIS_COORD_PYTORCH_HALF_PIXEL)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if (x.rank != r || x.elem != y.elem || x.dtype != y.dtype || r == 0) return TIGRIS_KERNEL_ERR_SHAPE;
    if (linear && y.dtype != TIGRIS_DTYPE_F32) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    for (a = 0; a < r; ++a) {
        if (scales[a] < 1 || (int64_t)y.dims[a] != (int64_t)x.dims[a] * scales[a]) return TIGRIS_KERNEL_ERR_SHAPE;
        if (linear && scales[a] != 1) two[num_two++] = a;
    }
    tigris_k_iter_output(&it, &y, NULL);
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    last = r - 1;
    /* fast: the last axis (channels) not resized and contiguous in both (resize_run) */
    runs = TK_FAST_ENABLED && scales[last] == 1 && it.stride[0][last] == 1 && x.strides[last] == 1;
    do {
        ptrdiff_t base = 0;
        int32_t j;
        for (a = 0; a < last; ++a) { /* taps of the outer axes */
            ptrdiff_t o0, o1;
            resize_taps(op, it.idx[a], y.dims[a], x.dims[a], scales[a], &taps[a]);
            o0 = tk_resident_offset(&x, a, taps[a].i0);
            o1 = tk_resident_offset(&x, a, taps[a].i1);
            if (o0 < 0 || o1 < 0) return TIGRIS_KERNEL_ERR_BAND;
            base += o0;
            delta[a] = o1 - o0;
        }
        if (runs) {
            err = resize_run(&it, &y, &x, taps, delta, two, num_two, linear, base);
            if (err != TIGRIS_KERNEL_OK) return err;
            continue;
        }
        for (j = 0; j < tk_iter_inner(&it); ++j) {
            uint8_t *d = y.data + (it.off[0] + (ptrdiff_t)j * it.stride[0][last]) * (ptrdiff_t)y.elem;
            ptrdiff_t o0, o1;
            resize_taps(op, it.lo[last] + j, y.dims[last], x.dims[last], scales[last], &taps[last]);
            o0 = tk_resident_offset(&x, last, taps[last].i0);
            o1 = tk_resident_offset(&x, last, taps[last].i1);
            if (o0 < 0 || o1 < 0) return TIGRIS_KERNEL_ERR_BAND;
            delta[last] = o1 - o0;
            if (!linear) {
                memcpy(d, x.data + (base + o0) * (ptrdiff_t)x.elem, y.elem);
            } else { /* every corner of the two-tap axes, its weight the product of theirs */
                const float *xd = (const float *)(const void *)x.data;
                float sum = 0.0f;
                uint32_t corner;
                for (corner = 0; corner < (1u << num_two); ++corner) {
                    ptrdiff_t at = base + o0;
                    float weight = 1.0f;
                    int32_t k;
                    for (k = 0; k < num_two; ++k) {
                        const tk_taps_t *t = &taps[two[k]];
                        if ((corner >> k) & 1u) {
                            weight *= t->w1;
                            at += delta[two[k]];
                        } else {
                            weight *= t->w0;
                        }
                    }
                    if (weight != 0.0f) sum += weight * xd[at];
                }
                *(float *)(void *)d = sum;
            }
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}
