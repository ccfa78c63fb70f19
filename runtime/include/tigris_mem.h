/* tigris_mem.h - the memory manager: fast arena (SRAM) and slow buffer (PSRAM).
 *
 * Both are bump allocators over caller-provided buffers (spec/memory-model.md).
 * Each allocation is recorded in a fixed table so that freed tensors can be
 * reclaimed by compaction (fast) or after a stage (slow); no heap is used.
 */
#ifndef TIGRIS_MEM_H
#define TIGRIS_MEM_H

#include "tigris.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_MEM_OK = 0,
    TIGRIS_MEM_ERR_NULL = -1,      /* null pointer argument */
    TIGRIS_MEM_ERR_OOM = -2,       /* out of memory in the arena (or its allocation table is full) */
    TIGRIS_MEM_ERR_BAD_INDEX = -3, /* tensor index >= num_tensors */
    TIGRIS_MEM_ERR_NOT_SET = -4,   /* tensor pointer is NULL (load/spill source) */
    TIGRIS_MEM_ERR_BAD_RANGE = -5  /* tile rows outside the tensor, or band table full */
} tigris_mem_error_t;

/* `refs` of a slow allocation made by tigris_mem_alloc when the fast arena was full:
 * an intra-stage tensor, dropped by tigris_mem_free_overflow at the end of the stage
 * or tile (unless tigris_mem_spill kept it as the tensor's slow copy). */
#define TIGRIS_ALLOC_OVERFLOW 0xFFFFu

/* One live allocation of an arena. */
typedef struct {
    uint16_t tensor;  /* tensor index */
    uint16_t refs;    /* fast: consumers left in the stage (0: free, reclaimable);
                         slow: 0 for a tensor kept between stages, TIGRIS_ALLOC_OVERFLOW */
    uint32_t offset;  /* from the (aligned) arena base */
    uint32_t size;    /* bytes, before alignment padding */
} tigris_alloc_t;

/* One tensor held as a height band while a tiled stage or chain runs. */
typedef struct {
    uint16_t tensor;
    uint16_t reserved;
    int32_t h_start;  /* first resident row (full-tensor coordinates) */
    int32_t h_end;    /* one past the last resident row */
    void *slow_ptr;   /* the full tensor in slow memory, or NULL (chain intermediate) */
} tigris_band_t;

/* Tile context: which rows of which tensors are resident during one tile. */
typedef struct {
    uint16_t active;     /* nonzero while a tiled stage or chain runs */
    uint16_t num_bands;
    uint32_t tile_index; /* current tile, 0-based */
    tigris_band_t bands[TIGRIS_MAX_BANDS];
} tigris_tile_ctx_t;

/* Running totals the executor reports in tigris_exec_stats_t. */
typedef struct {
    uint32_t loads_bytes;         /* taken from slow memory: copied to fast (load, load_tile), or read in place */
    uint32_t spills_bytes;        /* copied fast -> slow (spill, spill_tile) */
    uint32_t compactions;         /* fast-arena compactions that ran */
    uint32_t slow_overflow_count; /* allocations (and loads) that fell back to slow memory */
    uint32_t slow_overflow_bytes;
    uint32_t slow_peak;           /* high-water mark of slow_used */
    uint32_t fast_peak;           /* high-water mark of fast_used (reserved prefix included) */
} tigris_mem_counters_t;

typedef struct {
    void **tensor_ptrs;
    uint16_t num_tensors;
    uint8_t *fast_base;
    uint32_t fast_size;
    uint32_t fast_used;
    uint32_t fast_reserved;
    uint8_t *slow_base;
    uint32_t slow_size;
    uint32_t slow_used;
    tigris_tile_ctx_t tile;
    /* Additions to spec/c-api.md */
    uint16_t num_fast_allocs;
    uint16_t num_slow_allocs;
    tigris_alloc_t fast_allocs[TIGRIS_MAX_FAST_ALLOCS]; /* in address order */
    tigris_alloc_t slow_allocs[TIGRIS_MAX_SLOW_ALLOCS]; /* in address order */
    tigris_mem_counters_t counters;
} tigris_mem_t;

/* Zeroes all tensor pointers, tables and counters. fast_base / slow_base become the
 * buffers' first TIGRIS_TENSOR_ALIGN-aligned addresses (fast_size / slow_size shrink
 * by the skipped bytes), so every offset is aligned. A NULL buffer needs size 0. */
tigris_mem_error_t tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors,
                                   void *fast_buf, uint32_t fast_size, void *slow_buf, uint32_t slow_size);

/* Bump-allocate in the fast arena / slow buffer; sets tensor_ptrs[tensor_idx].
 * A fast allocation starts with refs 1 (tigris_mem_set_refs). alloc_slow compacts the
 * slow buffer (tigris_mem_compact_slow) and retries when it runs out. */
tigris_mem_error_t tigris_mem_alloc_fast(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);
tigris_mem_error_t tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);

/* Allocate in fast memory; if it does not fit, compact and retry; if it still
 * does not fit, overflow to slow memory (counted; refs TIGRIS_ALLOC_OVERFLOW).
 * Used for intra-stage tensors. */
