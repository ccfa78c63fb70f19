/* tigris_bands.c - per-tile row (2-D tiles: and column) ranges, as the compiler's
 * transforms/plan/bands.py and geometry.py, computed from each op's band geometry
 * (geometry_h, geometry_w of its record, which the emitter writes from the op's traits): no
 * op type is looked at, so a plugin op is banded by the geometry it declares. */
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

/* -- pad and resize: one rule per axis, the compiler's PadRows / ResizeRows ----------------- */

/* The hull [*lo, *hi) of numpy's reflect over indices [a, b] of a kept run of `len` (> 1):
 * a triangle wave of period 2 (len - 1), monotone between its troughs (0 mod period, value 0)
 * and peaks (len - 1 mod period, value len - 1), so the ends of [a, b] and any trough or
 * peak inside it give the hull. */
static void reflect_hull(int64_t a, int64_t b, int64_t len, int64_t *lo, int64_t *hi) {
    const int64_t period = 2 * (len - 1);
    int64_t ra = a - floor_div(a, period) * period, rb = b - floor_div(b, period) * period;
    if (ra >= len) ra = period - ra;
    if (rb >= len) rb = period - rb;
    *lo = floor_div(b, period) * period >= a ? 0 : (ra < rb ? ra : rb);
    *hi = floor_div(b - (len - 1), period) * period + len - 1 >= a ? len : (ra > rb ? ra : rb) + 1;
}

/* PAD along runtime axis `raxis`: output index r reads kept index r - max(begin, 0) (input
 * index first + that, first the crop of a negative begin); padding reads nothing (constant),
 * the nearest kept index (edge, monotone) or its mirror (reflect). The hull of the reads; a
 * constant band that is all padding still reads one index. 0 if the params are not there. */
static int pad_range(const tigris_op_t *op, const int32_t *params, uint32_t rank, int32_t raxis, int64_t s, int64_t e,
                     int32_t size, int64_t *lo, int64_t *hi) {
    int64_t begin, end_pad, first, kept, a, b;
    if (op->num_params != 2u * rank) return 0;
    begin = params[raxis];
    end_pad = params[rank + (uint32_t)raxis];
    first = begin < 0 ? -begin : 0;
    kept = size - first - (end_pad < 0 ? -end_pad : 0);
    a = s - (begin > 0 ? begin : 0); /* outputs as indices into the kept run */
    b = e - 1 - (begin > 0 ? begin : 0);
    if (op->mode == TIGRIS_PAD_CONSTANT || kept < 1) {
        *lo = first + a < 0 ? 0 : first + a;
        *hi = first + b + 1 > size ? size : first + b + 1;
        if (*hi <= *lo) { /* all padding: still one index, as geometry._clamp */
            *lo = *lo < size - 1 ? *lo : size - 1;
            *hi = *lo + 1;
        }
        return 1;
    }
    if (op->mode == TIGRIS_PAD_EDGE || kept == 1) { /* clamping: the ends give the hull */
        *lo = a < 0 ? 0 : (a > kept - 1 ? kept - 1 : a);
        *hi = (b < 0 ? 0 : (b > kept - 1 ? kept - 1 : b)) + 1;
    } else {
        reflect_hull(a, b, kept, lo, hi);
    }
    *lo += first;
    *hi += first;
    return 1;
}

/* The first and last input index output index j of a resize by k reads along one axis of
 * `size` inputs: exact integer arithmetic of tigris_f32_resize's float32 source coordinate
 * c = num / den, nearest round_prefer_floor(c) (floor for asymmetric), linear floor(c) and
 * the index after, clamped to the input. */
