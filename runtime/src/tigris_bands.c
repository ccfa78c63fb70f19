/* tigris_bands.c - per-tile row (2-D tiles: and column) ranges, as the compiler's
 * transforms/plan/bands.py and geometry.py. */
#include "tigris_bands.h"

static int32_t clamp64(int64_t v) {
    if (v > INT32_MAX) return INT32_MAX;
    if (v < INT32_MIN) return INT32_MIN;
    return (int32_t)v;
}

/* Python's floor division for a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int is_constant(const tigris_tensor_t *t) {
    return t->weight != TIGRIS_NONE16 || (t->flags & TIGRIS_TENSOR_CONSTANT) != 0;
}

/* The op's int32 params, or NULL if the reference is outside the shape pool. */
static const int32_t *op_params(const tigris_plan_t *plan, const tigris_op_t *op) {
    if (plan->shape_pool_len != 0 && (op->params > plan->shape_pool_len || op->num_params > plan->shape_pool_len - op->params))
        return NULL;
    return tigris_op_params(plan, op);
}

/* [s, e) cut to [0, size), never empty (an edge band reads at least one index): geometry._clamp. */
static void clamp_range(int64_t s, int64_t e, int32_t size, int32_t *lo, int32_t *hi) {
    if (s < 0) s = 0;
    if (e > size) e = size;
    if (s > size - 1) s = size - 1;
    if (e < s + 1) e = s + 1;
    *lo = clamp64(s);
    *hi = clamp64(e);
}

/* The inputs outputs [*s, *e) of a window read along one axis: [s*stride - pad,
 * (e-1)*stride - pad + (k-1)*dilation + 1) (a kernel of 0 counts as 1). */
static void window_range(int64_t *s, int64_t *e, uint16_t kernel, uint16_t stride, uint16_t dilation, uint16_t pad) {
    int64_t eff = ((int64_t)(kernel > 0 ? kernel : 1) - 1) * (int64_t)dilation + 1;
    *e = (*e - 1) * (int64_t)stride - (int64_t)pad + eff;
    *s = *s * (int64_t)stride - (int64_t)pad;
}

static int is_window_op(uint8_t op_type) {
    return op_type == TIGRIS_OP_CONV || op_type == TIGRIS_OP_DEPTHWISE || op_type == TIGRIS_OP_CONV1D ||
           op_type == TIGRIS_OP_MAX_POOL || op_type == TIGRIS_OP_AVG_POOL;
}

void tigris_band_input_range(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                             int32_t end, int32_t *lo, int32_t *hi) {
    const tigris_tensor_t *t = &plan->tensors[in];
    int32_t height = tigris_tensor_rows(plan, t);
    int64_t s = start, e = end;
    const int32_t *params;
    if (height <= 1 || t->ndim < 3) {
        *lo = 0;
        *hi = height < 1 ? 1 : height;
        return;
    }
    switch (op->op_type) {
    case TIGRIS_OP_CONV: case TIGRIS_OP_DEPTHWISE: case TIGRIS_OP_CONV1D:
    case TIGRIS_OP_MAX_POOL: case TIGRIS_OP_AVG_POOL:
        window_range(&s, &e, op->kernel_h, op->stride_h, op->dilation_h, op->pad_top);
        break;
    case TIGRIS_OP_GLOBAL_AVG: case TIGRIS_OP_GLOBAL_MAX:
        /* a window covering the whole input: kernel H, stride 1, no padding */
        e = e - 1 + height;
        break;
    case TIGRIS_OP_PAD:
        /* output row r is input row r - pad_top (runtime axis 1 is H) */
        params = op_params(plan, op);
        if (params != NULL && op->num_params == 2u * t->ndim) {
            int64_t top = params[1];
            int64_t l = s - top < 0 ? 0 : s - top, h = e - top > height ? height : e - top;
            if (h <= l) {
                l = l < height - 1 ? l : height - 1;
                h = l + 1;
            }
            *lo = clamp64(l);
            *hi = clamp64(h);
            return;
        }
        break;
    case TIGRIS_OP_RESIZE:
        /* integer upsampling by k along H (runtime axis 1): nearest [s/k, ceil(e/k));
         * linear [floor((s + 0.5)/k - 0.5), (e-1)/k + 2) */
        params = op_params(plan, op);
        {
            int64_t k = (params != NULL && op->num_params >= 3u && params[1] >= 1) ? params[1] : 1;
            int64_t l, h;
            if (op->mode == TIGRIS_RESIZE_LINEAR) {
                l = floor_div(2 * s + 1 - k, 2 * k);
                h = floor_div(e - 1, k) + 2;
            } else {
                l = floor_div(s, k);
                h = -floor_div(-e, k);
            }
            if (h < l + 1) h = l + 1;
            *lo = clamp64(l < 0 ? 0 : l);
            *hi = clamp64(h > height ? height : h);
            return;
        }
    default:
        break; /* pointwise and channel-wise ops: the same rows */
    }
    clamp_range(s, e, height, lo, hi);
}

