/* tigris_host.c - one-call host execution of a plan (see tigris_host.h). */
#include "tigris_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_kernels.h"
#include "tigris_loader.h"
#include "tigris_mem.h"

#define HOST_SLACK ((uint32_t)TIGRIS_TENSOR_ALIGN * TIGRIS_MAX_FAST_ALLOCS)

/* Extension kernels (plugins' tigris_kernel_fn, docs/extending.md), tried in order before
 * the reference kernels. The build lists them as an X-macro, e.g.
 *   -D'TIGRIS_HOST_KERNELS(X)=X(ext_kernel) X(other_kernel)'
 * and links their sources; each returns TIGRIS_KERNEL_ERR_UNSUPPORTED for ops it does not run. */
#ifndef TIGRIS_HOST_KERNELS
#define TIGRIS_HOST_KERNELS(X)
#endif
#define HOST_DECLARE_KERNEL(fn) \
    int fn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem, void *user_ctx);
#define HOST_LIST_KERNEL(fn) fn,
TIGRIS_HOST_KERNELS(HOST_DECLARE_KERNEL)
static const tigris_kernel_fn HOST_KERNELS[] = {TIGRIS_HOST_KERNELS(HOST_LIST_KERNEL) NULL};

int tigris_host_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                       void *user_ctx) {
    size_t i;
    for (i = 0; HOST_KERNELS[i] != NULL; i++) {
        int rc = HOST_KERNELS[i](plan, op, op_index, mem, user_ctx);
        if (rc != TIGRIS_KERNEL_ERR_UNSUPPORTED) return rc;
    }
    return tigris_ref_kernel(plan, op, op_index, mem, user_ctx);
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1u) / a * a; }

static uint32_t at_most_u32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

uint32_t tigris_host_fast_size(const tigris_plan_t *plan) {
    uint32_t peak = 0;
    uint16_t s;
    for (s = 0; s < plan->header->num_stages; s++) {
        const tigris_stage_t *stage = &plan->stages[s];
        const tigris_tile_plan_t *tp = tigris_stage_tile_plan(plan, stage);
        uint32_t p = tp != NULL ? tp->peak : stage->peak;
        if (p > peak) peak = p;
    }
    return at_most_u32(align_up(plan->header->fast_reserved, TIGRIS_TENSOR_ALIGN) + peak + HOST_SLACK);
}

uint32_t tigris_host_slow_size(const tigris_plan_t *plan) {
    uint64_t total = HOST_SLACK;
    uint16_t t;
    for (t = 0; t < plan->header->num_tensors; t++) {
        if (plan->tensors[t].weight == TIGRIS_NONE16) total += align_up(plan->tensors[t].size, TIGRIS_TENSOR_ALIGN);
    }
    return at_most_u32(total);
}

/* Everything a session allocates, freed in one place (tigris_host_close). */
struct tigris_host_session {
    void *plan_raw, *fast_raw, *slow_raw;
    void **tensor_ptrs;
    tigris_mem_t *mem;
    tigris_plan_t plan;
    uint32_t fast_size, slow_size;
};

void tigris_host_close(tigris_host_session_t *s) {
    if (s == NULL) return;
    free(s->plan_raw);
    free(s->fast_raw);
    free(s->slow_raw);
    free(s->tensor_ptrs);
    free(s->mem);
    free(s);
}

static uint8_t *aligned(void *raw) {
    uintptr_t p = (uintptr_t)raw;
    return (uint8_t *)(p + ((64u - (p % 64u)) % 64u));
}

static uint64_t io_bytes(const tigris_plan_t *plan, const uint16_t *list, uint16_t n) {
    uint64_t total = 0;
    uint16_t i;
    for (i = 0; i < n; i++) total += plan->tensors[list[i]].size;
    return total;
}

static void message(char *err, uint32_t err_len, const char *what, const char *detail) {
    if (err != NULL && err_len > 0) snprintf(err, err_len, "%s: %s", what, detail);
}

static tigris_host_session_t *open_failed(char *err, uint32_t err_len, tigris_host_session_t *s, const char *what,
                                          const char *detail) {
    message(err, err_len, what, detail);
    tigris_host_close(s);
    return NULL;
}

