/* tigris_mem.c - fast arena and slow buffer: bump allocators over caller buffers.
 *
 * Every allocation is a row of a fixed table (mem->fast_allocs / slow_allocs, in
 * address order), so that freed space can be reclaimed by shifting the live
 * allocations down (compaction) and every pointer the manager hands out
 * (tensor_ptrs, band slow pointers) can be updated when its data moves. No heap,
 * no global state: everything is in the caller's tigris_mem_t.
 */
#include "tigris_mem.h"

#include <string.h>

#define ALIGN ((uint32_t)TIGRIS_TENSOR_ALIGN)

/* size rounded up to ALIGN; 0 (and *ok = 0) if that overflows uint32_t. */
static uint32_t padded(uint32_t size, int *ok) {
    if (size > UINT32_MAX - (ALIGN - 1u)) {
        *ok = 0;
        return 0;
    }
    *ok = 1;
    return (size + ALIGN - 1u) / ALIGN * ALIGN;
}

/* The first aligned address of [buf, buf + *size), shrinking *size accordingly. */
static uint8_t *align_buffer(void *buf, uint32_t *size) {
    uintptr_t addr = (uintptr_t)buf;
    uint32_t skip = (uint32_t)((ALIGN - (uint32_t)(addr % ALIGN)) % ALIGN);
    if (buf == NULL) {
        *size = 0;
        return NULL;
    }
    if (skip >= *size) {
        *size = 0;
        return (uint8_t *)buf;
    }
    *size -= skip;
    return (uint8_t *)buf + skip;
}

static int in_region(const uint8_t *base, uint32_t size, const void *p) {
    uintptr_t a = (uintptr_t)base, q = (uintptr_t)p;
    return base != NULL && p != NULL && q >= a && q - a < (uintptr_t)size;
}

static int in_fast(const tigris_mem_t *mem, const void *p) {
    return in_region(mem->fast_base, mem->fast_size, p);
}

static uint32_t reserved_end(const tigris_mem_t *mem) {
    int ok;
    uint32_t end = padded(mem->fast_reserved, &ok);
    return ok ? end : UINT32_MAX;
}

/* Where fast allocations start: after the reserved prefix and the accumulator. */
static uint32_t fast_bottom(const tigris_mem_t *mem) {
    int ok;
    uint32_t end = reserved_end(mem), acc = padded(mem->tile.acc_bytes, &ok);
    return ok && acc <= UINT32_MAX - end ? end + acc : UINT32_MAX;
}

/* fast_peak is the most bytes ever live at once: the reserved prefix, the accumulator and the
 * live allocations (refs > 0), each padded. It is what the arena needs, compaction reclaiming
 * dead allocations on demand, and what the planner predicts (its peak, plus the prefix); the
 * bump high-water mark also counts dead bytes no compaction was needed to reclaim. */
static void note_fast_peak(tigris_mem_t *mem) {
    uint64_t live = fast_bottom(mem);
    uint16_t i;
    int ok;
    for (i = 0; i < mem->num_fast_allocs; i++)
        if (mem->fast_allocs[i].refs > 0) live += padded(mem->fast_allocs[i].size, &ok);
    if (live > mem->counters.fast_peak) mem->counters.fast_peak = live > UINT32_MAX ? UINT32_MAX : (uint32_t)live;
}

static void note_slow_peak(tigris_mem_t *mem) {
    if (mem->slow_used > mem->counters.slow_peak) mem->counters.slow_peak = mem->slow_used;
}

/* Index of the tensor's latest fast allocation (refs > 0 if live_only), or -1. */
static int find_fast(const tigris_mem_t *mem, uint16_t tensor, int live_only) {
    int i;
    for (i = (int)mem->num_fast_allocs - 1; i >= 0; i--) {
        const tigris_alloc_t *a = &mem->fast_allocs[i];
        if (a->tensor == tensor && (!live_only || a->refs > 0)) return i;
    }
    return -1;
}

/* Index of the tensor's slow copy (refs 0), or of an overflow allocation, or -1. */
static int find_slow(const tigris_mem_t *mem, uint16_t tensor, uint16_t refs) {
    int i;
    for (i = (int)mem->num_slow_allocs - 1; i >= 0; i--) {
        const tigris_alloc_t *a = &mem->slow_allocs[i];
        if (a->tensor == tensor && a->refs == refs) return i;
    }
    return -1;
}

static int find_band(const tigris_mem_t *mem, uint16_t tensor) {
    int i;
    for (i = 0; i < (int)mem->tile.num_bands && i < TIGRIS_MAX_BANDS; i++) {
        if (mem->tile.bands[i].tensor == tensor) return i;
    }
    return -1;
}

tigris_mem_error_t tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors,
                                   void *fast_buf, uint32_t fast_size, void *slow_buf, uint32_t slow_size) {
    uint16_t i;
    if (mem == NULL || (tensor_ptrs == NULL && num_tensors > 0)) return TIGRIS_MEM_ERR_NULL;
    if ((fast_buf == NULL && fast_size > 0) || (slow_buf == NULL && slow_size > 0)) return TIGRIS_MEM_ERR_NULL;
    memset(mem, 0, sizeof(*mem));
    for (i = 0; i < num_tensors; i++) tensor_ptrs[i] = NULL;
    mem->tensor_ptrs = tensor_ptrs;
    mem->num_tensors = num_tensors;
    mem->fast_size = fast_size;
    mem->fast_base = align_buffer(fast_buf, &mem->fast_size);
    mem->slow_size = slow_size;
    mem->slow_base = align_buffer(slow_buf, &mem->slow_size);
    mem->tile.reduce_op = TIGRIS_NONE16;
    return TIGRIS_MEM_OK;
}

