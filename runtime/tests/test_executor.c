/* test_executor.c - run a .tgrs plan through tigris_run with a checking test kernel.
 *
 *   test_executor PLAN [--fast BYTES] [--slow BYTES] [--fail-op K] [--no-input K] [--api] [--threads]
 *
 * The test kernel gives every activation a known content: byte b of row r of batch
 * item n of tensor t is val(t, n, r, b). Model inputs are filled with it; each
 * kernel call checks every resident row of its activation inputs against it (so a
 * wrong band, a lost spill or a bad compaction shows up as BAD data), checksums its
 * constant inputs, and writes val into every resident row of its outputs. In a 2-D tile a
 * tensor held as a window of columns [ws, we) holds bytes [ws, we) x (row bytes / W) of each
 * resident row. It logs
 *   call op=K tile=T out=t:s:e ... in=t:s:e ... win=t:ws:we ... w=t:fnv32 ... [acc=offset:bytes]
 * per call (tile -1 outside tiled stages; win: the columns of an operand held as a window;
 * acc: the op accumulates over reduction tiles, its accumulator is at that offset of the fast
 * arena), then the run's figures as key=value lines.
 * After the run every model output must hold val in every row (outputs_ok=1).
 *
 * Built with -DTEST_USE_LOADER it parses the plan with tigris_plan_load, else with
 * the small parser below. Built with -DTEST_NO_HEAP and
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free, any heap call from
 * the linked objects (the runtime) aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_executor.h"
#include "tigris_loader.h"
#include "tigris_mem.h"

#ifdef TEST_NO_HEAP
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_malloc(size_t n) { (void)n; abort(); }
void *__wrap_calloc(size_t n, size_t m) { (void)n; (void)m; abort(); }
void *__wrap_realloc(void *p, size_t n) { (void)p; (void)n; abort(); }
void __wrap_free(void *p) { (void)p; abort(); }
#endif

#define PLAN_CAP (4u << 20)
#define FAST_CAP (2u << 20)
#define SLOW_CAP (16u << 20)

static uint64_t plan_buf[PLAN_CAP / 8];
static uint64_t fast_buf[FAST_CAP / 8];
static uint64_t slow_buf[SLOW_CAP / 8];
static void *ptrs[65536];
static tigris_mem_t mem;

typedef struct {
    long fail_op;
    int bad;
    int quiet;
} kctx_t;

static uint8_t val(uint32_t t, uint32_t n, int32_t r, uint32_t b) {
    return (uint8_t)(t * 31u + n * 17u + (uint32_t)r * 7u + b * 3u + 1u);
}

static uint32_t fnv32(const uint8_t *p, uint32_t n) {
    uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static int is_const(const tigris_plan_t *plan, uint16_t t) { return plan->tensors[t].weight != TIGRIS_NONE16; }

/* Batch, rows, bytes per row (rank <= 2: one row of all bytes). */
static void geometry(const tigris_plan_t *plan, uint16_t t, uint32_t *n, int32_t *rows, uint32_t *rb) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    if (tt->ndim < 3) {
        *n = 1;
        *rows = 1;
        *rb = tt->size;
        return;
    }
    *n = (uint32_t)tigris_tensor_shape(plan, tt)[0];
    *rows = tigris_tensor_rows(plan, tt);
    *rb = tigris_tensor_row_bytes(plan, tt);
}

/* Check (write = 0) or write val into rows [s, e) x columns [c0, c1) of tensor t held at p as
 * a band (c0, c1: tigris_mem_cols; a column is row bytes / (c1 - c0 of the whole tensor)). */
static int rows_val(const tigris_plan_t *plan, const tigris_mem_t *m, uint16_t t, uint8_t *p, int32_t s, int32_t e,
                    int write) {
    uint32_t n, rb, k, b, pix, first, count;
    int32_t rows, r, c0, c1;
    geometry(plan, t, &n, &rows, &rb);
    tigris_mem_cols(m, plan, t, &c0, &c1);
    pix = tigris_mem_window_bytes(plan, t, 0, 1, 0, 1) / n; /* one pixel of every batch item, / n */
    first = (uint32_t)c0 * pix;
    count = (uint32_t)(c1 - c0) * pix;
    for (k = 0; k < n; k++) {
        for (r = s; r < e; r++) {
            uint8_t *row = p + ((size_t)k * (size_t)(e - s) + (size_t)(r - s)) * count;
            for (b = 0; b < count; b++) {
                if (write) row[b] = val(t, k, r, first + b);
                else if (row[b] != val(t, k, r, first + b)) return 0;
            }
        }
    }
    return 1;
}

