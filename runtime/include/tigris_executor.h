/* tigris_executor.h - run a loaded plan: stages in order, normal, tiled or chained.
 *
 * The compiler decides, the runtime executes and checks: tile heights, tile
 * counts and chains come from the plan; the executor only derives, per tile,
 * which rows of each tensor the plan's ops need (as the compiler's bands do).
 */
#ifndef TIGRIS_EXECUTOR_H
#define TIGRIS_EXECUTOR_H

#include "tigris.h"
#include "tigris_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_EXEC_OK = 0,
    TIGRIS_EXEC_ERR_NULL = -1,      /* null pointer argument */
    TIGRIS_EXEC_ERR_MEM = -2,       /* memory allocation failed (fast and slow exhausted) */
    TIGRIS_EXEC_ERR_KERNEL = -3,    /* kernel callback returned an error */
    TIGRIS_EXEC_ERR_NO_STAGES = -4, /* plan has no stages */
    TIGRIS_EXEC_ERR_TILE = -5,      /* tiled execution error (band peak > arena, band table full, ...) */
    TIGRIS_EXEC_ERR_INPUT = -6,     /* a model input was not allocated by the caller */
    TIGRIS_EXEC_ERR_WEIGHTS = -7,   /* a weight block failed to decompress or does not fit */
    TIGRIS_EXEC_ERR_PLAN = -8,      /* an index or pool reference of the plan is out of range, or a
                                       tiled stage's output is produced by none of its ops */
    TIGRIS_EXEC_ERR_OUTPUT = -9     /* the stages ran but a model output is not in the slow buffer */
} tigris_exec_error_t;

/* Called once per op (per tile, in tiled stages). Input and output tensor
 * pointers are set in mem (constants included); in a tile, tigris_mem_rows says
 * which rows each tensor holds (in a 2-D tile tigris_mem_cols which columns too), and
 * the kernel computes its output's rows (columns). In a
 * reduction stage the op with op_index == mem->tile.reduce_op instead accumulates its
 * input's rows into mem->tile.acc (mem->tile.acc_bytes bytes, kept across the tiles:
 * it starts the sums at row 0) and writes its whole output when the band ends at the
 * input's last row. In a group run with row caches, an output kept in a slot is given as the
 * rows its kernel computes (tigris_mem_rows) at a pointer aligned to a row of it, not to
 * TIGRIS_TENSOR_ALIGN (the rows before them, kept from the previous tile, are just below).
 * Returns 0 on success, negative on error. */
typedef int (*tigris_kernel_fn)(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                tigris_mem_t *mem, void *user_ctx);

typedef struct {
    uint16_t stages_normal;       /* stages executed without tiling */
    uint16_t stages_tiled;        /* stages executed with spatial or reduction tiles (not in a chain) */
    uint16_t stages_chain;        /* stages executed as part of a chain */
    uint16_t total_tiles;         /* tile iterations: a tiled stage's tiles (2-D: num_tiles x num_tiles_w) plus each chain's tiles once */
    uint32_t slow_overflow_count; /* intra-stage allocations that overflowed to slow */
    uint32_t slow_overflow_bytes; /* total bytes overflowed to slow */
    uint32_t loads_bytes;         /* total bytes loaded slow -> fast */
    uint32_t spills_bytes;        /* total bytes spilled fast -> slow */
    uint32_t compactions;         /* fast-pool compactions */
    uint32_t slow_peak;           /* high-water mark of slow_used */
    /* Where an error happened (TIGRIS_NONE16 / 0 when it does not apply, and on success): */
    uint16_t error_stage;         /* the stage running (a chain: the stage of the failing op) */
    uint16_t error_op;            /* the op whose kernel failed or whose operands could not be placed */
    uint16_t error_tensor;        /* the tensor that could not be placed, or the model output missing */
    uint16_t reserved;
    int32_t kernel_error;         /* TIGRIS_EXEC_ERR_KERNEL: what the kernel returned (tigris_kernel_error_t
                                     for tigris_ref_kernel, tigris_kernel_error_str says it in words) */
    uint32_t row_cache_bytes;     /* the largest acc_bytes of a group run with row caches (its slots); 0: none */
    uint32_t recomputed_rows;     /* rows the ops of row-tiled groups computed more than once: over the tiles,
                                     each op output's band rows (a cached one: the rows its slot did not hold)
                                     minus the output's rows; a 2-D tile's rows once per column band */
} tigris_exec_stats_t;

/* Run inference. The caller loaded the plan, initialized mem with fast and slow
 * buffers, and allocated the model inputs in slow memory (tigris_mem_alloc_slow)
 * with their data filled in (channels-last). On TIGRIS_EXEC_OK the model outputs are
 * in the slow buffer (tigris_mem_tensor_ptr; the executor checks this before it
 * returns OK, else TIGRIS_EXEC_ERR_OUTPUT); every other activation has been freed.
 * stats may be NULL; it is filled on every return (the byte and count figures are
 * what this call added to mem->counters; on an error, error_stage, error_op,
 * error_tensor and kernel_error say where and why, without heap or stdio).
 *
 * Stages run in order. A normal stage loads its inputs into the fast arena, runs
 * its ops (outputs allocated with tigris_mem_alloc, inputs released after their
 * last use) and spills its outputs. A tiled stage, or a chain of stages sharing a
 * tile plan, runs once per tile of its tile plan: the executor derives each
 * tensor's rows for the tile (as the compiler's bands), loads the bands of the
 * (first stage's) inputs, runs the ops on bands and writes the tile's rows of the
 * (last stage's) outputs into full tensors in slow memory. A stage in 2-D tiles (tile_w > 0)
 * runs tile_h x tile_w tiles in row-major order, each tensor held as a window of rows x
 * columns where it has a W axis to cut. A reduction stage (a tile
 * plan with reduce_op) cuts its tiles from the rows of its accumulating op's input
 * instead: that op keeps an accumulator at the bottom of the arena (after the
 * reserved prefix) across the tiles, and the stage's outputs are spilled whole after
 * the last tile. A group whose tile plan has TIGRIS_TILE_ROW_CACHE keeps the tensors its ops read
 * through overlapping rows in slots at the same place across its tiles, each tile computing
 * (loading) only the rows the slots do not hold yet (docs/tgrs-format.md, "Row caches"). A
 * tile plan whose peak exceeds the arena (fast_size minus the reserved
 * prefix) is refused with TIGRIS_EXEC_ERR_TILE. With LZ4, a stage's weight block is
 * decompressed into the reserved prefix before its ops run (unless it is already there). */
tigris_exec_error_t tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel,
                               void *user_ctx, tigris_exec_stats_t *stats);

const char *tigris_exec_error_str(tigris_exec_error_t err);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_EXECUTOR_H */