/* Whether 2-D tiles cut tensor t along W: rank 4 with more than one column (geometry.has_axis). */
static int has_cols(const tigris_plan_t *plan, uint16_t t) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    return tt->ndim == 4 && tigris_tensor_shape(plan, tt)[3] > 1;
}

/* Columns of t: W (model axis 3) of a rank 4+ tensor, else 1 (geometry.extent along W). */
static int32_t width_of(const tigris_plan_t *plan, uint16_t t) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    return tt->ndim >= 4 ? tigris_tensor_shape(plan, tt)[3] : 1;
}

void tigris_band_input_cols(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                            int32_t end, int32_t *lo, int32_t *hi) {
    int64_t s = start, e = end;
    int32_t width = width_of(plan, in);
    if (!has_cols(plan, in)) {
        *lo = *hi = 0;
        return;
    }
    /* every other op of a 2-D tile reads the same columns (tigris_band_op_tileable_2d: no pad,
     * resize or global pool ever runs in one) */
    if (is_window_op(op->op_type)) window_range(&s, &e, op->kernel_w, op->stride_w, op->dilation_w, op->pad_left);
    clamp_range(s, e, width, lo, hi);
}

int tigris_band_op_tileable(const tigris_plan_t *plan, const tigris_op_t *op) {
    switch (op->op_type) {
    case TIGRIS_OP_FLATTEN: case TIGRIS_OP_RESHAPE: case TIGRIS_OP_SQUEEZE: case TIGRIS_OP_UNSQUEEZE:
    case TIGRIS_OP_TRANSPOSE: case TIGRIS_OP_FULLY_CONN: case TIGRIS_OP_MATMUL: case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_REDUCE_MEAN: case TIGRIS_OP_INST_NORM: case TIGRIS_OP_CONV_TRANSPOSE:
    case TIGRIS_OP_REDUCE_SUM: case TIGRIS_OP_REDUCE_MAX: case TIGRIS_OP_REDUCE_MIN: case TIGRIS_OP_LOG_SOFTMAX:
    case TIGRIS_OP_LAYER_NORM: case TIGRIS_OP_TILE:
        return 0;
    case TIGRIS_OP_SLICE: case TIGRIS_OP_GATHER: {
        /* a channel pick (the compiler's ChannelPickTileCategory): a gather of constant indices
         * along model axis 1 that keeps the rank, a slice with start 0, step 1 and the full
         * extent on every axis but the channel axis (the last in runtime order) */
        const tigris_tensor_t *x = &plan->tensors[tigris_op_inputs(plan, op)[0]];
        const tigris_tensor_t *y = &plan->tensors[tigris_op_outputs(plan, op)[0]];
        const int32_t *p = op_params(plan, op), *xs = tigris_tensor_shape(plan, x), *ys = tigris_tensor_shape(plan, y);
        int32_t r = y->ndim, a;
        if (x->ndim != r || r < 2) return 0;
        if (op->op_type == TIGRIS_OP_GATHER) return op->num_inputs == 1 && op->axis == 1;
        if (p == NULL || op->num_params != 2u * (uint32_t)r) return 0;
        for (a = 0; a < r - 1; ++a) { /* runtime axis a is model axis a + 1 but for N */
            int32_t m = a == 0 ? 0 : a + 1;
            if (p[a] != 0 || p[r + a] != 1 || xs[m] != ys[m]) return 0;
        }
        return 1;
    }
    case TIGRIS_OP_CONCAT: {
        int32_t rank = plan->tensors[tigris_op_outputs(plan, op)[0]].ndim;
        int32_t axis = op->axis < 0 ? op->axis + rank : op->axis;
        return !(rank >= 3 && axis == 1);
    }
    default:
        return 1;
    }
}

tigris_band_t *tigris_band_find(tigris_mem_t *mem, uint16_t tensor) {
    uint16_t i;
    for (i = 0; i < mem->tile.num_bands && i < TIGRIS_MAX_BANDS; i++) {
        if (mem->tile.bands[i].tensor == tensor) return &mem->tile.bands[i];
    }
    return NULL;
}

/* A rectangle of a tensor: rows [h0, h1) and columns [w0, w1) (w1 0: whole rows). */
typedef struct {
    int32_t h0, h1, w0, w1;
} rect_t;

/* Widen the tensor's band to include r (a new band if it has none). Whole rows absorb a
 * window (a tensor gets columns from every reader or from none: has_cols). */