/* Append an allocation at the bump offset of an arena (no fallback). */
static tigris_mem_error_t bump(uint8_t *base, uint32_t capacity, uint32_t *used, tigris_alloc_t *table,
                               uint16_t *count, uint16_t max_count, uint16_t tensor, uint32_t size, uint16_t refs,
                               void **out) {
    int ok;
    uint32_t need = padded(size, &ok);
    tigris_alloc_t *a;
    if (!ok || base == NULL || *count >= max_count || *used > capacity || need > capacity - *used)
        return TIGRIS_MEM_ERR_OOM;
    a = &table[*count];
    a->tensor = tensor;
    a->refs = refs;
    a->offset = *used;
    a->size = size;
    *out = base + *used;
    *used += need;
    (*count)++;
    return TIGRIS_MEM_OK;
}

static tigris_mem_error_t fast_bump(tigris_mem_t *mem, uint16_t tensor, uint32_t size) {
    void *p = NULL;
    tigris_mem_error_t err = bump(mem->fast_base, mem->fast_size, &mem->fast_used, mem->fast_allocs,
                                  &mem->num_fast_allocs, TIGRIS_MAX_FAST_ALLOCS, tensor, size, 1u, &p);
    if (err == TIGRIS_MEM_OK) {
        mem->tensor_ptrs[tensor] = p;
        note_fast_peak(mem);
    }
    return err;
}

/* Slow allocation; compacts the slow buffer and retries once if it does not fit. */
static tigris_mem_error_t slow_bump(tigris_mem_t *mem, uint16_t tensor, uint32_t size, uint16_t refs) {
    void *p = NULL;
    tigris_mem_error_t err = bump(mem->slow_base, mem->slow_size, &mem->slow_used, mem->slow_allocs,
                                  &mem->num_slow_allocs, TIGRIS_MAX_SLOW_ALLOCS, tensor, size, refs, &p);
    if (err == TIGRIS_MEM_ERR_OOM) {
        uint32_t before = mem->slow_used;
        tigris_mem_compact_slow(mem);
        if (mem->slow_used < before) {
            err = bump(mem->slow_base, mem->slow_size, &mem->slow_used, mem->slow_allocs, &mem->num_slow_allocs,
                       TIGRIS_MAX_SLOW_ALLOCS, tensor, size, refs, &p);
        }
    }
    if (err == TIGRIS_MEM_OK) {
        mem->tensor_ptrs[tensor] = p;
        note_slow_peak(mem);
    }
    return err;
}

tigris_mem_error_t tigris_mem_alloc_fast(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes) {
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    return fast_bump(mem, tensor_idx, size_bytes);
}

tigris_mem_error_t tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes) {
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    return slow_bump(mem, tensor_idx, size_bytes, 0u);
}

tigris_mem_error_t tigris_mem_alloc(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes) {
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    err = fast_bump(mem, tensor_idx, size_bytes);
    if (err != TIGRIS_MEM_ERR_OOM) return err;
    (void)tigris_mem_compact_fast(mem);
    err = fast_bump(mem, tensor_idx, size_bytes);
    if (err != TIGRIS_MEM_ERR_OOM) return err;
    err = slow_bump(mem, tensor_idx, size_bytes, TIGRIS_ALLOC_OVERFLOW);
    if (err == TIGRIS_MEM_OK) {
        mem->counters.slow_overflow_count++;
        mem->counters.slow_overflow_bytes += size_bytes;
    }
    return err;
}

void *tigris_mem_slow_ptr(const tigris_mem_t *mem, uint16_t tensor_idx) {
    int i;
    if (mem == NULL || tensor_idx >= mem->num_tensors) return NULL;
    i = find_slow(mem, tensor_idx, 0u);
    return i < 0 ? NULL : mem->slow_base + mem->slow_allocs[i].offset;
}

/* Allocate through tigris_mem_alloc, then return where the source `src` of the
 * tensor is now: a slow copy may have moved if the slow buffer was compacted. */
static tigris_mem_error_t alloc_from(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size, const uint8_t **src) {
    int from_copy = (*src == (const uint8_t *)tigris_mem_slow_ptr(mem, tensor_idx));
    tigris_mem_error_t err = tigris_mem_alloc(mem, tensor_idx, size);
    if (err == TIGRIS_MEM_OK && from_copy) *src = (const uint8_t *)tigris_mem_slow_ptr(mem, tensor_idx);
    return err;
}