/* Check (write = 0) or write val into features [f0, f1) of a rank-2 tensor [N, F] held at p as a
 * block: N rows of f1 - f0 values (a dense op's input in reduction blocks, its output in blocks of
 * output features). A rank-2 tensor is one row of all its bytes (geometry), so feature f of item k
 * is bytes (k F + f) x elem onwards of that row. */
static int features_val(const tigris_plan_t *plan, uint16_t t, uint8_t *p, int32_t f0, int32_t f1, int write) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    const int32_t *shape = tigris_tensor_shape(plan, tt);
    uint32_t elem = tigris_dtype_size(tt->dtype), k, b, width = (uint32_t)(f1 - f0) * elem;
    for (k = 0; k < (uint32_t)shape[0]; k++) {
        for (b = 0; b < width; b++) {
            uint32_t at = (k * (uint32_t)shape[1] + (uint32_t)f0) * elem + b;
            uint8_t *q = p + (size_t)k * width + b;
            if (write) *q = val(t, 0, 0, at);
            else if (*q != val(t, 0, 0, at)) return 0;
        }
    }
    return 1;
}

/* The columns of tensor t's band if it is a window (a 2-D tile); 0 for whole rows. */
static int window_of(const tigris_mem_t *m, uint16_t t, int32_t *w0, int32_t *w1) {
    uint16_t i;
    for (i = 0; i < m->tile.num_bands; i++) {
        if (m->tile.bands[i].tensor == t && m->tile.bands[i].w_end != 0) {
            *w0 = m->tile.bands[i].w_start;
            *w1 = m->tile.bands[i].w_end;
            return 1;
        }
    }
    return 0;
}

/* Fast-arena bytes held by tensors still in use (refs > 0), padded as allocated. */
static uint32_t live_bytes(const tigris_mem_t *m) {
    uint32_t total = 0;
    uint16_t i;
    for (i = 0; i < m->num_fast_allocs; i++) {
        if (m->fast_allocs[i].refs > 0)
            total += (m->fast_allocs[i].size + TIGRIS_TENSOR_ALIGN - 1u) / TIGRIS_TENSOR_ALIGN * TIGRIS_TENSOR_ALIGN;
    }
    return total;
}

/* An output pointer is aligned, or, for a tensor kept in a row cache's slot, the slot is and the
 * pointer is its row `s` (the first row the kernel computes: the rows before it are kept). */
static int output_placed(const tigris_mem_t *m, uint16_t t, int32_t s) {
    const uint8_t *p = (const uint8_t *)m->tensor_ptrs[t];
    uint16_t i;
    for (i = 0; m->tile.active && i < m->tile.num_caches; i++) {
        const tigris_row_cache_t *c = &m->tile.caches[i];
        const uint8_t *slot = (const uint8_t *)m->tile.acc + c->offset;
        if (c->tensor != t) continue;
        return ((uintptr_t)slot % TIGRIS_TENSOR_ALIGN) == 0 && s >= c->start && s < c->end &&
               p == slot + (size_t)(s - c->start) * c->row_bytes;
    }
    return ((uintptr_t)p % TIGRIS_TENSOR_ALIGN) == 0;
}

