/* tigris_bands.c - per-tile row ranges, as the compiler's transforms/plan/bands.py. */
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
    case TIGRIS_OP_MAX_POOL: case TIGRIS_OP_AVG_POOL: {
        /* window: [s*stride - pad, (e-1)*stride - pad + (k-1)*dilation + 1) */
        int64_t stride = op->stride_h, pad = op->pad_top;
        int64_t eff = ((int64_t)(op->kernel_h > 0 ? op->kernel_h : 1) - 1) * (int64_t)op->dilation_h + 1;
        s = s * stride - pad;
        e = (e - 1) * stride - pad + eff;
        break;
    }
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
    if (s < 0) s = 0;
    if (e > height) e = height;
    if (s > height - 1) s = height - 1;
    if (e < s + 1) e = s + 1;
    *lo = clamp64(s);
    *hi = clamp64(e);
}

int tigris_band_op_tileable(const tigris_plan_t *plan, const tigris_op_t *op) {
    switch (op->op_type) {
    case TIGRIS_OP_FLATTEN: case TIGRIS_OP_RESHAPE: case TIGRIS_OP_SQUEEZE: case TIGRIS_OP_UNSQUEEZE:
    case TIGRIS_OP_TRANSPOSE: case TIGRIS_OP_FULLY_CONN: case TIGRIS_OP_MATMUL: case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_REDUCE_MEAN: case TIGRIS_OP_INST_NORM: case TIGRIS_OP_CONV_TRANSPOSE:
    case TIGRIS_OP_REDUCE_SUM: case TIGRIS_OP_REDUCE_MAX: case TIGRIS_OP_REDUCE_MIN: case TIGRIS_OP_LOG_SOFTMAX:
    case TIGRIS_OP_LAYER_NORM:
    case TIGRIS_OP_SLICE: case TIGRIS_OP_GATHER: case TIGRIS_OP_TILE:
        return 0;
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

/* Widen the tensor's band to include [lo, hi) (a new band if it has none). */
static int widen(tigris_mem_t *mem, uint16_t tensor, int32_t lo, int32_t hi) {
    tigris_band_t *b = tigris_band_find(mem, tensor);
    if (b == NULL) {
        if (mem->tile.num_bands >= TIGRIS_MAX_BANDS) return -1;
        b = &mem->tile.bands[mem->tile.num_bands++];
        b->tensor = tensor;
        b->reserved = 0u;
        b->h_start = lo;
        b->h_end = hi;
        b->slow_ptr = NULL;
        return 0;
    }
    if (lo < b->h_start) b->h_start = lo;
    if (hi > b->h_end) b->h_end = hi;
    return 0;
}

/* One op, backwards: the union of its outputs' bands widens each input's band. */
static int propagate(const tigris_plan_t *plan, tigris_mem_t *mem, const tigris_op_t *op) {
    const uint16_t *outs = tigris_op_outputs(plan, op), *ins = tigris_op_inputs(plan, op);
    int32_t s = 0, e = 0, lo, hi;
    int have = 0;
    uint8_t j;
    for (j = 0; j < op->num_outputs; j++) {
        const tigris_band_t *b = tigris_band_find(mem, outs[j]);
        if (b == NULL) continue;
        if (!have || b->h_start < s) s = b->h_start;
        if (!have || b->h_end > e) e = b->h_end;
        have = 1;
    }
    if (!have) return 0; /* nothing of this tile reads the op's results */
    for (j = 0; j < op->num_inputs; j++) {
        if (is_constant(&plan->tensors[ins[j]])) continue;
        tigris_band_input_range(plan, op, ins[j], s, e, &lo, &hi);
        if (widen(mem, ins[j], lo, hi) != 0) return -1;
    }
    return 0;
}

int tigris_bands_compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                         int32_t h_start, int32_t h_end) {
    const tigris_stage_t *stage = &plan->stages[last];
    const uint16_t *outs = tigris_stage_outputs(plan, stage);
    uint16_t i, k;
    mem->tile.num_bands = 0;
    for (i = 0; i < stage->num_outputs; i++) {
        if (widen(mem, outs[i], h_start, h_end) != 0) return -1;
    }
    for (k = (uint16_t)(last + 1u); k-- > first;) {
        const tigris_stage_t *st = &plan->stages[k];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (i = st->num_ops; i-- > 0;) {
            if (propagate(plan, mem, &plan->ops[ops[i]]) != 0) return -1;
        }
    }
    return 0;
}
