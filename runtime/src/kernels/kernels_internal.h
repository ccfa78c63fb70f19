/* kernels_internal.h - what the float and int8 reference kernels share (not public API).
 *
 * Two ways to look at a tensor:
 *   - tigris_view_t (tigris_kernels.h): the channels-last [n, h, w, c] picture the window
 *     kernels (conv, pools) use, with rows [h_start, h_end) resident;
 *   - tk_nd_t (here): any rank, one element stride per axis, so a kernel can walk a tensor
 *     in model (ONNX) order or in runtime (stored) order whatever its storage: activations
 *     and CHANNELS_LAST constants of rank >= 3 are stored [N, d1..dk, C], everything else
 *     (rank <= 2, PLAIN and the weight layouts) row-major in its recorded shape. An
 *     activation's axis 2 (model order) is held as a band of rows [h_start, h_end), and in a
 *     2-D tile a rank-4 activation's axis 3 (W) as a window of columns [w_start, w_end):
 *     stored [N][rows][cols][C]. tigris_k_nd_of refuses a partial column window
 *     (TIGRIS_KERNEL_ERR_BAND), so a kernel that walks whole rows never misreads one; the
 *     element-wise kernels, which compute exactly the resident pixels of their output, take
 *     tigris_k_nd_of_window.
 *
 * tk_iter_t walks the index space of an output (outer axes by an odometer, the last axis
 * left to the caller's inner loop) keeping one element offset per operand; the setup
 * helpers derive each operand's strides (ONNX broadcasting included) and check that
 * every row (and column) the walk will touch is resident (TIGRIS_KERNEL_ERR_BAND otherwise).
 *
 * Names: tigris_k_* have external linkage (defined in kernel_view.c), tk_* are inline.
 */
#ifndef TIGRIS_KERNELS_INTERNAL_H
#define TIGRIS_KERNELS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_kernels.h"
#include "tigris_mem.h"

#define TK_MAX_RANK TIGRIS_MAX_RANK
#define TK_MAX_OPERANDS 3 /* operands one tk_iter_t walks together (out, a, b) */
#define TK_NO_LAYOUT 0xFFu /* tigris_k_layout of a non-constant tensor */

/* The element-wise math ops (HARD_SWISH, NEG..SILU): one value in, one out, so the float kernel
 * is tigris_f32_unary and the int8 one a 256-entry table; one list for both dispatchers. */
#define TK_CASES_UNARY_MATH                                                                               \
    case TIGRIS_OP_HARD_SWISH:                                                                            \
    case TIGRIS_OP_NEG:                                                                                   \
    case TIGRIS_OP_ABS:                                                                                   \
    case TIGRIS_OP_EXP:                                                                                   \
    case TIGRIS_OP_LOG:                                                                                   \
    case TIGRIS_OP_SQRT:                                                                                  \
    case TIGRIS_OP_RECIPROCAL:                                                                            \
    case TIGRIS_OP_ELU:                                                                                   \
    case TIGRIS_OP_SELU:                                                                                  \
    case TIGRIS_OP_SOFTPLUS:                                                                              \
    case TIGRIS_OP_SOFTSIGN:                                                                              \
    case TIGRIS_OP_ERF:                                                                                   \
    case TIGRIS_OP_GELU:                                                                                  \
    case TIGRIS_OP_HARD_SIGMOID:                                                                          \
    case TIGRIS_OP_SIGN:                                                                                  \
    case TIGRIS_OP_SHRINK:                                                                                \
    case TIGRIS_OP_POW:                                                                                   \
    case TIGRIS_OP_SILU

/* A tensor with per-axis strides; see the file comment. */
typedef struct {
    uint8_t *data;
    uint32_t elem;                   /* bytes per element */
    uint8_t dtype;                   /* tigris_dtype_t */
    uint8_t channels_last;           /* stored [N, d1..dk, C] (rank >= 3 activation or CHANNELS_LAST) */
    uint16_t tensor;                 /* tensor index */
    int32_t rank;
    int32_t dims[TK_MAX_RANK];       /* full extent of each axis */
    int32_t strides[TK_MAX_RANK];    /* elements, in the resident data */
    int32_t row_axis;                /* the banded axis (model order: 2), or -1 */
    int32_t h_start, h_end;          /* resident rows of row_axis */
    int32_t col_axis;                /* the windowed axis (model order: 3, rank-4 activations), or -1 */
    int32_t w_start, w_end;          /* resident columns of col_axis (all of them but in a 2-D tile) */
} tk_nd_t;

