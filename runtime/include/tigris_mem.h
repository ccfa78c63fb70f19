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

/* One tensor held as a height band (2-D tiles: a window of rows x columns) while a tiled
 * stage or chain runs. The resident bytes are [N][h_end - h_start][columns][C], channels-last. */
typedef struct {
    uint16_t tensor;
    uint16_t reserved;
    int32_t h_start;  /* first resident row (full-tensor coordinates) */
    int32_t h_end;    /* one past the last resident row */
    void *slow_ptr;   /* the full tensor in slow memory, or NULL (chain intermediate) */
    int32_t w_start;  /* 2-D tiles: first resident column; with w_end 0, every column */
    int32_t w_end;    /* 2-D tiles: one past the last resident column; 0: whole rows (the default) */
} tigris_band_t;

/* A tensor a row-cache group keeps in a slot across its tiles (docs/tgrs-format.md, "Row
 * caches"): its band lives in the slot, the rows earlier tiles produced stay there, and its
 * producer computes (a load copies) only the rows after them. The executor's state, kept here
 * because it outlives a tile; kernels never look at it. */
typedef struct {
    uint16_t tensor;
    uint16_t reserved;
    int32_t done;       /* rows [0, done) are computed or loaded (once a tile is prepared: this tile's too) */
    int32_t fresh;      /* this tile: the first row its producer computes or its load copies */
    int32_t start;      /* the first row the slot holds (at the slot's start) */
    int32_t end;        /* one past the last row the slot holds */
    uint32_t offset;    /* of the slot from tile.acc (aligned) */
    uint32_t rows;      /* the slot's capacity in rows: the tensor's tallest band over the tiles */
    uint32_t row_bytes; /* bytes of one row; a tensor without rows to cut is one row of its size */
} tigris_row_cache_t;

/* Tile context: which rows of which tensors are resident during one tile. A stage run in
 * reduction tiles (docs/tgrs-format.md, "Reduction tiles") also names its accumulating op
 * and the accumulator that op keeps across the tiles (tigris_mem_set_acc); a group run with
 * row caches keeps its slots in that same region (caches, num_caches). */
typedef struct {
    uint16_t active;     /* nonzero while a tiled stage or chain runs */
    uint16_t num_bands;
    uint32_t tile_index; /* current tile, 0-based */
    uint16_t reduce_op;  /* reduction tiles: the op accumulating over the tiles, else TIGRIS_NONE16 */
    uint16_t num_caches; /* row caches: entries of caches in use (0 outside a row-cache group) */
    uint32_t acc_bytes;  /* bytes at acc; 0: no accumulator */
    void *acc;           /* the accumulator (or the row caches' slots): fast arena, after the reserved prefix */
    int32_t c_start;     /* reduction tiles in channel blocks: the block's first input channel */
    int32_t c_end;       /* one past its last; 0: every channel (no blocks) */
    tigris_band_t bands[TIGRIS_MAX_BANDS];
    tigris_row_cache_t caches[TIGRIS_MAX_BANDS]; /* in tensor-number order, as their slots */
} tigris_tile_ctx_t;

/* Running totals the executor reports in tigris_exec_stats_t. */
typedef struct {
    uint32_t loads_bytes;         /* taken from slow memory: copied to fast (load, load_tile, load_window), or read in place */
    uint32_t spills_bytes;        /* copied fast -> slow (spill, spill_tile, spill_window) */
    uint32_t compactions;         /* fast-arena compactions that ran */
    uint32_t slow_overflow_count; /* allocations (and loads) that fell back to slow memory */
    uint32_t slow_overflow_bytes;
    uint32_t slow_peak;           /* high-water mark of slow_used */
    uint32_t fast_peak;           /* most bytes live at once: reserved prefix, accumulator, live allocations (padded) */
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

/* Zeroes all tensor pointers, tables and counters (no tile, reduce_op none). fast_base /
 * slow_base become the buffers' first TIGRIS_TENSOR_ALIGN-aligned addresses (fast_size /
 * slow_size shrink by the skipped bytes), so every offset is aligned. A NULL buffer needs
 * size 0. */
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

/* Load rows [h_start, h_end) x columns [w_start, w_end) of an NHWC (channels-last) tensor
 * from slow memory (its current pointer) into a new fast window of N * rows * cols * pixel
 * bytes (same fallback as tigris_mem_alloc), and record the window (and the slow pointer) in
 * mem->tile. A column is one pixel of a row: row_bytes / W bytes, W being the width a kernel
 * view sees (tigris_mem_cols). Window layout: [N][h_end - h_start][w_end - w_start][pixel],
 * N x rows strided copies of cols * pixel bytes. Rank <= 2 tensors have one row of one
 * column. TIGRIS_MEM_ERR_BAD_RANGE for an empty range, one outside the tensor, a source
 * already in the fast arena or a full band table. Counts loads_bytes: the window's bytes. */
tigris_mem_error_t tigris_mem_load_window(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                          int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end);

/* tigris_mem_load_window of every column, recorded as whole rows (w_end 0): band layout
 * [N, h_end - h_start, row_bytes]. */
tigris_mem_error_t tigris_mem_load_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                        int32_t h_start, int32_t h_end);

/* Write rows [h_start, h_end) x columns [w_start, w_end) of the band or window currently at
 * tensor_ptrs[tensor_idx] (rows and columns given by tigris_mem_rows / tigris_mem_cols) into
 * the full tensor at slow_base (a slow allocation there must hold the whole tensor), then set
 * tensor_ptrs[tensor_idx] = slow_base and forget the band. Counts spills_bytes: the
 * rectangle's bytes. */
