/* kernels_move.c - slice, gather, tile: stored values selected or repeated, elements of any size.
 *
 * Each kernel is one tk_iter_t walk (kernels_internal.h) of the result with the operand's strides
 * set so that the walk reads the element to copy: a slice scales and shifts them (start, step per
 * axis), a gather fixes the indexed axes of the result and reads one input position per index, a
 * tile walks one copy of the input per block of repeats (a size-1 axis repeats by stride 0). The
 * float entry points copy bytes of any element size (float32, int32, int64, bool); the int8 ones
 * move 8-bit values, requantized when the result's parameters differ from the input's
 * (tigris_i8_move_t, as tigris_i8_transpose does).
 *
 * Slice and tile parameters name axes in runtime (channels-last) order: [starts..., steps...] and
 * [repeats...]. A gather changes the rank, so its `axis` is a model-order axis, its params the
 * constant indices (flattened), or its operand 1 an int32/int64 tensor of indices.
 *
 * Tiles: a slice that changes only the channel axis, and a gather with constant indices along
 * model axis 1 (C) that keeps the rank, leave every pixel where it is (the compiler's
 * ChannelPickTileCategory, tigris_band_op_tileable), so they run on a band of rows or a 2-D
 * window: they move exactly the resident pixels of the result, each from the same pixel of the
 * input, which must hold them (TIGRIS_KERNEL_ERR_BAND otherwise). Every other slice and gather,
 * and every tile, needs both tensors resident whole (TIGRIS_KERNEL_ERR_BAND otherwise).
 */
#include <string.h>

#include "kernels_f32.h"
#include "kernels_i8.h"

/* How a run of elements moves: bytes of `elem` size, or 8-bit values through mv (NULL: copies). */
typedef struct {
    uint32_t elem;
    const tigris_i8_move_t *mv;
} mover_t;

static void move_run(const mover_t *m, uint8_t *dst, ptrdiff_t ds, const uint8_t *src, ptrdiff_t ss,
                     int32_t count) {
    const ptrdiff_t elem = (ptrdiff_t)m->elem;
    int32_t i;
    if (m->mv != NULL && m->mv->requant) {
        for (i = 0; i < count; ++i) dst[(ptrdiff_t)i * ds] = tigris_i8_move_byte(m->mv, src[(ptrdiff_t)i * ss]);
        return;
    }
    if (ds == 1 && ss == 1) {
        memmove(dst, src, (size_t)count * m->elem);
        return;
    }
    for (i = 0; i < count; ++i) memcpy(dst + (ptrdiff_t)i * ds * elem, src + (ptrdiff_t)i * ss * elem, m->elem);
}

/* Walk `it` (operand 0 the result, operand 1 the source) and move every run. */
static void move_walk(const mover_t *m, tk_iter_t *it, uint8_t *out, const uint8_t *in) {
    const int32_t last = it->rank - 1;
    const ptrdiff_t elem = (ptrdiff_t)m->elem;
    if (!tk_iter_start(it)) return;
    do {
        move_run(m, out + it->off[0] * elem, it->stride[0][last], in + it->off[1] * elem, it->stride[1][last],
                 tk_iter_inner(it));
    } while (tk_iter_next(it));
}

/* Input 0 and output 0 as they are resident (a band of rows, a rank-4 window of columns), in
 * runtime or model order; the mover (int8: the requantization). A kernel that is not computing
 * a channel pick asks for whole tensors (whole()) before it reads anything. */
static int load(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem, int runtime_order,
                tigris_i8_move_t *mv, tk_nd_t *y, tk_nd_t *x, mover_t *m) {
    uint16_t tx = tk_input(plan, op, 0), ty = tk_output(plan, op, 0);
    int err;
    if (tx == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_k_nd_of_window(plan, mem, tx, x)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_nd_of_window(plan, mem, ty, y)) != TIGRIS_KERNEL_OK) return err;
    if (x->rank < 1 || y->rank < 1 || x->elem != y->elem || x->elem == 0) return TIGRIS_KERNEL_ERR_SHAPE;
    m->elem = y->elem;
    m->mv = mv;
    if (mv != NULL) {
        if (x->elem != 1) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
        if ((err = tigris_i8_move_setup(plan, tx, ty, mv)) != TIGRIS_KERNEL_OK) return err;
    } else if (x->dtype != y->dtype) {
        return TIGRIS_KERNEL_ERR_SHAPE;
    }
    if (runtime_order) {
        tigris_k_nd_to_runtime(x);
        tigris_k_nd_to_runtime(y);
    }
    return TIGRIS_KERNEL_OK;
}