/* A walk over the index space [lo, hi) of `rank` axes, outer first. */
typedef struct {
    int32_t rank;
    int32_t num_operands;
    int32_t lo[TK_MAX_RANK];
    int32_t hi[TK_MAX_RANK];
    int32_t idx[TK_MAX_RANK];
    ptrdiff_t stride[TK_MAX_OPERANDS][TK_MAX_RANK];
    ptrdiff_t origin[TK_MAX_OPERANDS]; /* offset of index (0, ..., 0); may lie outside the data */
    ptrdiff_t off[TK_MAX_OPERANDS];    /* offset of idx */
} tk_iter_t;

/* The weight layout of a constant tensor (tigris_weight_layout_t), TK_NO_LAYOUT otherwise. */
uint8_t tigris_k_layout(const tigris_plan_t *plan, uint16_t tensor_idx);

/* tk_nd_t of a tensor in model order (recorded shape); data as tigris_view_of finds it, so a
 * partial column window (a 2-D tile) is TIGRIS_KERNEL_ERR_BAND. */
int tigris_k_nd_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tk_nd_t *out);

/* tigris_k_nd_of for the kernels that compute 2-D tiles: a rank-4 activation's window of
 * columns is accepted (col_axis 3, [w_start, w_end)); a window of any other tensor is
 * TIGRIS_KERNEL_ERR_BAND. */
int tigris_k_nd_of_window(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tk_nd_t *out);

/* Reorder the axes of a model-order tk_nd_t to the runtime (channels-last) order of the
 * op parameters (`axis`, pads, scales, perm, reduce axes): [0, 2, ..., r-1, 1] for rank >= 3. */
void tigris_k_nd_to_runtime(tk_nd_t *nd);

/* Model axis of runtime axis `axis` for a tensor of rank `rank` (inverse of the emitter's
 * _runtime_axis); -1 if out of range. Negative axes count from the end. */
int32_t tigris_k_model_axis(int32_t axis, int32_t rank);

/* Operand 0 of `it` is `out`, walked along its axes in the order `order` (order[j] = the
 * axis of `out` walked j-th, outer first; NULL: 0..rank-1): the row axis over the resident
 * rows only, the column axis over the resident columns only, every other axis in full. Resets
 * the walk to that operand alone. */
void tigris_k_iter_output(tk_iter_t *it, const tk_nd_t *out, const int32_t *order);

/* Add operand `in` to a walk set up by tigris_k_iter_output for `out`, broadcasting it to
 * out's shape (ONNX rules: right-aligned, size-1 axes repeat). TIGRIS_KERNEL_ERR_SHAPE if
 * the shapes do not broadcast, TIGRIS_KERNEL_ERR_BAND if a row or column the walk reads is
 * not resident. `order` as given to tigris_k_iter_output. */
int tigris_k_iter_broadcast(tk_iter_t *it, const tk_nd_t *out, const int32_t *order, const tk_nd_t *in);

/* Add an operand with explicit strides per walked axis (and its origin offset). */
void tigris_k_iter_add(tk_iter_t *it, const ptrdiff_t *strides, ptrdiff_t origin);

/* TIGRIS_KERNEL_ERR_BAND unless indices [lo, hi) of `axis` of t are resident (rows of the
 * row axis, columns of the column axis; every index of any other axis is). */
int tigris_k_check_rows(const tk_nd_t *t, int32_t axis, int32_t lo, int32_t hi);

/* TIGRIS_KERNEL_ERR_BAND unless every row and column of t is resident (ops that need whole
 * tensors). */
int tigris_k_require_full(const tk_nd_t *t);