static int test_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *m,
                       void *user_ctx) {
    kctx_t *k = (kctx_t *)user_ctx;
    const uint16_t *ins = tigris_op_inputs(plan, op), *outs = tigris_op_outputs(plan, op);
    int32_t s, e;
    uint8_t j;
    int q;
    /* a dense op in blocks of its output features (docs/tgrs-format.md, "Output-feature blocks"):
     * its output holds the block; in reduction blocks its input 0 holds a block of K features */
    const int blocks = m->tile.active && m->tile.c_end != 0 && tigris_band_op_feature_blocks(op->op_type) &&
                       (m->tile.reduce_op == TIGRIS_NONE16 || m->tile.reduce_op == op_index);
    const int k_blocks = blocks && m->tile.reduce_op == op_index;
    if ((long)op_index == k->fail_op) return -7;
    if (!k->quiet) printf("call op=%u tile=%ld live=%lu", op_index, m->tile.active ? (long)m->tile.tile_index : -1L,
                          (unsigned long)live_bytes(m));
    for (j = 0; j < op->num_outputs; j++) {
        tigris_mem_rows(m, plan, outs[j], &s, &e);
        if (!k->quiet) printf(" out=%u:%ld:%ld", outs[j], (long)s, (long)e);
        if (m->tensor_ptrs[outs[j]] == NULL || !output_placed(m, outs[j], s)) {
            if (!k->quiet) printf(" BADPTR=%u", outs[j]);
            k->bad = 1;
        }
    }
    for (j = 0; j < op->num_inputs; j++) {
        uint16_t t = ins[j];
        const uint8_t *p = (const uint8_t *)m->tensor_ptrs[t];
        if (is_const(plan, t)) {
            if (!k->quiet) printf(" w=%u:%08lx", t, p == NULL ? 0ul : (unsigned long)fnv32(p, plan->tensors[t].size));
            if (p == NULL) k->bad = 1;
            continue;
        }
        tigris_mem_rows(m, plan, t, &s, &e);
        if (!k->quiet) printf(" in=%u:%ld:%ld", t, (long)s, (long)e);
        if (k_blocks && j == 0 ? p == NULL || !features_val(plan, t, (uint8_t *)(uintptr_t)p, s, e, 0)
                               : p == NULL || !rows_val(plan, m, t, (uint8_t *)(uintptr_t)p, s, e, 0)) {
            if (!k->quiet) printf(" BAD=%u", t);
            k->bad = 1;
        }
    }
    for (q = 0; !k->quiet && q < op->num_inputs + op->num_outputs; q++) { /* the operands held as windows */
        uint16_t t = q < op->num_inputs ? ins[q] : outs[q - op->num_inputs];
        if (!is_const(plan, t) && window_of(m, t, &s, &e)) printf(" win=%u:%ld:%ld", t, (long)s, (long)e);
    }
    if (!k->quiet && m->tile.active && m->tile.reduce_op == op_index) /* where the accumulator is */
        printf(" acc=%ld:%lu", m->tile.acc == NULL ? -1L : (long)((const uint8_t *)m->tile.acc - m->fast_base),
               (unsigned long)m->tile.acc_bytes);
    if (!k->quiet) printf("\n");
    for (j = 0; j < op->num_outputs; j++) {
        tigris_mem_rows(m, plan, outs[j], &s, &e);
        if (m->tensor_ptrs[outs[j]] == NULL) continue;
        if (blocks) features_val(plan, outs[j], (uint8_t *)m->tensor_ptrs[outs[j]], m->tile.c_start, m->tile.c_end, 1);
        else rows_val(plan, m, outs[j], (uint8_t *)m->tensor_ptrs[outs[j]], s, e, 1);
    }
    return k->bad ? -1 : 0;
}