tigris_mem_error_t tigris_mem_load(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes) {
    const uint8_t *src;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    src = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (src == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    if (in_fast(mem, src)) return TIGRIS_MEM_OK; /* already resident */
    err = fast_bump(mem, tensor_idx, size_bytes);
    if (err == TIGRIS_MEM_ERR_OOM) {
        (void)tigris_mem_compact_fast(mem);
        err = fast_bump(mem, tensor_idx, size_bytes);
    }
    if (err == TIGRIS_MEM_ERR_OOM) {
        /* The arena is full: the overflow is the tensor's own copy in slow memory, read in
         * place. A second slow copy would need slow memory the plan never counted, and
         * would be dropped at the end of the stage with the pointer to the first. */
        mem->counters.slow_overflow_count++;
        mem->counters.slow_overflow_bytes += size_bytes;
    } else if (size_bytes > 0) {
        memmove(mem->tensor_ptrs[tensor_idx], src, size_bytes);
    }
    mem->counters.loads_bytes += size_bytes;
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t tigris_mem_spill(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes) {
    uint8_t *src;
    int i;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    src = (uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (src == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    i = find_slow(mem, tensor_idx, TIGRIS_ALLOC_OVERFLOW);
    if (i >= 0 && mem->slow_base + mem->slow_allocs[i].offset == src) {
        int old = find_slow(mem, tensor_idx, 0u);
        if (old >= 0) { /* an older copy is superseded by this one */
            (void)tigris_mem_free_slow(mem, tensor_idx);
            i = find_slow(mem, tensor_idx, TIGRIS_ALLOC_OVERFLOW);
            if (i < 0) return TIGRIS_MEM_ERR_NOT_SET;
            mem->tensor_ptrs[tensor_idx] = mem->slow_base + mem->slow_allocs[i].offset;
        }
        mem->slow_allocs[i].refs = 0u;
        return TIGRIS_MEM_OK;
    }
    i = find_slow(mem, tensor_idx, 0u);
    if (i >= 0 && mem->slow_base + mem->slow_allocs[i].offset == src) return TIGRIS_MEM_OK; /* already there */
    if (i >= 0 && mem->slow_allocs[i].size >= size_bytes) {
        uint8_t *dst = mem->slow_base + mem->slow_allocs[i].offset;
        if (size_bytes > 0) memmove(dst, src, size_bytes);
        mem->tensor_ptrs[tensor_idx] = dst;
    } else {
        if (i >= 0) (void)tigris_mem_free_slow(mem, tensor_idx); /* too small: replaced */
        err = slow_bump(mem, tensor_idx, size_bytes, 0u); /* src is not a slow allocation: cannot move */
        if (err != TIGRIS_MEM_OK) return err;
        if (size_bytes > 0) memcpy(mem->tensor_ptrs[tensor_idx], src, size_bytes);
    }
    mem->counters.spills_bytes += size_bytes;
    return TIGRIS_MEM_OK;
}

/* The width a kernel view gives the tensor: the product of its dims after H (rank >= 3), else
 * 1; 0 if the shape lies outside the pool or the product leaves int32. */
static int32_t view_width(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    const int32_t *shape;
    int64_t w = 1;
    uint8_t a;
    if (t->ndim < 3) return 1;
    if (plan->shape_pool_len != 0 && (t->shape > plan->shape_pool_len || t->ndim > plan->shape_pool_len - t->shape))
        return 0;
    shape = tigris_tensor_shape(plan, t);
    for (a = 3; a < t->ndim; a++) {
        w *= shape[a];
        if (w < 0 || w > INT32_MAX) return 0;
    }
    return (int32_t)w;
}

/* How load/spill cut an activation: n batch items of `rows` rows of `width` columns of `pix`
 * bytes each (rank <= 2: one row of one column, the whole tensor). */
typedef struct {
    uint32_t n;
    int32_t rows;
    int32_t width;
    uint32_t pix;
} geom_t;

static tigris_mem_error_t geometry(const tigris_plan_t *plan, uint16_t tensor_idx, geom_t *g) {
    const tigris_tensor_t *t;
    const int32_t *shape;
    uint32_t row_bytes;
    if (plan->header == NULL || plan->tensors == NULL || plan->shape_pool == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= plan->header->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    t = &plan->tensors[tensor_idx];
    if (t->ndim < 3) {
        g->n = 1;
        g->rows = 1;
        g->width = 1;
        g->pix = t->size;
        return TIGRIS_MEM_OK;
    }
    if (plan->shape_pool_len != 0 && (t->shape > plan->shape_pool_len || t->ndim > plan->shape_pool_len - t->shape))
        return TIGRIS_MEM_ERR_BAD_RANGE;
    shape = tigris_tensor_shape(plan, t);
    if (shape[0] <= 0 || shape[2] <= 0) return TIGRIS_MEM_ERR_BAD_RANGE;
    g->n = (uint32_t)shape[0];
    g->rows = shape[2];
    g->width = view_width(plan, t);
    row_bytes = tigris_tensor_row_bytes(plan, t);
    if (g->width <= 0 || row_bytes % (uint32_t)g->width != 0) return TIGRIS_MEM_ERR_BAD_RANGE;
    g->pix = row_bytes / (uint32_t)g->width;
    if ((uint64_t)g->n * (uint64_t)(uint32_t)g->rows * (uint64_t)row_bytes > (uint64_t)t->size)
        return TIGRIS_MEM_ERR_BAD_RANGE;
    return TIGRIS_MEM_OK;
}

/* Bytes of rows x cols of every batch item (fits uint32: at most the tensor's size). */
static uint32_t window_size(const geom_t *g, int32_t rows, int32_t cols) {
    return g->n * (uint32_t)rows * (uint32_t)cols * g->pix;
}

/* Rows [h0, h1) x columns [w0, w1) inside the tensor and not empty. */
static int window_ok(const geom_t *g, int32_t h0, int32_t h1, int32_t w0, int32_t w1) {
    return h0 >= 0 && h0 < h1 && h1 <= g->rows && w0 >= 0 && w0 < w1 && w1 <= g->width;
}

/* Where a rectangle of a tensor is held: its first row and column and its extent, each row
 * `cols` pixels long, batch items one after the other ([n][rows][cols][pixel]). */
typedef struct {
    uint8_t *data;
    int32_t r0, c0, rows, cols;
} frame_t;

/* Index of pixel (batch item k, row r, column c) in a frame that holds it. */
static size_t frame_pixel(const frame_t *f, uint32_t k, int32_t r, int32_t c) {
    return ((size_t)k * (size_t)f->rows + (size_t)(r - f->r0)) * (size_t)f->cols + (size_t)(c - f->c0);
}

/* Copy rows [h0, h1) x columns [w0, w1) of every batch item from src to dst, both holding
 * them; a row at a time, or a batch item at a time where both frames are whole-width. */
static void copy_window(const geom_t *g, const frame_t *dst, const frame_t *src, int32_t h0, int32_t h1, int32_t w0,
                        int32_t w1) {
    const size_t pix = g->pix, run = (size_t)(w1 - w0) * pix;
    const int rowwise = dst->cols != w1 - w0 || src->cols != w1 - w0;
    uint32_t k;
    int32_t r;
    if (run == 0) return;
    for (k = 0; k < g->n; k++) {
        for (r = h0; r < h1; r += rowwise ? 1 : h1 - h0) {
            memmove(dst->data + frame_pixel(dst, k, r, w0) * pix, src->data + frame_pixel(src, k, r, w0) * pix,
                    rowwise ? run : run * (size_t)(h1 - h0));
        }
    }
}

/* Record tensor_idx as held rows [h_start, h_end) x columns [w_start, w_end) (w_end 0: whole
 * rows), replacing its band if it has one. */
static tigris_mem_error_t put_band(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                   int32_t w_start, int32_t w_end, void *slow_ptr) {
    int i = find_band(mem, tensor_idx);
    tigris_band_t *b;
    if (i < 0) {
        if (mem->tile.num_bands >= TIGRIS_MAX_BANDS) return TIGRIS_MEM_ERR_BAD_RANGE;
        i = (int)mem->tile.num_bands++;
    }
    b = &mem->tile.bands[i];
    b->tensor = tensor_idx;
    b->reserved = 0u;
    b->h_start = h_start;
    b->h_end = h_end;
    b->slow_ptr = slow_ptr;
    b->w_start = w_end != 0 ? w_start : 0;
    b->w_end = w_end;
    return TIGRIS_MEM_OK;
}

/* load_window, and load_tile with `window` 0: every column, recorded as whole rows. */
static tigris_mem_error_t load_rect(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx, int32_t h0,
                                    int32_t h1, int32_t w0, int32_t w1, int window) {
    const uint8_t *src;
    geom_t g;
    frame_t from, to;
    uint32_t bytes;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    err = geometry(plan, tensor_idx, &g);
    if (err != TIGRIS_MEM_OK) return err;
    if (!window) w1 = g.width;
    if (!window_ok(&g, h0, h1, w0, w1)) return TIGRIS_MEM_ERR_BAD_RANGE;
    src = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (src == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    if (in_fast(mem, src)) return TIGRIS_MEM_ERR_BAD_RANGE; /* the source must be the full tensor */
    if (find_band(mem, tensor_idx) < 0 && mem->tile.num_bands >= TIGRIS_MAX_BANDS) return TIGRIS_MEM_ERR_BAD_RANGE;
    bytes = window_size(&g, h1 - h0, w1 - w0);
    err = alloc_from(mem, tensor_idx, bytes, &src);
    if (err != TIGRIS_MEM_OK) return err;
    from.data = (uint8_t *)(uintptr_t)src;
    from.r0 = from.c0 = 0;
    from.rows = g.rows;
    from.cols = g.width;
    to.data = (uint8_t *)mem->tensor_ptrs[tensor_idx];
    to.r0 = h0;
    to.c0 = w0;
    to.rows = h1 - h0;
    to.cols = w1 - w0;
    copy_window(&g, &to, &from, h0, h1, w0, w1);
    mem->counters.loads_bytes += bytes;
    return put_band(mem, tensor_idx, h0, h1, w0, window ? w1 : 0, (void *)(uintptr_t)src);
}

tigris_mem_error_t tigris_mem_load_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                        int32_t h_start, int32_t h_end) {
    return load_rect(mem, plan, tensor_idx, h_start, h_end, 0, 0, 0);
}

tigris_mem_error_t tigris_mem_load_window(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                          int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end) {
    return load_rect(mem, plan, tensor_idx, h_start, h_end, w_start, w_end, 1);
}

tigris_mem_error_t tigris_mem_load_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx, void *dst,
                                        int32_t h_start, int32_t h_end) {
    const uint8_t *src;
    geom_t g;
    uint32_t bytes;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL || dst == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    err = geometry(plan, tensor_idx, &g);
    if (err != TIGRIS_MEM_OK) return err;
    if (!window_ok(&g, h_start, h_end, 0, g.width) || g.n != 1) return TIGRIS_MEM_ERR_BAD_RANGE;
    src = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (src == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    if (in_fast(mem, src)) return TIGRIS_MEM_ERR_BAD_RANGE; /* the source must be the full tensor */
    bytes = window_size(&g, h_end - h_start, g.width);      /* one item: rows are contiguous */
    memcpy(dst, src + (size_t)window_size(&g, h_start, g.width), bytes);
    mem->counters.loads_bytes += bytes;
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t tigris_mem_spill_window(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                           void *slow_base, int32_t h_start, int32_t h_end, int32_t w_start,
                                           int32_t w_end) {
    geom_t g;
    frame_t from, to;
    int32_t b0, b1, c0, c1;
    int i;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL || slow_base == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    err = geometry(plan, tensor_idx, &g);
    if (err != TIGRIS_MEM_OK) return err;
    from.data = (uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (from.data == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    tigris_mem_rows(mem, plan, tensor_idx, &b0, &b1);
    tigris_mem_cols(mem, plan, tensor_idx, &c0, &c1);
    if (h_start < b0 || h_end > b1 || h_start >= h_end || w_start < c0 || w_end > c1 || w_start >= w_end)
        return TIGRIS_MEM_ERR_BAD_RANGE;
    for (i = 0; i < (int)mem->num_slow_allocs; i++) { /* a slow tensor must hold all rows */
        const tigris_alloc_t *a = &mem->slow_allocs[i];
        if (mem->slow_base + a->offset == (uint8_t *)slow_base &&
            (uint64_t)a->size < (uint64_t)window_size(&g, g.rows, g.width))
            return TIGRIS_MEM_ERR_BAD_RANGE;
    }
    from.r0 = b0;
    from.c0 = c0;
    from.rows = b1 - b0;
    from.cols = c1 - c0;
    to.data = (uint8_t *)slow_base;
    to.r0 = to.c0 = 0;
    to.rows = g.rows;
    to.cols = g.width;
    copy_window(&g, &to, &from, h_start, h_end, w_start, w_end);
    mem->counters.spills_bytes += window_size(&g, h_end - h_start, w_end - w_start);
    mem->tensor_ptrs[tensor_idx] = slow_base;
    i = find_band(mem, tensor_idx);
    if (i >= 0) {
        mem->tile.bands[i] = mem->tile.bands[mem->tile.num_bands - 1u];
        mem->tile.num_bands--;
    }
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t tigris_mem_spill_channels(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                             void *slow_base, int32_t c_start, int32_t c_end) {
    geom_t g;
    const uint8_t *from;
    uint8_t *to = (uint8_t *)slow_base;
    uint32_t elem, channels, k, pixels;
    int32_t b0, b1, w0, w1;
    int i;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL || slow_base == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    if (plan->tensors[tensor_idx].ndim < 3) return TIGRIS_MEM_ERR_BAD_RANGE; /* no pixels of channels */
    err = geometry(plan, tensor_idx, &g);
    if (err != TIGRIS_MEM_OK) return err;
    from = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (from == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    elem = tigris_dtype_size(plan->tensors[tensor_idx].dtype);
    if (elem == 0 || g.pix % elem != 0) return TIGRIS_MEM_ERR_BAD_RANGE;
    channels = g.pix / elem;
    tigris_mem_rows(mem, plan, tensor_idx, &b0, &b1);
    tigris_mem_cols(mem, plan, tensor_idx, &w0, &w1);
    if (b0 != 0 || b1 != g.rows || w0 != 0 || w1 != g.width) return TIGRIS_MEM_ERR_BAD_RANGE; /* resident whole */
    if (c_start < 0 || c_start >= c_end || (uint32_t)c_end > channels) return TIGRIS_MEM_ERR_BAD_RANGE;
    for (i = 0; i < (int)mem->num_slow_allocs; i++) { /* a slow tensor must hold every pixel */
        const tigris_alloc_t *a = &mem->slow_allocs[i];
        if (mem->slow_base + a->offset == to && (uint64_t)a->size < (uint64_t)window_size(&g, g.rows, g.width))
            return TIGRIS_MEM_ERR_BAD_RANGE;
    }
    pixels = g.n * (uint32_t)g.rows * (uint32_t)g.width; /* geometry: their bytes fit the tensor's size */
    for (k = 0; k < pixels; k++) {
        size_t at = (size_t)k * g.pix + (size_t)c_start * elem;
        memcpy(to + at, from + at, (size_t)(c_end - c_start) * elem);
    }
    mem->counters.spills_bytes += pixels * (uint32_t)(c_end - c_start) * elem;
    mem->tensor_ptrs[tensor_idx] = slow_base;
    i = find_band(mem, tensor_idx);
    if (i >= 0) {
        mem->tile.bands[i] = mem->tile.bands[mem->tile.num_bands - 1u];
        mem->tile.num_bands--;
    }
    return TIGRIS_MEM_OK;
}

/* Bytes of the allocation of `tensor` at p (fast, or an overflow in slow memory); 0 if none. */
static uint32_t allocation_at(const tigris_mem_t *mem, uint16_t tensor, const uint8_t *p) {
    int i;
    for (i = 0; i < (int)mem->num_fast_allocs; i++) {
        const tigris_alloc_t *a = &mem->fast_allocs[i];
        if (a->tensor == tensor && mem->fast_base + a->offset == p) return a->size;
    }
    for (i = 0; i < (int)mem->num_slow_allocs; i++) {
        const tigris_alloc_t *a = &mem->slow_allocs[i];
        if (a->tensor == tensor && a->refs == TIGRIS_ALLOC_OVERFLOW && mem->slow_base + a->offset == p) return a->size;
    }
    return 0;
}

/* [N, F] of a rank-2 tensor with its shape inside the pool and N x F x elem within its size; 0 if not. */
static int rank2_shape(const tigris_plan_t *plan, const tigris_tensor_t *t, uint32_t *n, uint32_t *f, uint32_t *elem) {
    const int32_t *shape;
    if (t->ndim != 2) return 0;
    if (plan->shape_pool_len != 0 && (t->shape > plan->shape_pool_len || t->ndim > plan->shape_pool_len - t->shape))
        return 0;
    shape = tigris_tensor_shape(plan, t);
    *elem = tigris_dtype_size(t->dtype);
    if (*elem == 0 || shape[0] <= 0 || shape[1] <= 0) return 0;
    *n = (uint32_t)shape[0];
    *f = (uint32_t)shape[1];
    return (uint64_t)*n * *f * *elem <= (uint64_t)t->size;
}

tigris_mem_error_t tigris_mem_load_features(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                            int32_t k_start, int32_t k_end) {
    const uint8_t *src;
    uint8_t *dst;
    uint32_t n, depth, elem, row, block, k;
    tigris_mem_error_t err;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    if (!rank2_shape(plan, &plan->tensors[tensor_idx], &n, &depth, &elem)) return TIGRIS_MEM_ERR_BAD_RANGE;
    if (k_start < 0 || k_start >= k_end || (uint32_t)k_end > depth) return TIGRIS_MEM_ERR_BAD_RANGE;
    src = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (src == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    if (in_fast(mem, src)) return TIGRIS_MEM_ERR_BAD_RANGE; /* the source must be the full tensor */
    if (find_band(mem, tensor_idx) < 0 && mem->tile.num_bands >= TIGRIS_MAX_BANDS) return TIGRIS_MEM_ERR_BAD_RANGE;
    row = depth * elem;
    block = (uint32_t)(k_end - k_start) * elem;
    err = alloc_from(mem, tensor_idx, n * block, &src);
    if (err != TIGRIS_MEM_OK) return err;
    dst = (uint8_t *)mem->tensor_ptrs[tensor_idx];
    for (k = 0; k < n; k++) memmove(dst + (size_t)k * block, src + (size_t)k * row + (size_t)k_start * elem, block);
    mem->counters.loads_bytes += n * block;
    return put_band(mem, tensor_idx, k_start, k_end, 0, 0, (void *)(uintptr_t)src);
}

tigris_mem_error_t tigris_mem_spill_features(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                             void *slow_base, int32_t c_start, int32_t c_end) {
    const uint8_t *from;
    uint8_t *to = (uint8_t *)slow_base;
    uint32_t elem, n, features, row, block, k;
    int i;
    if (mem == NULL || mem->tensor_ptrs == NULL || plan == NULL || slow_base == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    if (!rank2_shape(plan, &plan->tensors[tensor_idx], &n, &features, &elem)) return TIGRIS_MEM_ERR_BAD_RANGE;
    if (c_start < 0 || c_start >= c_end || (uint32_t)c_end > features) return TIGRIS_MEM_ERR_BAD_RANGE;
    row = features * elem;
    block = (uint32_t)(c_end - c_start) * elem;
    from = (const uint8_t *)mem->tensor_ptrs[tensor_idx];
    if (from == NULL) return TIGRIS_MEM_ERR_NOT_SET;
    if ((uint64_t)allocation_at(mem, tensor_idx, from) < (uint64_t)n * block) return TIGRIS_MEM_ERR_BAD_RANGE;
    for (i = 0; i < (int)mem->num_slow_allocs; i++) { /* a slow tensor must hold every feature */
        const tigris_alloc_t *a = &mem->slow_allocs[i];
        if (mem->slow_base + a->offset == to && (uint64_t)a->size < (uint64_t)n * row) return TIGRIS_MEM_ERR_BAD_RANGE;
    }
    for (k = 0; k < n; k++) memcpy(to + (size_t)k * row + (size_t)c_start * elem, from + (size_t)k * block, block);
    mem->counters.spills_bytes += n * block;
    mem->tensor_ptrs[tensor_idx] = slow_base;
    i = find_band(mem, tensor_idx);
    if (i >= 0) {
        mem->tile.bands[i] = mem->tile.bands[mem->tile.num_bands - 1u];
        mem->tile.num_bands--;
    }
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t tigris_mem_spill_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                         void *slow_base, int32_t h_start, int32_t h_end) {
    int32_t w0, w1;
    tigris_mem_cols(mem, plan, tensor_idx, &w0, &w1); /* full-width: the columns the band holds */
    return tigris_mem_spill_window(mem, plan, tensor_idx, slow_base, h_start, h_end, w0, w1);
}

uint32_t tigris_mem_window_bytes(const tigris_plan_t *plan, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                 int32_t w_start, int32_t w_end) {
    geom_t g;
    if (plan == NULL || geometry(plan, tensor_idx, &g) != TIGRIS_MEM_OK) return 0;
    if (!window_ok(&g, h_start, h_end, w_start, w_end)) return 0;
    return window_size(&g, h_end - h_start, w_end - w_start);
}

tigris_mem_error_t tigris_mem_set_band(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                       void *slow_ptr) {
    if (mem == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    if (h_start < 0 || h_start >= h_end) return TIGRIS_MEM_ERR_BAD_RANGE;
    return put_band(mem, tensor_idx, h_start, h_end, 0, 0, slow_ptr);
}

tigris_mem_error_t tigris_mem_set_window(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                         int32_t w_start, int32_t w_end, void *slow_ptr) {
    tigris_mem_error_t err;
    if (mem == NULL) return TIGRIS_MEM_ERR_NULL;
    if (w_start < 0 || w_start >= w_end) return TIGRIS_MEM_ERR_BAD_RANGE;
    err = tigris_mem_set_band(mem, tensor_idx, h_start, h_end, slow_ptr); /* the rows' checks */
    return err == TIGRIS_MEM_OK ? put_band(mem, tensor_idx, h_start, h_end, w_start, w_end, slow_ptr) : err;
}

void tigris_mem_rows(const tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx, int32_t *h_start,
                     int32_t *h_end) {
    int i;
    int32_t s = 0, e = 0;
    if (mem != NULL && plan != NULL && plan->header != NULL && tensor_idx < mem->num_tensors &&
        tensor_idx < plan->header->num_tensors) {
        i = find_band(mem, tensor_idx);
        if (i >= 0) {
            s = mem->tile.bands[i].h_start;
            e = mem->tile.bands[i].h_end;
        } else {
            e = tigris_tensor_rows(plan, &plan->tensors[tensor_idx]);
        }
    }
    if (h_start != NULL) *h_start = s;
    if (h_end != NULL) *h_end = e;
}

void tigris_mem_cols(const tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx, int32_t *w_start,
                     int32_t *w_end) {
    int i;
    int32_t s = 0, e = 0;
    if (mem != NULL && plan != NULL && plan->header != NULL && tensor_idx < mem->num_tensors &&
        tensor_idx < plan->header->num_tensors) {
        i = find_band(mem, tensor_idx);
        if (i >= 0 && mem->tile.bands[i].w_end != 0) {
            s = mem->tile.bands[i].w_start;
            e = mem->tile.bands[i].w_end;
        } else {
            e = view_width(plan, &plan->tensors[tensor_idx]);
        }
    }
    if (w_start != NULL) *w_start = s;
    if (w_end != NULL) *w_end = e;
}

tigris_mem_error_t tigris_mem_set_refs(tigris_mem_t *mem, uint16_t tensor_idx, uint16_t refs) {
    int i;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    i = find_fast(mem, tensor_idx, 0);
    if (i >= 0 && mem->fast_base + mem->fast_allocs[i].offset == mem->tensor_ptrs[tensor_idx]) {
        mem->fast_allocs[i].refs = refs;
        return TIGRIS_MEM_OK;
    }
    return mem->tensor_ptrs[tensor_idx] != NULL ? TIGRIS_MEM_OK : TIGRIS_MEM_ERR_NOT_SET;
}

tigris_mem_error_t tigris_mem_release(tigris_mem_t *mem, uint16_t tensor_idx) {
    int i;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    i = find_fast(mem, tensor_idx, 1);
    if (i >= 0) {
        mem->fast_allocs[i].refs--;
        return TIGRIS_MEM_OK;
    }
    return mem->tensor_ptrs[tensor_idx] != NULL ? TIGRIS_MEM_OK : TIGRIS_MEM_ERR_NOT_SET;
}

uint32_t tigris_mem_compact_fast(tigris_mem_t *mem) {
    uint32_t cursor, before;
    uint16_t i, kept = 0;
    if (mem == NULL || mem->fast_base == NULL) return 0;
    cursor = fast_bottom(mem);
    before = mem->fast_used;
    for (i = 0; i < mem->num_fast_allocs; i++) {
        tigris_alloc_t a = mem->fast_allocs[i];
        int ok;
        if (a.refs == 0) continue;
        if (a.offset != cursor) {
            uint8_t *from = mem->fast_base + a.offset, *to = mem->fast_base + cursor;
            if (a.size > 0) memmove(to, from, a.size);
            if (a.tensor < mem->num_tensors && mem->tensor_ptrs[a.tensor] == from) mem->tensor_ptrs[a.tensor] = to;
            a.offset = cursor;
        }
        cursor += padded(a.size, &ok); /* fitted before, so no overflow */
        mem->fast_allocs[kept++] = a;
    }
    if (kept == mem->num_fast_allocs && cursor == before) return 0;
    mem->num_fast_allocs = kept;
    mem->fast_used = cursor;
    mem->counters.compactions++;
    return before - cursor;
}

tigris_mem_error_t tigris_mem_free_slow(tigris_mem_t *mem, uint16_t tensor_idx) {
    int i;
    uint16_t k;
    if (mem == NULL || mem->tensor_ptrs == NULL) return TIGRIS_MEM_ERR_NULL;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    i = find_slow(mem, tensor_idx, 0u);
    if (i < 0) return TIGRIS_MEM_ERR_NOT_SET;
    if (mem->tensor_ptrs[tensor_idx] == mem->slow_base + mem->slow_allocs[i].offset)
        mem->tensor_ptrs[tensor_idx] = NULL;
    for (k = (uint16_t)i; k + 1u < mem->num_slow_allocs; k++) mem->slow_allocs[k] = mem->slow_allocs[k + 1u];
    mem->num_slow_allocs--;
    return TIGRIS_MEM_OK;
}

void tigris_mem_free_overflow(tigris_mem_t *mem) {
    uint16_t i, kept = 0;
    if (mem == NULL || mem->tensor_ptrs == NULL) return;
    for (i = 0; i < mem->num_slow_allocs; i++) {
        tigris_alloc_t a = mem->slow_allocs[i];
        if (a.refs == TIGRIS_ALLOC_OVERFLOW) {
            if (a.tensor < mem->num_tensors && mem->tensor_ptrs[a.tensor] == mem->slow_base + a.offset)
                mem->tensor_ptrs[a.tensor] = NULL;
            continue;
        }
        mem->slow_allocs[kept++] = a;
    }
    mem->num_slow_allocs = kept;
}

void tigris_mem_compact_slow(tigris_mem_t *mem) {
    uint32_t cursor = 0;
    uint16_t i, b;
    if (mem == NULL || mem->tensor_ptrs == NULL || mem->slow_base == NULL) return;
    for (i = 0; i < mem->num_slow_allocs; i++) {
        tigris_alloc_t *a = &mem->slow_allocs[i];
        int ok;
        if (a->offset != cursor) {
            uint8_t *from = mem->slow_base + a->offset, *to = mem->slow_base + cursor;
            if (a->size > 0) memmove(to, from, a->size);
            if (a->tensor < mem->num_tensors && mem->tensor_ptrs[a->tensor] == from) mem->tensor_ptrs[a->tensor] = to;
            for (b = 0; b < mem->tile.num_bands && b < TIGRIS_MAX_BANDS; b++) {
                if (mem->tile.bands[b].slow_ptr == from) mem->tile.bands[b].slow_ptr = to;
            }
            a->offset = cursor;
        }
        cursor += padded(a->size, &ok);
    }
    mem->slow_used = cursor;
}

tigris_mem_error_t tigris_mem_set_reserved(tigris_mem_t *mem, uint32_t bytes) {
    int ok;
    uint32_t end;
    if (mem == NULL) return TIGRIS_MEM_ERR_NULL;
    if (mem->num_fast_allocs != 0 || mem->tile.acc_bytes != 0) return TIGRIS_MEM_ERR_BAD_RANGE;
    end = padded(bytes, &ok);
    if (!ok || end > mem->fast_size) return TIGRIS_MEM_ERR_OOM;
    mem->fast_reserved = bytes;
    mem->fast_used = end;
    note_fast_peak(mem);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t tigris_mem_set_acc(tigris_mem_t *mem, uint32_t bytes) {
    int ok;
    uint32_t start, need;
    if (mem == NULL) return TIGRIS_MEM_ERR_NULL;
    if (mem->num_fast_allocs != 0) return TIGRIS_MEM_ERR_BAD_RANGE;
    start = reserved_end(mem);
    need = padded(bytes, &ok);
    if (!ok || start > mem->fast_size || need > mem->fast_size - start || (bytes != 0 && mem->fast_base == NULL))
        return TIGRIS_MEM_ERR_OOM;
    mem->tile.acc = bytes != 0 ? mem->fast_base + start : NULL;
    mem->tile.acc_bytes = bytes;
    mem->fast_used = start + need;
    note_fast_peak(mem);
    return TIGRIS_MEM_OK;
}

void tigris_mem_reset_fast(tigris_mem_t *mem) {
    uint32_t end;
    if (mem == NULL) return;
    end = fast_bottom(mem);
    mem->fast_used = end <= mem->fast_size ? end : mem->fast_size;
    mem->num_fast_allocs = 0;
    mem->tile.num_bands = 0;
}

const char *tigris_mem_error_str(tigris_mem_error_t err) {
    switch (err) {
    case TIGRIS_MEM_OK: return "ok";
    case TIGRIS_MEM_ERR_NULL: return "null pointer argument";
    case TIGRIS_MEM_ERR_OOM: return "out of memory in the arena (or its allocation table is full)";
    case TIGRIS_MEM_ERR_BAD_INDEX: return "tensor index out of range";
    case TIGRIS_MEM_ERR_NOT_SET: return "tensor has no data (pointer is NULL)";
    case TIGRIS_MEM_ERR_BAD_RANGE: return "tile rows outside the tensor, or band table full";
    default: return "unknown memory error";
    }
}