/* Walk order that visits `t` in its storage order (channels-last: [0, 2, ..., r-1, 1]). */
void tigris_k_storage_order(const tk_nd_t *t, int32_t *order);

/* -- 2-D tiles for the channel-wise kernels (concat, batch_norm, lrn) ------------------------ */

/* Whether t holds only some of its columns (a 2-D tile's window), not whole rows. */
static inline int tk_col_window(const tk_nd_t *t) {
    return t->col_axis >= 0 && (t->w_start != 0 || t->w_end != t->dims[t->col_axis]);
}

/* Whether runtime axis `axis` of a rank-`rank` tensor is spatial (H, W, ...: neither N nor C).
 * A concat along one moves each input's pixels to other rows or columns, so a window of the
 * result is not a window of each input at the same place: such a concat runs on whole rows. */
static inline int tk_spatial_axis(int32_t axis, int32_t rank) {
    return rank >= 3 && axis >= 1 && axis <= rank - 2;
}

/* Whether view x holds every pixel view y holds (rows and columns), so a kernel that computes
 * each resident pixel of y from the same pixel of x reads only resident data. A y without rows
 * needs nothing. In a 2-D tile an input may hold more than its reader's window (its other
 * readers may need a halo), never less. */
static inline int tk_view_covers(const tigris_view_t *x, const tigris_view_t *y) {
    if (y->h_start >= y->h_end) return 1;
    return x->h_start <= y->h_start && y->h_end <= x->h_end && x->w_start <= y->w_start && y->w_end <= x->w_end;
}

/* The part of a concat result y (runtime order) that one input fills: axis `axis` of y cut to
 * [offset, offset + count) and numbered from 0 there, holding those of y's resident rows and
 * columns that fall inside it (data: its first resident element). A walk of `part` by
 * tigris_k_iter_output visits exactly what the input writes; tigris_k_iter_broadcast of the
 * input then checks that the input holds all of it. 0 if nothing of the part is resident.
 * The caller has checked offset + count <= y->dims[axis]. */
static inline int tk_concat_part(const tk_nd_t *y, int32_t axis, int32_t offset, int32_t count, tk_nd_t *part) {
    const int banded = axis == y->row_axis, windowed = axis == y->col_axis;
    const int32_t lo = banded ? y->h_start : windowed ? y->w_start : 0;
    const int32_t hi = banded ? y->h_end : windowed ? y->w_end : y->dims[axis];
    const int32_t first = lo > offset ? lo : offset;
    const int32_t last = hi < offset + count ? hi : offset + count;
    *part = *y;
    part->dims[axis] = count;
    if (first >= last) return 0;
    part->data = y->data + (ptrdiff_t)(first - lo) * y->strides[axis] * (ptrdiff_t)y->elem;
    if (banded) {
        part->h_start = first - offset;
        part->h_end = last - offset;
    } else if (windowed) {
        part->w_start = first - offset;
        part->w_end = last - offset;
    }
    return 1;
}

/* -- reduction tiles (docs/tgrs-format.md, "Reduction tiles") -------------------------------- *
 *
 * An accumulating op (tigris_band_op_accumulates) whose stage runs in reduction tiles is
 * called once per tile with a band of input rows [x.h_start, x.h_end): it starts its state in
 * mem->tile.acc at row 0, adds the band's rows, and writes its (whole) output when the band
 * ends at the last row. The untiled kernel runs the same per-channel steps over all rows at
 * once, so both give the same bits. */

/* Whether op `op_index` accumulates over the reduction tiles of the stage running now. */
static inline int tk_reduces(const tigris_mem_t *mem, uint16_t op_index) {
    return mem->tile.active && mem->tile.reduce_op == op_index;
}

/* The input channels [*c0, *c1) a reducing op accumulates in this tile: the channel block
 * (docs/tgrs-format.md, "Reduction tiles"), else all `channels`. TIGRIS_KERNEL_ERR_PARAMS if
 * the block is not inside [0, channels). */