#ifndef TEST_USE_LOADER
/* Enough of a loader for these tests (no validation: the plans come from write_plan). */
static int parse_plan(const uint8_t *buf, uint32_t len, tigris_plan_t *plan) {
    const tigris_file_header_t *h = (const tigris_file_header_t *)(const void *)buf;
    const tigris_section_t *secs = (const tigris_section_t *)(const void *)(buf + sizeof(*h));
    uint16_t i;
    memset(plan, 0, sizeof(*plan));
    if (len < sizeof(*h) || memcmp(h->magic, "TGRS", 4) != 0 || h->file_size != len) return -1;
    plan->header = h;
    for (i = 0; i < h->num_sections; i++) {
        const tigris_section_t *s = &secs[i];
        const void *p = buf + s->offset;
        if (s->offset > len || s->size > len - s->offset) return -1;
        switch (s->kind) {
        case TIGRIS_SECTION_TENSORS: plan->tensors = (const tigris_tensor_t *)p; break;
        case TIGRIS_SECTION_OPS: plan->ops = (const tigris_op_t *)p; break;
        case TIGRIS_SECTION_STAGES: plan->stages = (const tigris_stage_t *)p; break;
        case TIGRIS_SECTION_TILE_PLANS: plan->tile_plans = (const tigris_tile_plan_t *)p; break;
        case TIGRIS_SECTION_WEIGHT_ENTRIES: plan->weight_entries = (const tigris_weight_entry_t *)p; break;
        case TIGRIS_SECTION_WEIGHT_BLOCKS: plan->weight_blocks = (const tigris_weight_block_t *)p; break;
        case TIGRIS_SECTION_QUANT_PARAMS: plan->quant_params = (const tigris_quant_param_t *)p; break;
        case TIGRIS_SECTION_INDEX_POOL:
            plan->index_pool = (const uint16_t *)p;
            plan->index_pool_len = s->count;
            break;
        case TIGRIS_SECTION_SHAPE_POOL:
            plan->shape_pool = (const int32_t *)p;
            plan->shape_pool_len = s->count;
            break;
        case TIGRIS_SECTION_STRINGS: plan->strings = (const char *)p; break;
        case TIGRIS_SECTION_QUANT_DATA:
            plan->quant_data = (const int32_t *)p;
            plan->quant_data_len = s->count;
            break;
        case TIGRIS_SECTION_TABLES: plan->tables = (const int8_t *)p; break;
        case TIGRIS_SECTION_WEIGHT_BLOB: plan->weight_blob = (const uint8_t *)p; break;
        case TIGRIS_SECTION_WEIGHT_BLOCK_DATA: plan->weight_blocks_data = (const uint8_t *)p; break;
        default: return -1;
        }
    }
    plan->num_weight_blocks = h->num_weight_blocks;
    plan->num_quant_params = h->num_quant_params;
    plan->weight_compression = (h->flags & TIGRIS_FLAG_LZ4) ? TIGRIS_COMPRESSION_LZ4 : TIGRIS_COMPRESSION_NONE;
    plan->num_model_inputs = h->num_model_inputs;
    plan->num_model_outputs = h->num_model_outputs;
    plan->model_inputs = plan->index_pool + h->model_inputs;
    plan->model_outputs = plan->index_pool + h->model_outputs;
    return 0;
}
#else
static int parse_plan(const uint8_t *buf, uint32_t len, tigris_plan_t *plan) {
    tigris_error_t err = tigris_plan_load(buf, len, plan);
    if (err != TIGRIS_OK) printf("load_error=%s\n", tigris_error_str(err));
    return err == TIGRIS_OK ? 0 : -1;
}
#endif

/* Fresh memory with every model input (except `skip`) in slow memory, holding val. */
static int setup(const tigris_plan_t *plan, tigris_mem_t *m, void **tp, uint8_t *fast, uint32_t fast_size,
                 uint8_t *slow, uint32_t slow_size, long skip) {
    uint16_t i;
    memset(slow, 0xA5, slow_size);
    memset(fast, 0x5A, fast_size);
    if (tigris_mem_init(m, tp, plan->header->num_tensors, fast, fast_size, slow, slow_size) != TIGRIS_MEM_OK) return -1;
    for (i = 0; i < plan->num_model_inputs; i++) {
        uint16_t t = plan->model_inputs[i];
        int32_t rows;
        uint32_t n, rb;
        if ((long)i == skip) continue;
        if (tigris_mem_alloc_slow(m, t, plan->tensors[t].size) != TIGRIS_MEM_OK) return -1;
        geometry(plan, t, &n, &rows, &rb);
        rows_val(plan, m, t, (uint8_t *)tp[t], 0, rows, 1);
    }
    return 0;
}