static void resize_taps(const tigris_op_t *op, int64_t j, int64_t k, int64_t size, int64_t *first, int64_t *last) {
    int64_t num, den, i;
    if (k == 1) { /* a scale of 1 copies */
        *first = *last = j;
        return;
    }
    if (op->coord_mode == TIGRIS_COORD_ALIGN_CORNERS) {
        num = j * (size - 1);
        den = size * k - 1;
    } else if (op->coord_mode == TIGRIS_COORD_ASYMMETRIC) {
        num = j;
        den = k;
    } else { /* half_pixel, pytorch_half_pixel: (j + 1/2) / k - 1/2 */
        num = 2 * j + 1 - k;
        den = 2 * k;
    }
    if (op->mode == TIGRIS_RESIZE_LINEAR) {
        i = floor_div(num, den);
        i = i < 0 ? 0 : (i > size - 1 ? size - 1 : i);
        *first = i;
        *last = i + 1 < size - 1 ? i + 1 : size - 1;
        return;
    }
    i = floor_div(num, den);
    if (op->coord_mode != TIGRIS_COORD_ASYMMETRIC && 2 * (num - i * den) > den) ++i; /* round half down */
    *first = *last = i < 0 ? 0 : (i > size - 1 ? size - 1 : i);
}

/* RESIZE along runtime axis `raxis`: the coordinate is monotone, so outputs [s, e) read from
 * the first tap of s to the last tap of e - 1 (nearest [s/k, ceil(e/k)) but for align_corners,
 * linear one index before and after). 0 if the params are not there. */
static int resize_range(const tigris_op_t *op, const int32_t *params, uint32_t rank, int32_t raxis, int64_t s,
                        int64_t e, int32_t size, int64_t *lo, int64_t *hi) {
    int64_t k, unused;
    if (op->num_params != rank || params[raxis] < 1) return 0;
    k = params[raxis];
    resize_taps(op, s, k, size, lo, &unused);
    resize_taps(op, e - 1, k, size, &unused, hi);
    *hi += 1;
    return 1;
}

/* Pad and resize along runtime axis `raxis` (1: H, 2: W of a rank-4 tensor) of input t, by the
 * op's geometry along it: [*lo, *hi), clamped to [0, size) and never empty. 0 if the op's params
 * are not there (the caller then reads the same indices, clamped). */
static int resample_range(const tigris_plan_t *plan, const tigris_op_t *op, uint8_t geometry,
                          const tigris_tensor_t *t, int32_t raxis, int64_t s, int64_t e, int32_t size, int32_t *lo,
                          int32_t *hi) {
    const int32_t *params = op_params(plan, op);
    int64_t l, h;
    int found;
    if (params == NULL || raxis >= t->ndim || size < 1) return 0;
    found = geometry == TIGRIS_GEOM_PAD ? pad_range(op, params, t->ndim, raxis, s, e, size, &l, &h)
                                        : resize_range(op, params, t->ndim, raxis, s, e, size, &l, &h);
    if (!found) return 0;
    clamp_range(l, h, size, lo, hi);
    return 1;
}

/* Indices of input t (`size` of them along runtime axis `raxis`, 1: H, 2: W) that outputs
 * [start, end) of op read, by the op's geometry along that axis (the compiler's
 * geometry.input_range): a window by the record's kernel, stride, dilation and begin pad along
 * the axis, a global window or an axis the op is not cut along (NONE) the whole extent, pad and
 * resize by their rule; the same indices for every other op. Clamped, never empty. */
static void axis_range(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_tensor_t *t, int32_t raxis,
                       int32_t start, int32_t end, int32_t size, int32_t *lo, int32_t *hi) {
    const uint8_t geometry = raxis == 1 ? op->geometry_h : op->geometry_w;
    int64_t s = start, e = end;
    switch (geometry) {
    case TIGRIS_GEOM_WINDOW:
        if (raxis == 1)
            window_range(&s, &e, op->kernel_h, op->stride_h, op->dilation_h, op->pad_top);
        else
            window_range(&s, &e, op->kernel_w, op->stride_w, op->dilation_w, op->pad_left);
        break;
    case TIGRIS_GEOM_PAD: case TIGRIS_GEOM_RESIZE:
        if (resample_range(plan, op, geometry, t, raxis, s, e, size, lo, hi)) return;
        break;
    case TIGRIS_GEOM_SAME:
        break;
    default: /* GLOBAL, and NONE (never propagated in a tile: tigris_band_op_tileable) */
        *lo = 0;
        *hi = size < 1 ? 1 : size;
        return;
    }
    clamp_range(s, e, size, lo, hi);
}