static int fail(char *err, uint32_t err_len, const char *what, const char *detail) {
    message(err, err_len, what, detail);
    return -1;
}

/* Zero figures, and no failing stage, op or tensor (what a refusal before the run reports). */
static void clear_stats(uint32_t *stats) {
    if (stats == NULL) return;
    memset(stats, 0, sizeof(uint32_t) * TIGRIS_HOST_NUM_STATS);
    stats[TIGRIS_HOST_ERROR_STAGE] = stats[TIGRIS_HOST_ERROR_OP] = stats[TIGRIS_HOST_ERROR_TENSOR] = TIGRIS_NONE16;
}

static void fill_stats(tigris_exec_error_t err, const tigris_exec_stats_t *s, const tigris_mem_t *mem,
                       uint32_t *out) {
    out[TIGRIS_HOST_STAGES_NORMAL] = s->stages_normal;
    out[TIGRIS_HOST_STAGES_TILED] = s->stages_tiled;
    out[TIGRIS_HOST_STAGES_CHAIN] = s->stages_chain;
    out[TIGRIS_HOST_TOTAL_TILES] = s->total_tiles;
    out[TIGRIS_HOST_SLOW_OVERFLOW_COUNT] = s->slow_overflow_count;
    out[TIGRIS_HOST_SLOW_OVERFLOW_BYTES] = s->slow_overflow_bytes;
    out[TIGRIS_HOST_LOADS_BYTES] = s->loads_bytes;
    out[TIGRIS_HOST_SPILLS_BYTES] = s->spills_bytes;
    out[TIGRIS_HOST_COMPACTIONS] = s->compactions;
    out[TIGRIS_HOST_SLOW_PEAK] = s->slow_peak;
    out[TIGRIS_HOST_FAST_PEAK] = mem->counters.fast_peak;
    out[TIGRIS_HOST_ROW_CACHE_BYTES] = s->row_cache_bytes;
    out[TIGRIS_HOST_RECOMPUTED_ROWS] = s->recomputed_rows;
    out[TIGRIS_HOST_EXEC_ERROR] = (uint32_t)err;
    out[TIGRIS_HOST_ERROR_STAGE] = s->error_stage;
    out[TIGRIS_HOST_ERROR_OP] = s->error_op;
    out[TIGRIS_HOST_ERROR_TENSOR] = s->error_tensor;
    out[TIGRIS_HOST_KERNEL_ERROR] = (uint32_t)s->kernel_error;
}

/* The one-line message of a failed tigris_run: the op and the kernel's reason when an op failed. */
static void run_error(char *err, uint32_t err_len, const tigris_plan_t *plan, tigris_exec_error_t xerr,
                      const tigris_exec_stats_t *s) {
    const char *reason = xerr == TIGRIS_EXEC_ERR_KERNEL ? tigris_kernel_error_str(s->kernel_error)
                                                        : tigris_exec_error_str(xerr);
    if (err == NULL || err_len == 0) return;
    if (s->error_op < plan->header->num_ops) {
        const tigris_op_t *op = &plan->ops[s->error_op];
        snprintf(err, err_len, "op %u '%s' (op type %u): %s", (unsigned)s->error_op, tigris_op_name(plan, op),
                 (unsigned)op->op_type, reason);
    } else if (xerr == TIGRIS_EXEC_ERR_OUTPUT && s->error_tensor < plan->header->num_tensors) {
        snprintf(err, err_len, "model output '%s': %s", tigris_tensor_name(plan, &plan->tensors[s->error_tensor]),
                 reason);
    } else {
        snprintf(err, err_len, "run failed: %s", reason);
    }
}