/* Every model output holds val in every row, in slow memory. */
static int outputs_ok(const tigris_plan_t *plan, const tigris_mem_t *m) {
    uint16_t i;
    for (i = 0; i < plan->num_model_outputs; i++) {
        uint16_t t = plan->model_outputs[i];
        const uint8_t *p = (const uint8_t *)m->tensor_ptrs[t];
        uint32_t n, rb;
        int32_t rows;
        if (p == NULL || p < m->slow_base || p >= m->slow_base + m->slow_size) return 0;
        geometry(plan, t, &n, &rows, &rb);
        if (!rows_val(plan, m, t, (uint8_t *)(uintptr_t)p, 0, rows, 0)) return 0;
    }
    return 1;
}

/* Activations other than model outputs that still have a pointer after the run. */
static unsigned leftovers(const tigris_plan_t *plan, const tigris_mem_t *m) {
    unsigned count = 0;
    uint16_t t, i;
    for (t = 0; t < plan->header->num_tensors; t++) {
        int out = 0;
        for (i = 0; i < plan->num_model_outputs; i++) out |= plan->model_outputs[i] == t;
        if (!out && !is_const(plan, t) && m->tensor_ptrs[t] != NULL) count++;
    }
    return count;
}

static int g_fail;
#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond)) {                                                \
            g_fail++;                                                 \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                             \
    } while (0)

/* Stats with no figure and no error location (as tigris_run fills them first). */
static int zeroed(const tigris_exec_stats_t *st) {
    tigris_exec_stats_t z;
    memset(&z, 0, sizeof(z));
    z.error_stage = z.error_op = z.error_tensor = TIGRIS_NONE16;
    return memcmp(st, &z, sizeof(z)) == 0;
}

/* Argument checks and error codes that need no special plan. */
static void api_checks(const tigris_plan_t *plan, uint32_t fast_size, uint32_t slow_size) {
    static tigris_mem_t small;
    static void *few[2];
    tigris_exec_stats_t st;
    tigris_plan_t bad;
    tigris_file_header_t hdr;
    kctx_t k = {-1, 0, 1};
    uint8_t *fast = (uint8_t *)fast_buf, *slow = (uint8_t *)slow_buf;
    static const tigris_exec_error_t codes[] = {TIGRIS_EXEC_OK, TIGRIS_EXEC_ERR_NULL, TIGRIS_EXEC_ERR_MEM,
                                                TIGRIS_EXEC_ERR_KERNEL, TIGRIS_EXEC_ERR_NO_STAGES,
                                                TIGRIS_EXEC_ERR_TILE, TIGRIS_EXEC_ERR_INPUT,
                                                TIGRIS_EXEC_ERR_WEIGHTS, TIGRIS_EXEC_ERR_PLAN, TIGRIS_EXEC_ERR_OUTPUT};
    size_t i, j;

    CHECK(setup(plan, &mem, ptrs, fast, fast_size, slow, slow_size, -1) == 0);
    memset(&st, 0xFF, sizeof(st));
    CHECK(tigris_run(NULL, &mem, test_kernel, &k, &st) == TIGRIS_EXEC_ERR_NULL && zeroed(&st));
    CHECK(tigris_run(plan, NULL, test_kernel, &k, &st) == TIGRIS_EXEC_ERR_NULL && zeroed(&st));
    CHECK(tigris_run(plan, &mem, NULL, &k, &st) == TIGRIS_EXEC_ERR_NULL);
    bad = *plan;
    bad.header = NULL;
    CHECK(tigris_run(&bad, &mem, test_kernel, &k, NULL) == TIGRIS_EXEC_ERR_NULL);
    bad = *plan;
    bad.tensors = NULL;
    CHECK(tigris_run(&bad, &mem, test_kernel, &k, NULL) == TIGRIS_EXEC_ERR_NULL);
    /* no stages */
    hdr = *plan->header;
    hdr.num_stages = 0;
    bad = *plan;
    bad.header = &hdr;
    memset(&st, 0xFF, sizeof(st));
    CHECK(tigris_run(&bad, &mem, test_kernel, &k, &st) == TIGRIS_EXEC_ERR_NO_STAGES);
    CHECK(st.slow_peak == mem.counters.slow_peak); /* a high-water mark: the caller's inputs count */
    st.slow_peak = 0;
    CHECK(zeroed(&st));
    /* pool references out of range */
    bad = *plan;
    bad.index_pool_len = 0;
    CHECK(tigris_run(&bad, &mem, test_kernel, &k, NULL) == TIGRIS_EXEC_ERR_PLAN);
    /* a tensor table smaller than the plan's */
    CHECK(tigris_mem_init(&small, few, 2, fast, 1024, slow, 1024) == TIGRIS_MEM_OK);
    if (plan->header->num_tensors > 2) CHECK(tigris_run(plan, &small, test_kernel, &k, NULL) == TIGRIS_EXEC_ERR_MEM);
    /* stats may be NULL; a second run on fresh memory gives the same outputs */
    CHECK(tigris_run(plan, &mem, test_kernel, &k, NULL) == TIGRIS_EXEC_OK && outputs_ok(plan, &mem) && !k.bad);
    CHECK(setup(plan, &mem, ptrs, fast, fast_size, slow, slow_size, -1) == 0);
    CHECK(tigris_run(plan, &mem, test_kernel, &k, &st) == TIGRIS_EXEC_OK && outputs_ok(plan, &mem) && !k.bad);
    /* error strings */
    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK(tigris_exec_error_str(codes[i]) != NULL && tigris_exec_error_str(codes[i])[0] != '\0');
        for (j = 0; j < i; j++) CHECK(strcmp(tigris_exec_error_str(codes[i]), tigris_exec_error_str(codes[j])) != 0);
    }
    CHECK(strstr(tigris_exec_error_str((tigris_exec_error_t)-99), "unknown") != NULL);
    printf("api_failures=%d\n", g_fail);
}