static inline int tk_reduce_channels(const tigris_mem_t *mem, int32_t channels, int32_t *c0, int32_t *c1) {
    *c0 = 0;
    *c1 = channels;
    if (mem->tile.c_end == 0) return TIGRIS_KERNEL_OK;
    if (mem->tile.c_start < 0 || mem->tile.c_start >= mem->tile.c_end || mem->tile.c_end > channels)
        return TIGRIS_KERNEL_ERR_PARAMS;
    *c0 = mem->tile.c_start;
    *c1 = mem->tile.c_end;
    return TIGRIS_KERNEL_OK;
}

/* The output features [*c0, *c1) dense op `op_index` (tigris_band_op_feature_blocks) computes
 * now: in a stage run in blocks of its output features (docs/tgrs-format.md, "Output-feature
 * blocks" and "Reduction blocks": channel blocks without reduce_op, or with this op as reduce_op)
 * the block, written as rows of c1 - c0 values (its output holds only them); else all `features`.
 * TIGRIS_KERNEL_ERR_PARAMS if the block is not inside [0, features). Each feature is computed as
 * the untiled op computes it, so the blocks give the same bits. */
static inline int tk_feature_block(const tigris_mem_t *mem, uint16_t op_index, int32_t features, int32_t *c0,
                                   int32_t *c1) {
    *c0 = 0;
    *c1 = features;
    if (!mem->tile.active || mem->tile.c_end == 0) return TIGRIS_KERNEL_OK;
    if (mem->tile.reduce_op != TIGRIS_NONE16 && mem->tile.reduce_op != op_index) return TIGRIS_KERNEL_OK;
    if (mem->tile.c_start < 0 || mem->tile.c_start >= mem->tile.c_end || mem->tile.c_end > features)
        return TIGRIS_KERNEL_ERR_PARAMS;
    *c0 = mem->tile.c_start;
    *c1 = mem->tile.c_end;
    return TIGRIS_KERNEL_OK;
}

/* A dense op in reduction blocks (docs/tgrs-format.md, "Reduction blocks"): the K features
 * [*k0, *k1) of input x (of `depth`) resident now, as rows of k1 - k0 values (the input's band),
 * and *sums the partial sums of the block's `outputs` (batch rows x features) values, 4 bytes each,
 * kept in the accumulator across the blocks; outside them [0, depth) and NULL. TIGRIS_KERNEL_ERR_BAND
 * if the band is not inside the input, TIGRIS_KERNEL_ERR_PARAMS if the accumulator is missing,
 * smaller or not 4-aligned. */
static inline int tk_dense_blocks(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t op_index, uint16_t x,
                                  int32_t depth, uint64_t outputs, int32_t *k0, int32_t *k1, void **sums) {
    *k0 = 0;
    *k1 = depth;
    *sums = NULL;
    if (!tk_reduces(mem, op_index)) return TIGRIS_KERNEL_OK;
    tigris_mem_rows(mem, plan, x, k0, k1);
    if (*k0 < 0 || *k0 >= *k1 || *k1 > depth) return TIGRIS_KERNEL_ERR_BAND;
    if (mem->tile.acc == NULL || (uintptr_t)mem->tile.acc % sizeof(int32_t) != 0 || outputs * 4u > mem->tile.acc_bytes)
        return TIGRIS_KERNEL_ERR_PARAMS;
    *sums = mem->tile.acc;
    return TIGRIS_KERNEL_OK;
}

/* *acc = the accumulator of a reducing op whose state takes `need` bytes (TIGRIS_KERNEL_ERR_PARAMS
 * if it is missing, smaller or not 4-aligned), after checking the tile: a non-empty band of
 * input x and the output y resident whole (else TIGRIS_KERNEL_ERR_BAND). */
int tigris_k_accumulator(const tigris_mem_t *mem, uint64_t need, const tigris_view_t *x, const tigris_view_t *y,
                         void **acc);