/* TIGRIS_KERNEL_ERR_BAND unless both tensors are resident whole (every row and column). */
static int whole(const tk_nd_t *x, const tk_nd_t *y) {
    int err = tigris_k_require_full(x);
    return err != TIGRIS_KERNEL_OK ? err : tigris_k_require_full(y);
}

/* -- slice: result index i of axis a reads input index start[a] + i * step[a] ------------------- */

/* Whether a slice (params p, runtime order, checked) of rank-r tensors changes only the channel
 * axis, the last in runtime order (rank 2 [N, C] too): start 0, step 1 and the full extent on
 * every other axis, so each pixel of y is the same pixel of x. */
static int slices_channels_only(const tk_nd_t *x, const tk_nd_t *y, const int32_t *p) {
    const int32_t c = y->rank - 1;
    int32_t a;
    if (y->rank < 2) return 0;
    for (a = 0; a < c; ++a)
        if (p[a] != 0 || p[y->rank + a] != 1 || x->dims[a] != y->dims[a]) return 0;
    return 1;
}

static int slice(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, tigris_i8_move_t *mv) {
    tk_nd_t y, x, picked;
    tk_iter_t it;
    mover_t m;
    const int32_t *p = tk_params(plan, op);
    int32_t a;
    int err;
    if ((err = load(plan, op, mem, 1, mv, &y, &x, &m)) != TIGRIS_KERNEL_OK) return err;
    if (x.rank != y.rank) return TIGRIS_KERNEL_ERR_SHAPE;
    if (p == NULL || op->num_params != 2u * (uint32_t)y.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    for (a = 0; a < y.rank; ++a) {
        const int32_t start = p[a], step = p[y.rank + a], n = y.dims[a];
        if (step == 0) return TIGRIS_KERNEL_ERR_PARAMS;
        if (n > 0) { /* first and last index read lie in the input: 64-bit, any int32 start/step */
            const int64_t end = (int64_t)start + (int64_t)(n - 1) * step;
            if (start < 0 || start >= x.dims[a] || end < 0 || end >= x.dims[a]) return TIGRIS_KERNEL_ERR_PARAMS;
        }
    }
    if (!slices_channels_only(&x, &y, p) && (err = whole(&x, &y)) != TIGRIS_KERNEL_OK) return err;
    /* x seen through the slice: y's dims, element i of axis a at input index start + i * step.
     * Off the channel axis a channel pick keeps x's resident rows and columns as they are (start
     * 0, step 1), and anything else is whole; so walking y's resident part and reading `picked`
     * by broadcasting checks that x holds every pixel read. */
    picked = x;
    for (a = 0; a < y.rank; ++a) { /* |step * stride| < the input's element count (int32) if n > 1 */
        picked.data += (ptrdiff_t)p[a] * x.strides[a] * (ptrdiff_t)x.elem;
        picked.dims[a] = y.dims[a];
        picked.strides[a] = y.dims[a] > 1 ? p[y.rank + a] * x.strides[a] : x.strides[a];
    }
    tigris_k_iter_output(&it, &y, NULL);
    if ((err = tigris_k_iter_broadcast(&it, &y, NULL, &picked)) != TIGRIS_KERNEL_OK) return err;
    move_walk(&m, &it, y.data, picked.data);
    return TIGRIS_KERNEL_OK;
}

/* -- tile: one walk per block of repeats along the axes that really repeat ------------------------ */

/* Whether axis a repeats a block of more than one element (a size-1 axis repeats by stride 0). */
static int tiles_block(const tk_nd_t *x, const int32_t *reps, int32_t a) {
    return x->dims[a] > 1 && reps[a] > 1;
}

static int tile(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, tigris_i8_move_t *mv) {
    tk_nd_t y, x;
    tk_iter_t it;
    mover_t m;
    ptrdiff_t strides[TK_MAX_RANK];
    int32_t block[TK_MAX_RANK];
    const int32_t *reps = tk_params(plan, op);
    int32_t a;
    int err;
    if ((err = load(plan, op, mem, 1, mv, &y, &x, &m)) != TIGRIS_KERNEL_OK) return err;
    if ((err = whole(&x, &y)) != TIGRIS_KERNEL_OK) return err;
    if (x.rank != y.rank) return TIGRIS_KERNEL_ERR_SHAPE;
    if (reps == NULL || op->num_params != (uint32_t)y.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    for (a = 0; a < y.rank; ++a) {
        if (reps[a] < 0) return TIGRIS_KERNEL_ERR_PARAMS;
        if ((int64_t)x.dims[a] * reps[a] != y.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
        block[a] = 0;
    }
    if (tk_count(y.dims, y.rank) == 0) return TIGRIS_KERNEL_OK;
    for (;;) {
        ptrdiff_t origin = 0;
        tigris_k_iter_output(&it, &y, NULL);
        for (a = 0; a < y.rank; ++a) {
            strides[a] = x.dims[a] == 1 ? 0 : x.strides[a];
            if (tiles_block(&x, reps, a)) { /* this block's copy: result indices [lo, lo + dim) */
                it.lo[a] = block[a] * x.dims[a];
                it.hi[a] = it.lo[a] + x.dims[a];
                origin -= (ptrdiff_t)it.lo[a] * x.strides[a];
            }
        }
        tigris_k_iter_add(&it, strides, origin);
        move_walk(&m, &it, y.data, x.data);
        for (a = y.rank - 1; a >= 0; --a) { /* next block: an odometer over the repeating axes */
            if (!tiles_block(&x, reps, a)) continue;
            if (++block[a] < reps[a]) break;
            block[a] = 0;
        }
        if (a < 0) return TIGRIS_KERNEL_OK;
    }
}

/* -- gather: numpy's take(x, indices, axis) in model order ---------------------------------------- */

/* The indices: operand 1 (int32/int64, whole, its shape the result's axes [axis, axis + q)) or
 * the op's params (count values). */
typedef struct {
    tk_nd_t t;
    const int32_t *params;
} indices_t;

static int load_indices(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem, const tk_nd_t *y,
                        int32_t axis, int32_t q, size_t count, indices_t *ix) {
    uint16_t ti = tk_input(plan, op, 1);
    int32_t k;
    int err;
    ix->params = NULL;
    if (op->num_inputs < 2) {
        ix->params = tk_params(plan, op);
        return ix->params != NULL && (size_t)op->num_params == count ? TIGRIS_KERNEL_OK : TIGRIS_KERNEL_ERR_PARAMS;
    }
    if (ti == TIGRIS_NONE16 || op->num_params != 0) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_k_nd_of(plan, mem, ti, &ix->t)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&ix->t)) != TIGRIS_KERNEL_OK) return err;
    if (ix->t.dtype != TIGRIS_DTYPE_I32 && ix->t.dtype != TIGRIS_DTYPE_I64) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (ix->t.elem != (ix->t.dtype == TIGRIS_DTYPE_I32 ? 4u : 8u) || ix->t.rank != q) return TIGRIS_KERNEL_ERR_SHAPE;
    for (k = 0; k < q; ++k)
        if (ix->t.dims[k] != y->dims[axis + k]) return TIGRIS_KERNEL_ERR_SHAPE;
    return TIGRIS_KERNEL_OK;
}