#ifdef TEST_THREADS
#include <pthread.h>

/* --second PLAN: this plan and PLAN each run ROUNDS times, concurrently, in two threads
 * with their own memory (built with -fsanitize=thread: any shared mutable state of the
 * runtime is a reported race). */
#define ROUNDS 4
static uint64_t plan_buf2[PLAN_CAP / 8];
static void *ptrs2[2][65536];

typedef struct {
    const tigris_plan_t *plan;
    tigris_mem_t mem;
    uint8_t *fast, *slow;
    uint32_t fast_size, slow_size;
    int ok;
} job_t;

static void *job_run(void *arg) {
    job_t *j = (job_t *)arg;
    int round;
    j->ok = 1;
    for (round = 0; round < ROUNDS; round++) {
        kctx_t k = {-1, 0, 1};
        void **tp = ptrs2[j->fast == (uint8_t *)fast_buf ? 0 : 1];
        if (setup(j->plan, &j->mem, tp, j->fast, j->fast_size, j->slow, j->slow_size, -1) != 0 ||
            tigris_run(j->plan, &j->mem, test_kernel, &k, NULL) != TIGRIS_EXEC_OK || k.bad ||
            !outputs_ok(j->plan, &j->mem))
            j->ok = 0;
    }
    return NULL;
}

static int run_threads(const tigris_plan_t *a, const char *second, uint32_t fast_size, uint32_t slow_size) {
    static tigris_plan_t b;
    static job_t jobs[2];
    pthread_t th[2];
    FILE *f = fopen(second, "rb");
    size_t len;
    int i;
    if (f == NULL) return 2;
    len = fread(plan_buf2, 1, sizeof(plan_buf2), f);
    fclose(f);
    if (len == 0 || len >= sizeof(plan_buf2) || parse_plan((const uint8_t *)plan_buf2, (uint32_t)len, &b) != 0) return 2;
    if (fast_size > FAST_CAP / 2u || slow_size > SLOW_CAP / 2u) return 2;
    for (i = 0; i < 2; i++) {
        jobs[i].plan = i == 0 ? a : &b;
        jobs[i].fast = (uint8_t *)fast_buf + (size_t)i * (FAST_CAP / 2u);
        jobs[i].slow = (uint8_t *)slow_buf + (size_t)i * (SLOW_CAP / 2u);
        jobs[i].fast_size = fast_size;
        jobs[i].slow_size = slow_size;
        if (pthread_create(&th[i], NULL, job_run, &jobs[i]) != 0) return 2;
    }
    for (i = 0; i < 2; i++) pthread_join(th[i], NULL);
    printf("threads_ok=%d\n", jobs[0].ok && jobs[1].ok);
    return 0;
}
#endif