/* Start a walk (idx = lo, offsets computed); 0 if the walk is empty. */
static inline int tk_iter_start(tk_iter_t *it) {
    int32_t a, k;
    for (a = 0; a < it->rank; ++a) {
        if (it->lo[a] >= it->hi[a]) return 0;
        it->idx[a] = it->lo[a];
    }
    for (k = 0; k < it->num_operands; ++k) {
        ptrdiff_t off = it->origin[k];
        for (a = 0; a < it->rank; ++a) off += (ptrdiff_t)it->lo[a] * it->stride[k][a];
        it->off[k] = off;
    }
    return 1;
}

/* Advance the outer axes (all but the last) by one position; 0 when the walk is done. */
static inline int tk_iter_next(tk_iter_t *it) {
    int32_t a, k;
    for (a = it->rank - 2; a >= 0; --a) {
        if (++it->idx[a] < it->hi[a]) {
            for (k = 0; k < it->num_operands; ++k) it->off[k] += it->stride[k][a];
            return 1;
        }
        for (k = 0; k < it->num_operands; ++k)
            it->off[k] -= (ptrdiff_t)(it->hi[a] - 1 - it->lo[a]) * it->stride[k][a];
        it->idx[a] = it->lo[a];
    }
    return 0;
}

/* Elements of the innermost axis of one walk position. */
static inline int32_t tk_iter_inner(const tk_iter_t *it) {
    return it->hi[it->rank - 1] - it->lo[it->rank - 1];
}

/* Merge the innermost axis with the one outside it while, for every operand, a step of the
 * outer axis is a whole run of the inner one (stride[outer] = stride[inner] x its extent): the
 * merged walk visits the same offsets in the same order, in longer inner runs (a contiguous
 * channels-last band or window becomes one run; a per-channel operand broadcast over pixels
 * stops the merge at the channels). Call it before tk_iter_start. */
static inline void tk_iter_coalesce(tk_iter_t *it) {
    while (it->rank > 1) {
        const int32_t in = it->rank - 1, out = in - 1;
        const int64_t n_in = (int64_t)it->hi[in] - it->lo[in], n_out = (int64_t)it->hi[out] - it->lo[out];
        int32_t k;
        if (n_in <= 0 || n_out <= 0 || n_in * n_out > INT32_MAX) return;
        for (k = 0; k < it->num_operands; ++k)
            if (it->stride[k][out] != it->stride[k][in] * (ptrdiff_t)n_in) return;
        for (k = 0; k < it->num_operands; ++k) {
            it->origin[k] += (ptrdiff_t)it->lo[out] * it->stride[k][out] + (ptrdiff_t)it->lo[in] * it->stride[k][in];
            it->stride[k][out] = it->stride[k][in];
        }
        it->lo[out] = 0;
        it->hi[out] = (int32_t)(n_in * n_out);
        it->rank = in;
    }
}

/* Operand i of op (tensor index), TIGRIS_NONE16 if absent or out of range. */
static inline uint16_t tk_input(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t i) {
    uint16_t t;
    if (i >= op->num_inputs || (size_t)op->inputs + i >= plan->index_pool_len) return TIGRIS_NONE16;
    t = tigris_op_inputs(plan, op)[i];
    return t < plan->header->num_tensors ? t : TIGRIS_NONE16;
}

static inline uint16_t tk_output(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t i) {
    uint16_t t;
    if (i >= op->num_outputs || (size_t)op->outputs + i >= plan->index_pool_len) return TIGRIS_NONE16;
    t = tigris_op_outputs(plan, op)[i];
    return t < plan->header->num_tensors ? t : TIGRIS_NONE16;
}

/* op->num_params int32 parameters, NULL if the list lies outside the shape pool. */
static inline const int32_t *tk_params(const tigris_plan_t *plan, const tigris_op_t *op) {
    if ((size_t)op->params + op->num_params > plan->shape_pool_len) return NULL;
    return tigris_op_params(plan, op);
}

/* Product of n dims (0 if any is negative). */
static inline size_t tk_count(const int32_t *dims, int32_t n) {
    size_t total = 1;
    int32_t i;
    for (i = 0; i < n; ++i) {
        if (dims[i] < 0) return 0;
        total *= (size_t)dims[i];
    }
    return total;
}