tigris_host_session_t *tigris_host_open(const uint8_t *plan_bytes, uint32_t plan_len, uint32_t fast_size,
                                        uint32_t slow_size, char *err, uint32_t err_len) {
    tigris_host_session_t *s = (tigris_host_session_t *)calloc(1, sizeof(tigris_host_session_t));
    uint8_t *plan_buf;
    tigris_error_t lerr;
    if (s == NULL) return open_failed(err, err_len, s, "host", "out of memory");
    s->plan_raw = malloc((size_t)plan_len + 64u);
    if (s->plan_raw == NULL) return open_failed(err, err_len, s, "host", "out of memory");
    plan_buf = aligned(s->plan_raw);
    memcpy(plan_buf, plan_bytes, plan_len);
    lerr = tigris_plan_load(plan_buf, plan_len, &s->plan);
    if (lerr != TIGRIS_OK) return open_failed(err, err_len, s, "cannot load the plan", tigris_error_str(lerr));
    s->fast_size = fast_size != 0 ? fast_size : tigris_host_fast_size(&s->plan);
    s->slow_size = slow_size != 0 ? slow_size : tigris_host_slow_size(&s->plan);
    s->fast_raw = malloc((size_t)s->fast_size + 64u);
    s->slow_raw = malloc((size_t)s->slow_size + 64u);
    s->tensor_ptrs = (void **)calloc(s->plan.header->num_tensors + 1u, sizeof(void *));
    s->mem = (tigris_mem_t *)calloc(1, sizeof(tigris_mem_t));
    if (s->fast_raw == NULL || s->slow_raw == NULL || s->tensor_ptrs == NULL || s->mem == NULL)
        return open_failed(err, err_len, s, "host", "out of memory");
    return s;
}

int tigris_host_infer(tigris_host_session_t *s, const uint8_t *inputs, uint32_t inputs_len, uint8_t *outputs,
                      uint32_t outputs_len, uint32_t *stats, char *err, uint32_t err_len) {
    const tigris_plan_t *plan = &s->plan;
    tigris_exec_stats_t run_stats;
    tigris_mem_error_t merr;
    tigris_exec_error_t xerr;
    uint16_t i;
    uint32_t pos = 0;

    clear_stats(stats);
    if (io_bytes(plan, plan->model_inputs, plan->num_model_inputs) != inputs_len)
        return fail(err, err_len, "inputs", "byte count does not match the plan's model inputs");
    if (io_bytes(plan, plan->model_outputs, plan->num_model_outputs) != outputs_len)
        return fail(err, err_len, "outputs", "byte count does not match the plan's model outputs");
    merr = tigris_mem_init(s->mem, s->tensor_ptrs, plan->header->num_tensors, aligned(s->fast_raw), s->fast_size,
                           aligned(s->slow_raw), s->slow_size);
    if (merr != TIGRIS_MEM_OK) return fail(err, err_len, "memory", tigris_mem_error_str(merr));
    for (i = 0; i < plan->num_model_inputs; i++) {
        uint16_t t = plan->model_inputs[i];
        uint32_t size = plan->tensors[t].size;
        merr = tigris_mem_alloc_slow(s->mem, t, size);
        if (merr != TIGRIS_MEM_OK) return fail(err, err_len, "model input", tigris_mem_error_str(merr));
        memcpy(s->tensor_ptrs[t], inputs + pos, size);
        pos += size;
    }
    xerr = tigris_run(plan, s->mem, tigris_host_kernel, NULL, &run_stats);
    if (stats != NULL) fill_stats(xerr, &run_stats, s->mem, stats);
    if (xerr != TIGRIS_EXEC_OK) {
        run_error(err, err_len, plan, xerr, &run_stats);
        return -1;
    }
    pos = 0;
    for (i = 0; i < plan->num_model_outputs; i++) {
        uint16_t t = plan->model_outputs[i];
        if (s->tensor_ptrs[t] == NULL) return fail(err, err_len, "run failed", "a model output was not produced");
        memcpy(outputs + pos, s->tensor_ptrs[t], plan->tensors[t].size);
        pos += plan->tensors[t].size;
    }
    return 0;
}

int tigris_host_run(const uint8_t *plan_bytes, uint32_t plan_len, const uint8_t *inputs, uint32_t inputs_len,
                    uint8_t *outputs, uint32_t outputs_len, uint32_t fast_size, uint32_t slow_size,
                    uint32_t *stats, char *err, uint32_t err_len) {
    tigris_host_session_t *s;
    int rc;
    clear_stats(stats);
    s = tigris_host_open(plan_bytes, plan_len, fast_size, slow_size, err, err_len);
    if (s == NULL) return -1;
    rc = tigris_host_infer(s, inputs, inputs_len, outputs, outputs_len, stats, err, err_len);
    tigris_host_close(s);
    return rc;
}