tigris_mem_error_t tigris_mem_alloc(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);

/* Allocate in fast memory (compacting if needed) and copy from the current (slow)
 * location; tensor_ptrs[tensor_idx] then points to the fast copy. If it does not fit
 * even after compaction, the tensor overflows to slow memory where it already is: it
 * is read in place (counted as an overflow, nothing is copied or allocated). A tensor
 * already in the fast arena is left as it is. Counts loads_bytes (bytes the stage
 * takes from slow memory, copied or read in place). */
tigris_mem_error_t tigris_mem_load(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);

/* Allocate in slow memory and copy from the current (fast) location; counts
 * spills_bytes. If the tensor already has a slow copy of at least size_bytes it is
 * overwritten in place; if the tensor is an overflow allocation (already in slow
 * memory), that allocation becomes its slow copy and nothing is copied. */
tigris_mem_error_t tigris_mem_spill(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes);

/* Load rows [h_start, h_end) of an NHWC (channels-last) tensor from slow memory
 * (its current pointer) into a new fast band of N * rows * row_bytes bytes (same
 * fallback as tigris_mem_alloc), and record the band (and the slow pointer) in
 * mem->tile. Band layout: [N, h_end - h_start, row_bytes]. Rank <= 2 tensors have
 * one row. Counts loads_bytes. */
tigris_mem_error_t tigris_mem_load_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                        int32_t h_start, int32_t h_end);

/* Write rows [h_start, h_end) of the band currently at tensor_ptrs[tensor_idx]
 * (rows given by tigris_mem_rows) into the full tensor at slow_base, then set
 * tensor_ptrs[tensor_idx] = slow_base and forget the band. Counts spills_bytes. */
tigris_mem_error_t tigris_mem_spill_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                         void *slow_base, int32_t h_start, int32_t h_end);

/* Record that tensor_idx is held as rows [h_start, h_end) (the executor calls it for
 * bands it allocates itself, e.g. a band produced inside a tile). Replaces the
 * tensor's band if it has one; TIGRIS_MEM_ERR_BAD_RANGE if the range is empty or
 * the band table is full. */
tigris_mem_error_t tigris_mem_set_band(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                       void *slow_ptr);

/* Resident rows of a tensor: its band while a tile runs, else [0, rows).
 * [0, 0) for a NULL argument or an index out of range. */
void tigris_mem_rows(const tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                     int32_t *h_start, int32_t *h_end);

/* Reference counting of fast allocations within a stage: set the number of
 * consumers, release one use (at zero the space is reclaimable by compaction).
 * Both act on the tensor's latest fast allocation; for a tensor that is not in the
 * fast arena (overflowed to slow memory) they do nothing; TIGRIS_MEM_ERR_NOT_SET
 * if the tensor has no data at all. */
tigris_mem_error_t tigris_mem_set_refs(tigris_mem_t *mem, uint16_t tensor_idx, uint16_t refs);
tigris_mem_error_t tigris_mem_release(tigris_mem_t *mem, uint16_t tensor_idx);

/* Shift live fast allocations down over freed ones (updating tensor_ptrs);
 * returns the bytes reclaimed. */
uint32_t tigris_mem_compact_fast(tigris_mem_t *mem);

/* Drop a tensor's slow copy (tensor_ptrs[tensor_idx] becomes NULL if it pointed
 * there); tigris_mem_compact_slow then shifts the live allocations down over the
 * holes, updating tensor_ptrs and the bands' slow pointers. The executor frees what
 * no later stage reads, then compacts once. NOT_SET if the tensor has no slow copy. */
tigris_mem_error_t tigris_mem_free_slow(tigris_mem_t *mem, uint16_t tensor_idx);
void tigris_mem_compact_slow(tigris_mem_t *mem);

/* Drop every overflow allocation (TIGRIS_ALLOC_OVERFLOW) from the slow buffer;
 * tensor_ptrs that pointed to them become NULL. */
void tigris_mem_free_overflow(tigris_mem_t *mem);

/* The tensor's copy in the slow buffer (kept between stages), or NULL. */
void *tigris_mem_slow_ptr(const tigris_mem_t *mem, uint16_t tensor_idx);

/* Reserve the first `bytes` of the fast arena (decompressed weights); the bump
 * offset starts after it (aligned). Only valid when nothing else is allocated
 * (else TIGRIS_MEM_ERR_BAD_RANGE); TIGRIS_MEM_ERR_OOM if it exceeds the arena. */
tigris_mem_error_t tigris_mem_set_reserved(tigris_mem_t *mem, uint32_t bytes);

/* Rewind the fast bump pointer to fast_reserved (aligned) and forget fast
 * allocations and bands. Does not touch tensor_ptrs. */
void tigris_mem_reset_fast(tigris_mem_t *mem);

static inline void *tigris_mem_tensor_ptr(const tigris_mem_t *mem, uint16_t idx) {
    if (mem == NULL || idx >= mem->num_tensors) return NULL;
    return mem->tensor_ptrs[idx];
}

const char *tigris_mem_error_str(tigris_mem_error_t err);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_MEM_H */