/* -- the reshape family: element i in model order to element i in model order ------------ */

/* Whether op (RESHAPE, FLATTEN, SQUEEZE, UNSQUEEZE) copies its input's stored bytes as they are
 * (TIGRIS_OPF_STORED_ORDER) instead of element by element in model order. */
static inline int tk_reshape_copies_bytes(const tigris_plan_t *plan, const tigris_op_t *op) {
    (void)plan;
    return (op->flags & TIGRIS_OPF_STORED_ORDER) != 0;
}

/* Whether t's elements lie in model (row-major, recorded) order, one after the other: true for
 * rank <= 2 and the weight layouts, and for a channels-last tensor whose C or spatial extent is 1.
 * Size-1 axes take any stride. */
static inline int tk_row_major(const tk_nd_t *t) {
    ptrdiff_t expected = 1;
    int32_t a;
    for (a = t->rank - 1; a >= 0; --a) {
        if (t->dims[a] != 1 && t->strides[a] != expected) return 0;
        expected *= t->dims[a];
    }
    return 1;
}

/* A walk over two tensors of equal element count, both in model order, in runs along the last
 * model axis of each: the run's `count` elements start at element offsets off[0] (dst) and
 * off[1] (src) and step by stride[0] and stride[1]. Both tensors must be resident whole. */
typedef struct {
    const tk_nd_t *t[2];
    int32_t idx[2][TK_MAX_RANK];
    ptrdiff_t off[2];
    ptrdiff_t stride[2];
    size_t left;   /* elements from the run's start to the end */
    int32_t count; /* elements in the run */
} tk_flat_t;

/* Offsets and length of the run starting at f->idx. */
static inline void tk_flat_run(tk_flat_t *f) {
    int32_t k, a;
    size_t count = f->left;
    for (k = 0; k < 2; ++k) {
        const tk_nd_t *t = f->t[k];
        const int32_t last = t->rank - 1;
        ptrdiff_t off = 0;
        for (a = 0; a < t->rank; ++a) off += (ptrdiff_t)f->idx[k][a] * t->strides[a];
        f->off[k] = off;
        f->stride[k] = last >= 0 ? t->strides[last] : 1;
        if (last >= 0 && (size_t)(t->dims[last] - f->idx[k][last]) < count)
            count = (size_t)(t->dims[last] - f->idx[k][last]);
    }
    f->count = (int32_t)count;
}

/* Start the walk; 0 if there is nothing to copy. */
static inline int tk_flat_start(tk_flat_t *f, const tk_nd_t *dst, const tk_nd_t *src) {
    int32_t a;
    f->t[0] = dst;
    f->t[1] = src;
    for (a = 0; a < TK_MAX_RANK; ++a) f->idx[0][a] = f->idx[1][a] = 0;
    f->left = tk_count(dst->dims, dst->rank);
    if (f->left == 0) return 0;
    tk_flat_run(f);
    return 1;
}

/* Step past the current run; 0 when the walk is done. */
static inline int tk_flat_next(tk_flat_t *f) {
    int32_t k, a;
    f->left -= (size_t)f->count;
    if (f->left == 0) return 0;
    for (k = 0; k < 2; ++k) {
        const tk_nd_t *t = f->t[k];
        a = t->rank - 1;
        if (a < 0) continue;
        f->idx[k][a] += f->count;
        for (; a > 0 && f->idx[k][a] >= t->dims[a]; --a) {
            f->idx[k][a] = 0;
            ++f->idx[k][a - 1];
        }
    }
    tk_flat_run(f);
    return 1;
}

/* -- window geometry along one axis (conv family, pools) ----------------------------------- *
 *
 * The op fields are uint16_t and an extent may be near 2^31, so `in + pads`, `d * (k - 1)` and
 * `o * s - pb + k * d` can leave int32. tk_axis_init refuses an axis whose padded extent or
 * window span reaches TK_GEOMETRY_LIMIT (TIGRIS_KERNEL_ERR_RANGE); below it every index the
 * window kernels form fits int32. tk_axis_taps gives the taps of one window that fall inside a
 * range, so a kernel visits only in-image taps (its work is bounded by the data, whatever k). */