/* Index number j (row-major over the result's axes [axis, axis + q)), its coordinates in coord;
 * -1 if it lies outside [-dim, dim), else normalized to [0, dim). */
static int32_t index_at(const indices_t *ix, const tk_nd_t *y, int32_t axis, int32_t q, size_t j, int32_t dim,
                        int32_t *coord) {
    ptrdiff_t off = 0;
    size_t rest = j;
    int64_t v;
    int32_t k;
    for (k = q - 1; k >= 0; --k) { /* every dim is > 0: j < count, their product */
        const int32_t d = y->dims[axis + k];
        coord[k] = (int32_t)(rest % (size_t)d);
        rest /= (size_t)d;
    }
    if (ix->params != NULL) {
        v = ix->params[j];
    } else {
        for (k = 0; k < q; ++k) off += (ptrdiff_t)coord[k] * ix->t.strides[k];
        if (ix->t.dtype == TIGRIS_DTYPE_I32) {
            int32_t w;
            memcpy(&w, ix->t.data + off * 4, sizeof w);
            v = w;
        } else {
            memcpy(&v, ix->t.data + off * 8, sizeof v);
        }
    }
    if (v < -(int64_t)dim || v >= dim) return -1;
    return (int32_t)(v < 0 ? v + dim : v);
}