static long arg_long(int argc, char **argv, const char *name, long dflt) {
    int i;
    for (i = 2; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) return strtol(argv[i + 1], NULL, 0);
    }
    return dflt;
}

/* An index of the stats, -1 for TIGRIS_NONE16. */
static int none_or(uint16_t index) { return index == TIGRIS_NONE16 ? -1 : (int)index; }

static int has_flag(int argc, char **argv, const char *name) {
    int i;
    for (i = 2; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    static tigris_plan_t plan;
    tigris_exec_stats_t st;
    tigris_exec_error_t err;
    kctx_t k = {-1, 0, 0};
    FILE *f;
    size_t len;
    long fast_size, slow_size;
    if (argc < 2) {
        fprintf(stderr, "usage: test_executor PLAN [--fast N] [--slow N] [--fail-op K] [--no-input K] [--api]\n");
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (f == NULL) return 2;
    len = fread(plan_buf, 1, sizeof(plan_buf), f);
    fclose(f);
    if (len == 0 || len >= sizeof(plan_buf) || parse_plan((const uint8_t *)plan_buf, (uint32_t)len, &plan) != 0) {
        printf("parse_error=1\n");
        return 2;
    }
    fast_size = arg_long(argc, argv, "--fast", (long)FAST_CAP);
    slow_size = arg_long(argc, argv, "--slow", (long)SLOW_CAP);
    if (fast_size < 0 || fast_size > (long)FAST_CAP || slow_size < 0 || slow_size > (long)SLOW_CAP) return 2;
#ifdef TEST_THREADS
    for (len = 2; (int)len + 1 < argc; len++) {
        if (strcmp(argv[len], "--second") == 0)
            return run_threads(&plan, argv[len + 1], (uint32_t)fast_size, (uint32_t)slow_size);
    }
#endif
    if (has_flag(argc, argv, "--api")) {
        api_checks(&plan, (uint32_t)fast_size, (uint32_t)slow_size);
        return g_fail == 0 ? 0 : 1;
    }
    k.fail_op = arg_long(argc, argv, "--fail-op", -1);
    if (setup(&plan, &mem, ptrs, (uint8_t *)fast_buf, (uint32_t)fast_size, (uint8_t *)slow_buf, (uint32_t)slow_size,
              arg_long(argc, argv, "--no-input", -1)) != 0) {
        printf("setup_error=1\n");
        return 2;
    }
    memset(&st, 0xFF, sizeof(st));
    err = tigris_run(&plan, &mem, test_kernel, &k, &st);
    printf("err=%d\n", (int)err);
    printf("stages_normal=%u\nstages_tiled=%u\nstages_chain=%u\ntotal_tiles=%u\n", st.stages_normal,
           st.stages_tiled, st.stages_chain, st.total_tiles);
    printf("slow_overflow_count=%lu\nslow_overflow_bytes=%lu\nloads_bytes=%lu\nspills_bytes=%lu\n",
           (unsigned long)st.slow_overflow_count, (unsigned long)st.slow_overflow_bytes,
           (unsigned long)st.loads_bytes, (unsigned long)st.spills_bytes);
    printf("compactions=%lu\nslow_peak=%lu\nfast_peak=%lu\nfast_reserved=%lu\n", (unsigned long)st.compactions,
           (unsigned long)st.slow_peak, (unsigned long)mem.counters.fast_peak, (unsigned long)mem.fast_reserved);
    printf("row_cache_bytes=%lu\n", (unsigned long)st.row_cache_bytes);
    printf("slow_allocs=%u\nslow_used=%lu\nleftover=%u\nbad=%d\n", mem.num_slow_allocs,
           (unsigned long)mem.slow_used, leftovers(&plan, &mem), k.bad);
    printf("outputs_ok=%d\n", err == TIGRIS_EXEC_OK ? outputs_ok(&plan, &mem) : 0);
    printf("error_stage=%d\nerror_op=%d\nerror_tensor=%d\nkernel_error=%ld\n", none_or(st.error_stage),
           none_or(st.error_op), none_or(st.error_tensor), (long)st.kernel_error);
    return 0;
}