tigris_mem_error_t tigris_mem_spill_window(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                           void *slow_base, int32_t h_start, int32_t h_end, int32_t w_start,
                                           int32_t w_end);

/* Write channels [c_start, c_end) of every pixel of a tensor resident whole at
 * tensor_ptrs[tensor_idx] (rank >= 3, channels last) into the full tensor at slow_base (a slow
 * allocation there must hold it), then set tensor_ptrs[tensor_idx] = slow_base and forget its
 * band: the output of one channel block of reduction tiles. Counts spills_bytes: those
 * channels' bytes. */
tigris_mem_error_t tigris_mem_spill_channels(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                             void *slow_base, int32_t c_start, int32_t c_end);

/* Load features [k_start, k_end) of a rank-2 tensor [N, K] whose tensor_ptrs[tensor_idx] is its
 * full copy (not in the arena) as N rows of k_end - k_start values into a new fast allocation, and
 * record them as the tensor's band (rows [k_start, k_end): tigris_mem_rows reads them back; the
 * full copy is restored after the tile): an input block of a dense op in reduction blocks.
 * Counts loads_bytes: the block's bytes. */
tigris_mem_error_t tigris_mem_load_features(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                            int32_t k_start, int32_t k_end);

/* Write features [c_start, c_end) of a rank-2 tensor [N, M] into the full tensor at slow_base (a
 * slow allocation there must hold it) from its block resident at tensor_ptrs[tensor_idx]: an
 * allocation of the tensor holding N x (c_end - c_start) values, row n at n x (c_end - c_start).
 * Then set tensor_ptrs[tensor_idx] = slow_base and forget its band: the output of one
 * output-feature block. Counts spills_bytes: the block's bytes. */
tigris_mem_error_t tigris_mem_spill_features(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                             void *slow_base, int32_t c_start, int32_t c_end);

/* Copy rows [h_start, h_end) of every column of a tensor from its copy in slow memory (its
 * current pointer, which must not be in the fast arena) to dst, one row after the other (a
 * tensor without rows to cut, rank <= 2: rows [0, 1), its whole size): the new rows of a row
 * cache's slot, which the caller sized. Nothing is allocated and no band is recorded.
 * TIGRIS_MEM_ERR_BAD_RANGE for an empty range or one outside the tensor, or a batch of more
 * than one item (its rows are not contiguous). Counts loads_bytes as tigris_mem_load_tile does:
 * the rows' bytes. */
tigris_mem_error_t tigris_mem_load_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx, void *dst,
                                        int32_t h_start, int32_t h_end);

/* tigris_mem_spill_window of rows [h_start, h_end) of every column the band holds. */
tigris_mem_error_t tigris_mem_spill_tile(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                                         void *slow_base, int32_t h_start, int32_t h_end);

/* Bytes of rows [h_start, h_end) x columns [w_start, w_end) of a tensor as
 * tigris_mem_load_window holds them; 0 for an empty range or one outside the tensor. */
uint32_t tigris_mem_window_bytes(const tigris_plan_t *plan, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                 int32_t w_start, int32_t w_end);

/* Record that tensor_idx is held as rows [h_start, h_end) (the executor calls it for
 * bands it allocates itself, e.g. a band produced inside a tile). Replaces the
 * tensor's band if it has one; TIGRIS_MEM_ERR_BAD_RANGE if the range is empty or
 * the band table is full. */
tigris_mem_error_t tigris_mem_set_band(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                       void *slow_ptr);

/* tigris_mem_set_band for a 2-D tile: rows [h_start, h_end) x columns [w_start, w_end).
 * TIGRIS_MEM_ERR_BAD_RANGE also for an empty or negative column range. */
tigris_mem_error_t tigris_mem_set_window(tigris_mem_t *mem, uint16_t tensor_idx, int32_t h_start, int32_t h_end,
                                         int32_t w_start, int32_t w_end, void *slow_ptr);

/* Resident columns of a tensor: its band's window while a 2-D tile runs, else [0, W), W being
 * the width a kernel view sees (the product of the dims after H for rank >= 3, else 1).
 * [0, 0) for a NULL argument or an index out of range. */
void tigris_mem_cols(const tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t tensor_idx,
                     int32_t *w_start, int32_t *w_end);

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
 * offset starts after it (aligned). Only valid when nothing else is allocated and no
 * accumulator is held (else TIGRIS_MEM_ERR_BAD_RANGE); TIGRIS_MEM_ERR_OOM if it
 * exceeds the arena. */
tigris_mem_error_t tigris_mem_set_reserved(tigris_mem_t *mem, uint32_t bytes);

/* Hold `bytes` of the fast arena right after the reserved prefix (both aligned) as the
 * accumulator of a reduction stage: mem->tile.acc points to it and mem->tile.acc_bytes
 * is `bytes` (0 releases it: acc NULL). Allocation, compaction and tigris_mem_reset_fast
 * start after it, so it keeps its bytes across the tiles; fast_peak counts it. LZ4
 * blocks are decompressed into the reserved prefix only, never into it. Only valid when
 * nothing else is allocated (else TIGRIS_MEM_ERR_BAD_RANGE); TIGRIS_MEM_ERR_OOM if it
 * does not fit. */
tigris_mem_error_t tigris_mem_set_acc(tigris_mem_t *mem, uint32_t bytes);

/* Rewind the fast bump pointer to fast_reserved (aligned), and past the accumulator
 * if one is held, and forget fast allocations and bands. Does not touch tensor_ptrs. */
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