/* Channel `channel` of a model-order tensor as a [N, 1, ...] tensor holding the same resident
 * rows and columns (a channel pick reads and writes one channel at a time). */
static tk_nd_t one_channel(const tk_nd_t *t, int32_t channel) {
    tk_nd_t c = *t;
    c.data += (ptrdiff_t)channel * t->strides[1] * (ptrdiff_t)t->elem;
    c.dims[1] = 1;
    return c;
}

/* A constant-index gather along C that keeps the rank (q 1) is a channel pick: it runs on the
 * resident part of y (a band, a 2-D window), channel by channel; any other gather on whole
 * tensors. */
static int gather(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, tigris_i8_move_t *mv) {
    tk_nd_t y, x;
    tk_iter_t it;
    mover_t m;
    indices_t ix;
    ptrdiff_t strides[TK_MAX_RANK];
    int32_t coord[TK_MAX_RANK];
    int32_t axis, q, a, k;
    size_t count, j;
    int pass, picks_channels, err;
    if ((err = load(plan, op, mem, 0, mv, &y, &x, &m)) != TIGRIS_KERNEL_OK) return err;
    axis = op->axis;
    if (axis < 0 || axis >= x.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    q = y.rank - x.rank + 1;
    if (q < 0) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < axis; ++a)
        if (y.dims[a] != x.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = axis + 1; a < x.rank; ++a)
        if (y.dims[a + q - 1] != x.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
    count = tk_count(y.dims + axis, q);
    if ((err = load_indices(plan, op, mem, &y, axis, q, count, &ix)) != TIGRIS_KERNEL_OK) return err;
    picks_channels = op->num_inputs < 2 && axis == 1 && q == 1;
    if (!picks_channels && (err = whole(&x, &y)) != TIGRIS_KERNEL_OK) return err;
    for (a = 0; a < y.rank; ++a) /* the result's axes before, at and after the indexed ones */
        strides[a] = a < axis ? x.strides[a] : a < axis + q ? 0 : x.strides[a - q + 1];
    for (pass = 0; pass < 2; ++pass) { /* pass 0 checks every index, pass 1 moves: nothing half-written */
        for (j = 0; j < count; ++j) {
            const int32_t v = index_at(&ix, &y, axis, q, j, x.dims[axis], coord);
            if (v < 0) return TIGRIS_KERNEL_ERR_PARAMS;
            if (picks_channels) { /* y's resident pixels of channel j, from the same pixels of x */
                const tk_nd_t yj = one_channel(&y, (int32_t)j), xv = one_channel(&x, v);
                tigris_k_iter_output(&it, &yj, NULL);
                if ((err = tigris_k_iter_broadcast(&it, &yj, NULL, &xv)) != TIGRIS_KERNEL_OK) return err;
                if (pass == 1) move_walk(&m, &it, yj.data, xv.data);
                continue;
            }
            if (pass == 0) continue;
            tigris_k_iter_output(&it, &y, NULL);
            for (k = 0; k < q; ++k) {
                it.lo[axis + k] = coord[k];
                it.hi[axis + k] = coord[k] + 1;
            }
            tigris_k_iter_add(&it, strides, (ptrdiff_t)v * x.strides[axis]);
            move_walk(&m, &it, y.data, x.data);
        }
    }
    return TIGRIS_KERNEL_OK;
}

/* -- entry points ------------------------------------------------------------------------------- */

int tigris_f32_slice(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    (void)op_index;
    (void)user_ctx;
    return slice(plan, op, mem, NULL);
}

int tigris_f32_gather(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    (void)op_index;
    (void)user_ctx;
    return gather(plan, op, mem, NULL);
}

int tigris_f32_tile(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    (void)op_index;
    (void)user_ctx;
    return tile(plan, op, mem, NULL);
}

int tigris_i8_slice(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                    void *user_ctx) {
    tigris_i8_move_t mv;
    (void)op_index;
    (void)user_ctx;
    return slice(plan, op, mem, &mv);
}

int tigris_i8_gather(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tigris_i8_move_t mv;
    (void)op_index;
    (void)user_ctx;
    return gather(plan, op, mem, &mv);
}

int tigris_i8_tile(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tigris_i8_move_t mv;
    (void)op_index;
    (void)user_ctx;
    return tile(plan, op, mem, &mv);
}