#define TK_GEOMETRY_LIMIT (1 << 30)

typedef struct {
    int32_t in;     /* input extent along the axis */
    int32_t k;      /* taps */
    int32_t s, d;   /* stride, dilation */
    int32_t pb, pe; /* padding before and after */
} tk_axis_t;

static inline int tk_axis_init(tk_axis_t *ax, int32_t in, int32_t k, int32_t s, int32_t d, int32_t pb, int32_t pe) {
    ax->in = in;
    ax->k = k;
    ax->s = s;
    ax->d = d;
    ax->pb = pb;
    ax->pe = pe;
    if (k < 1 || s < 1 || d < 1 || pb < 0 || pe < 0) return TIGRIS_KERNEL_ERR_PARAMS;
    if (in < 0 || (int64_t)in + pb + pe >= TK_GEOMETRY_LIMIT || (int64_t)d * (k - 1) + 1 >= TK_GEOMETRY_LIMIT)
        return TIGRIS_KERNEL_ERR_RANGE;
    return TIGRIS_KERNEL_OK;
}

/* d (k - 1) + 1: the input positions one window spans. */
static inline int32_t tk_axis_span(const tk_axis_t *ax) {
    return ax->d * (ax->k - 1) + 1;
}

/* Convolution output length (in + pads - span) / s + 1, or -1 if no window fits. */
static inline int32_t tk_axis_conv_length(const tk_axis_t *ax) {
    const int32_t room = ax->in + ax->pb + ax->pe - tk_axis_span(ax);
    return room < 0 ? -1 : room / ax->s + 1;
}

/* Pooled length; in ceil mode a last window starting in the end padding is dropped. */
static inline int32_t tk_axis_pool_length(const tk_axis_t *ax, int ceil_mode) {
    const int32_t room = ax->in + ax->pb + ax->pe - tk_axis_span(ax);
    int32_t out;
    if (room < 0) return -1;
    out = (ceil_mode ? (room + ax->s - 1) / ax->s : room / ax->s) + 1;
    if (ceil_mode && (out - 1) * ax->s >= ax->in + ax->pb) --out;
    return out;
}

/* The taps [*first, *end) of the window whose tap 0 is at position `start` (tap i at
 * start + i d) that fall in [lo, hi); empty (*first == *end) if none does. */
static inline void tk_axis_taps(const tk_axis_t *ax, int32_t start, int32_t lo, int32_t hi, int32_t *first,
                                int32_t *end) {
    const int64_t d = ax->d;
    int64_t f = start >= lo ? 0 : ((int64_t)lo - start + d - 1) / d;
    int64_t e = hi <= start ? 0 : ((int64_t)hi - start + d - 1) / d;
    if (e > ax->k) e = ax->k;
    if (f > e) f = e;
    *first = (int32_t)f;
    *end = (int32_t)e;
}

/* -- gathers on windows (pad, resize) ------------------------------------------------------- */

/* The resident indices [lo, hi) of axis a of t: its band of rows, its window of columns, or
 * the whole axis. A gather walks exactly these of its output. */
static inline int32_t tk_resident_lo(const tk_nd_t *t, int32_t a) {
    return a == t->row_axis ? t->h_start : a == t->col_axis ? t->w_start : 0;
}
static inline int32_t tk_resident_hi(const tk_nd_t *t, int32_t a) {
    return a == t->row_axis ? t->h_end : a == t->col_axis ? t->w_end : t->dims[a];
}

/* Offset (elements) of index i of axis a in t's resident data, or -1 if i is not resident:
 * a gather reads input indices computed from the output's, so each is checked before use. */
static inline ptrdiff_t tk_resident_offset(const tk_nd_t *t, int32_t a, int32_t i) {
    if (i < tk_resident_lo(t, a) || i >= tk_resident_hi(t, a)) return -1;
    return (ptrdiff_t)(i - tk_resident_lo(t, a)) * t->strides[a];
}

#endif /* TIGRIS_KERNELS_INTERNAL_H */
