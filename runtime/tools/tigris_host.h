/* tigris_host.h - run a plan on a host in one call (the host runner and the Python binding).
 *
 * This is an embedding application of the runtime, not part of it: it may use
 * malloc for the arenas and tensor table, which a firmware would place statically.
 */
#ifndef TIGRIS_HOST_H
#define TIGRIS_HOST_H

#include <stdint.h>

#include "tigris_executor.h"

/* Figures of one run, in this order, as uint32 (the binding reads them as an array), then
 * where a failed run stopped (tigris_exec_stats_t's error fields, TIGRIS_NONE16 / 0 when
 * they do not apply), filled on success and on failure. */
enum {
    TIGRIS_HOST_STAGES_NORMAL,
    TIGRIS_HOST_STAGES_TILED,
    TIGRIS_HOST_STAGES_CHAIN,
    TIGRIS_HOST_TOTAL_TILES,
    TIGRIS_HOST_SLOW_OVERFLOW_COUNT,
    TIGRIS_HOST_SLOW_OVERFLOW_BYTES,
    TIGRIS_HOST_LOADS_BYTES,
    TIGRIS_HOST_SPILLS_BYTES,
    TIGRIS_HOST_COMPACTIONS,
    TIGRIS_HOST_SLOW_PEAK,
    TIGRIS_HOST_FAST_PEAK,
    TIGRIS_HOST_ROW_CACHE_BYTES, /* tigris_exec_stats_t row_cache_bytes */
    TIGRIS_HOST_RECOMPUTED_ROWS, /* tigris_exec_stats_t recomputed_rows */
    TIGRIS_HOST_NUM_FIGURES,
    TIGRIS_HOST_EXEC_ERROR = TIGRIS_HOST_NUM_FIGURES, /* tigris_exec_error_t (as uint32), 0: none */
    TIGRIS_HOST_ERROR_STAGE,
    TIGRIS_HOST_ERROR_OP,
    TIGRIS_HOST_ERROR_TENSOR,
    TIGRIS_HOST_KERNEL_ERROR, /* the kernel's return code (as uint32) */
    TIGRIS_HOST_NUM_STATS
};

/* Fast-arena bytes the plan needs: fast_reserved plus the largest stage peak
 * (tile-plan peak for tiled stages), with alignment slack; UINT32_MAX if that does not fit. */
uint32_t tigris_host_fast_size(const tigris_plan_t *plan);

/* Slow-buffer bytes that always suffice: every activation tensor at once, aligned
 * (UINT32_MAX if that does not fit). */
uint32_t tigris_host_slow_size(const tigris_plan_t *plan);

/* The host's tigris_kernel_fn: the extension kernels this file was built with
 * (TIGRIS_HOST_KERNELS, see tigris_host.c), then tigris_ref_kernel. */
int tigris_host_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx);

/* A plan loaded once (bytes copied, CRC checked) with its arenas, run any number of times: what
 * a firmware does (load at boot, infer per input), and how a host times inference alone. */
typedef struct tigris_host_session tigris_host_session_t;

/* Load `plan_bytes` (copied to an aligned buffer, checked by tigris_plan_load) and allocate the
 * arenas (fast_size / slow_size 0: the sizes above). NULL with a one-line message in err if the
 * plan is refused or memory runs out. Free with tigris_host_close. */
tigris_host_session_t *tigris_host_open(const uint8_t *plan_bytes, uint32_t plan_len, uint32_t fast_size,
                                        uint32_t slow_size, char *err, uint32_t err_len);

/* One inference on an open session: the arenas are reset, then as tigris_host_run below from
 * "fill the model inputs" on (same arguments, same stats and errors). */
int tigris_host_infer(tigris_host_session_t *session, const uint8_t *inputs, uint32_t inputs_len, uint8_t *outputs,
                      uint32_t outputs_len, uint32_t *stats, char *err, uint32_t err_len);

/* Free a session (NULL is a no-op). */
void tigris_host_close(tigris_host_session_t *session);

/* Load `plan_bytes` (copied to an aligned buffer), fill the model inputs from
 * `inputs` (their bytes concatenated in model-input order, runtime layout), run
 * with tigris_host_kernel, and copy the model outputs to `outputs` likewise.
 * fast_size / slow_size 0 mean the sizes above. stats (TIGRIS_HOST_NUM_STATS
 * entries) may be NULL. Returns 0, or -1 with a one-line message in err (a failing
 * op is named: "op 12 'conv_3' (op type 1): <the kernel's reason>"). Open, infer, close. */
int tigris_host_run(const uint8_t *plan_bytes, uint32_t plan_len, const uint8_t *inputs, uint32_t inputs_len,
                    uint8_t *outputs, uint32_t outputs_len, uint32_t fast_size, uint32_t slow_size,
                    uint32_t *stats, char *err, uint32_t err_len);

#endif /* TIGRIS_HOST_H */