void tigris_band_input_range(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                             int32_t end, int32_t *lo, int32_t *hi) {
    const tigris_tensor_t *t = &plan->tensors[in];
    int32_t height = tigris_tensor_rows(plan, t);
    if (height <= 1 || t->ndim < 3) {
        *lo = 0;
        *hi = height < 1 ? 1 : height;
        return;
    }
    axis_range(plan, op, t, 1, start, end, height, lo, hi);
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
    if (!has_cols(plan, in)) {
        *lo = *hi = 0;
        return;
    }
    axis_range(plan, op, &plan->tensors[in], 2, start, end, width_of(plan, in), lo, hi);
}

int tigris_band_op_tileable(const tigris_plan_t *plan, const tigris_op_t *op) {
    (void)plan;
    return op->geometry_h != TIGRIS_GEOM_NONE;
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

tigris_row_cache_t *tigris_band_cache_find(tigris_mem_t *mem, uint16_t tensor) {
    uint16_t i;
    for (i = 0; i < mem->tile.num_caches && i < TIGRIS_MAX_BANDS; i++) {
        if (mem->tile.caches[i].tensor == tensor) return &mem->tile.caches[i];
    }
    return NULL;
}

/* One op, backwards: the union of its outputs' bands widens each input's band (in a 2-D
 * tile, `cols`, along both axes). With row caches (`cached`), a cached output contributes only
 * the rows of its band from its `done` on (none if done >= h_end): the inputs are asked for
 * what the rows the op computes read, and an op computing nothing widens nothing. */
static int propagate(const tigris_plan_t *plan, tigris_mem_t *mem, const tigris_op_t *op, int cols, int cached) {
    const uint16_t *outs = tigris_op_outputs(plan, op), *ins = tigris_op_inputs(plan, op);
    rect_t out = {0, 0, 0, 0}, in;
    int have = 0;
    uint8_t j;
    for (j = 0; j < op->num_outputs; j++) {
        const tigris_band_t *b = tigris_band_find(mem, outs[j]);
        const tigris_row_cache_t *c = cached ? tigris_band_cache_find(mem, outs[j]) : NULL;
        int32_t w0, w1, h0;
        if (b == NULL) continue;
        h0 = c != NULL && c->done > b->h_start ? c->done : b->h_start;
        if (h0 >= b->h_end) continue; /* every row of the band is in the slot already */
        band_cols(plan, b, &w0, &w1);
        if (!have || h0 < out.h0) out.h0 = h0;
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
                            uint16_t skip, int cols, int cached) {
    uint16_t i, k;
    for (k = (uint16_t)(last + 1u); k-- > first;) {
        const tigris_stage_t *st = &plan->stages[k];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (i = st->num_ops; i-- > 0;) {
            if (ops[i] != skip && propagate(plan, mem, &plan->ops[ops[i]], cols, cached) != 0) return -1;
        }
    }
    return 0;
}

/* Seed the last stage's outputs with the tile's rectangle, then propagate backwards. */
static int compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last, int32_t h_start,
                   int32_t h_end, int32_t w_start, int32_t w_end, int cached) {
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
    return propagate_stages(plan, mem, first, last, TIGRIS_NONE16, cols, cached);
}

int tigris_bands_compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                         int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end) {
    return compute(plan, mem, first, last, h_start, h_end, w_start, w_end, 0);
}

int tigris_bands_compute_cached(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                                int32_t h_start, int32_t h_end) {
    return compute(plan, mem, first, last, h_start, h_end, 0, 0, 1);
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
    return propagate_stages(plan, mem, stage, stage, reduce_op, w_end != 0, 0);
}