static int widen(tigris_mem_t *mem, uint16_t tensor, const rect_t *r) {
    tigris_band_t *b = tigris_band_find(mem, tensor);
    if (b == NULL) {
        if (mem->tile.num_bands >= TIGRIS_MAX_BANDS) return -1;
        b = &mem->tile.bands[mem->tile.num_bands++];
        b->tensor = tensor;
        b->reserved = 0u;
        b->h_start = r->h0;
        b->h_end = r->h1;
        b->slow_ptr = NULL;
        b->w_start = r->w1 != 0 ? r->w0 : 0;
        b->w_end = r->w1;
        return 0;
    }
    if (r->h0 < b->h_start) b->h_start = r->h0;
    if (r->h1 > b->h_end) b->h_end = r->h1;
    if (b->w_end == 0 || r->w1 == 0) {
        b->w_start = b->w_end = 0;
    } else {
        if (r->w0 < b->w_start) b->w_start = r->w0;
        if (r->w1 > b->w_end) b->w_end = r->w1;
    }
    return 0;
}

/* The columns a band covers: its window, or every column of a whole-row band. */
static void band_cols(const tigris_plan_t *plan, const tigris_band_t *b, int32_t *w0, int32_t *w1) {
    *w0 = b->w_end != 0 ? b->w_start : 0;
    *w1 = b->w_end != 0 ? b->w_end : width_of(plan, b->tensor);
}

/* One op, backwards: the union of its outputs' bands widens each input's band (in a 2-D
 * tile, `cols`, along both axes). */
static int propagate(const tigris_plan_t *plan, tigris_mem_t *mem, const tigris_op_t *op, int cols) {
    const uint16_t *outs = tigris_op_outputs(plan, op), *ins = tigris_op_inputs(plan, op);
    rect_t out = {0, 0, 0, 0}, in;
    int have = 0;
    uint8_t j;
    for (j = 0; j < op->num_outputs; j++) {
        const tigris_band_t *b = tigris_band_find(mem, outs[j]);
        int32_t w0, w1;
        if (b == NULL) continue;
        band_cols(plan, b, &w0, &w1);
        if (!have || b->h_start < out.h0) out.h0 = b->h_start;
        if (!have || b->h_end > out.h1) out.h1 = b->h_end;
        if (!have || w0 < out.w0) out.w0 = w0;
        if (!have || w1 > out.w1) out.w1 = w1;
        have = 1;
    }
    if (!have) return 0; /* nothing of this tile reads the op's results */
    for (j = 0; j < op->num_inputs; j++) {
        if (is_constant(&plan->tensors[ins[j]])) continue;
        tigris_band_input_range(plan, op, ins[j], out.h0, out.h1, &in.h0, &in.h1);
        in.w0 = in.w1 = 0;
        if (cols) tigris_band_input_cols(plan, op, ins[j], out.w0, out.w1, &in.w0, &in.w1);
        if (widen(mem, ins[j], &in) != 0) return -1;
    }
    return 0;
}

/* The ops of stages first..last backwards, each widening its inputs' bands; op `skip`
 * (TIGRIS_NONE16: none) is left out. */
static int propagate_stages(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                            uint16_t skip, int cols) {
    uint16_t i, k;
    for (k = (uint16_t)(last + 1u); k-- > first;) {
        const tigris_stage_t *st = &plan->stages[k];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (i = st->num_ops; i-- > 0;) {
            if (ops[i] != skip && propagate(plan, mem, &plan->ops[ops[i]], cols) != 0) return -1;
        }
    }
    return 0;
}

int tigris_bands_compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                         int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end) {
    const tigris_stage_t *stage = &plan->stages[last];
    const uint16_t *outs = tigris_stage_outputs(plan, stage);
    const int cols = w_end != 0;
    uint16_t i;
    mem->tile.num_bands = 0;
    for (i = 0; i < stage->num_outputs; i++) {
        /* an output without a W axis is whole along W, as geometry.input_range clamps it */
        int has = cols && has_cols(plan, outs[i]);
        rect_t r = {h_start, h_end, has ? w_start : 0, has ? w_end : 0};
        if (widen(mem, outs[i], &r) != 0) return -1;
    }
    return propagate_stages(plan, mem, first, last, TIGRIS_NONE16, cols);
}

int tigris_bands_compute_reduce(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t stage, uint16_t reduce_op,
                                int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end) {
    const tigris_op_t *op = &plan->ops[reduce_op];
    const uint16_t *outs = tigris_op_outputs(plan, op);
    rect_t in = {h_start, h_end, w_end != 0 ? w_start : 0, w_end};
    uint8_t j;
    mem->tile.num_bands = 0;
    for (j = 0; j < op->num_outputs; j++) {
        int32_t rows = tigris_tensor_rows(plan, &plan->tensors[outs[j]]);
        rect_t whole = {0, rows < 1 ? 1 : rows, 0, 0};
        if (widen(mem, outs[j], &whole) != 0) return -1;
    }
    if (widen(mem, tigris_op_inputs(plan, op)[0], &in) != 0) return -1;
    return propagate_stages(plan, mem, stage, stage, reduce_op, w_end != 0);
}
