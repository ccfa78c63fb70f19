/* fuzz_plan - mutation fuzzer for the loader and the executor (no libFuzzer needed).
 *
 *     fuzz_plan [-t SECONDS] [-s SEED] [-n MAX_ITERATIONS] [-o CRASH_FILE] [-F FIELDS] [-T HANG_SECONDS]
 *               [-x] PLAN...
 *     fuzz_plan -r PLAN...
 *
 * The PLAN files (valid .tgrs files) are the seed corpus. Each iteration copies a seed,
 * applies 1-4 random mutations (bit flips, byte and word sets with interesting values,
 * record fields, index-pool entries, tensor shapes with their sizes kept consistent, op
 * parameters, truncation, insertion, deletion, splices from another seed, random bytes),
 * then usually rewrites file_size and the CRC so that the mutation reaches the checks
 * behind the checksum, and loads the result from a heap block of exactly its size
 * (AddressSanitizer sees any read past it). When the loader accepts a file:
 *
 *   - every accessor of tigris.h is walked over every tensor, op, stage, table, quant
 *     param and weight block, touching each byte they designate and checking it lies
 *     inside the file; LZ4 blocks are decompressed and must give exactly raw_size bytes;
 *   - the plan is run (with -x) by tigris_run and the reference kernels, in a fast arena
 *     and a slow buffer of exactly their sizes (heap blocks: ASan sees any access past
 *     them), sometimes smaller than the plan needs, model inputs filled with seeded
 *     values (floats now and then NaN or infinite). If the run returns OK, every model
 *     output must be in the slow buffer ("ok_missing_output" counts the ones that are
 *     not: a failure); a kernel error must name the op (error_op) and the kernel's code.
 *
 * Every 16th iteration instead fuzzes tigris_lz4_decompress directly on a mutated block
 * stream of a seed. Misaligned and NULL arguments are tried now and then.
 *
 * -F FIELDS lists the record fields, one "KIND RECORD_SIZE OFFSET SIZE" line each (KIND 0
 * is the file header, else a tigris_section_kind_t; test_runtime_fuzz.py writes it from
 * emit/tgrs/records.py, the format's one definition): field mutations then hit exact fields,
 * and "fields_hit" says how many of them were mutated at least once.
 *
 * The PRNG is xorshift64*, so a seed gives the same sequence of inputs (-n makes the run
 * reproducible; -t stops on wall-clock time). An input that runs longer than -T seconds
 * (default 10) is a hang: it is written to CRASH_FILE and the fuzzer exits 4. With
 * AddressSanitizer, the input being run when a report fires is written to CRASH_FILE
 * (default fuzz-crash.tgrs).
 *
 * -r replays: each PLAN is loaded and run once as it is (no mutation, no CRC fix), and one
 * line is printed per file: "PATH load=CODE exec=CODE stage=S op=K tensor=T kernel=R"
 * (exec=- when the loader refused it; -1 for an index that does not apply), with the arenas
 * the plan asks for. The committed reproducers (test/support/fuzz_reproducers.py) are
 * replayed this way.
 *
 * Built with -DTIGRIS_LIBFUZZER -fsanitize=fuzzer (clang), the same target is
 * LLVMFuzzerTestOneInput: each input gets its size and CRC fixed, then is loaded and run;
 * LLVMFuzzerCustomMutator applies the mutations above half of the time, and the field table
 * comes from $TIGRIS_FUZZ_FIELDS (fuzz_standalone.c drives both without libFuzzer).
 *
 * Output: "key value" lines (iterations, crc_fixed, accepted, executed, one line per
 * tigris_error_t, tigris_exec_error_t and kernel error name, ok_missing_output, reduced_ok and
 * tiled_2d_ok: runs that returned OK through a stage in reduction tiles / in 2-D tiles, ...).
 * Exits 0, or 1 if a walk or a run found an inconsistency.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 199309L /* clock_gettime, alarm */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#define HAVE_POSIX 1
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "tigris_executor.h"
#include "tigris_kernels.h"
#include "tigris_loader.h"

#define MAX_SEEDS 256
#define MAX_FIELDS 512
#define NUM_CODES 13      /* TIGRIS_OK .. TIGRIS_ERR_BAD_ALIGN (0 .. -12) */
#define NUM_EXEC_CODES 10 /* TIGRIS_EXEC_OK .. TIGRIS_EXEC_ERR_OUTPUT (0 .. -9) */
#define NUM_KERNEL_CODES 6 /* TIGRIS_KERNEL_OK .. TIGRIS_KERNEL_ERR_RANGE (0 .. -5) */
#define FAST_CAP (256u << 10) /* arena sizes are capped: a mutated plan may ask for gigabytes */
#define SLOW_CAP (2u << 20)
#define HEADER_BYTES 64u

typedef struct {
    uint8_t *data;
    uint32_t len;
} blob_t;

typedef struct {
    uint32_t kind, record, offset, size;
} field_t;

static blob_t seeds[MAX_SEEDS];
static int num_seeds;
static field_t fields[MAX_FIELDS];
static unsigned long field_hits[MAX_FIELDS];
static int num_fields;
static uint64_t rng_state;
static volatile uint32_t sink;
static int execute_plans;
static int full_arenas; /* -r: the arenas the plan asks for (up to the caps), never smaller */

/* Counters of the run. */
static unsigned long long counts[NUM_CODES + 1], exec_counts[NUM_EXEC_CODES + 1], kernel_counts[NUM_KERNEL_CODES + 1];
static unsigned long long crc_fixed, executed, exec_skipped, ok_missing_output;
static unsigned long long reduced_ok;  /* runs returning OK through a stage in reduction tiles */
static unsigned long long tiled_2d_ok; /* runs returning OK through a stage in 2-D tiles */
static double slowest;

/* The input under test, written out by the sanitizer's death callback or the hang alarm. */
static const uint8_t *current_data;
static uint32_t current_len;
static const char *crash_path = "fuzz-crash.tgrs";

static void save_current(void) {
    FILE *f;
    if (current_data == NULL) return;
    f = fopen(crash_path, "wb");
    if (f == NULL) return;
    fwrite(current_data, 1, current_len, f);
    fclose(f);
    fprintf(stderr, "fuzz_plan: the failing input is in %s (%lu bytes)\n", crash_path, (unsigned long)current_len);
}

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_DEATH_CALLBACK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_DEATH_CALLBACK 1
#endif
#endif
#ifdef HAVE_DEATH_CALLBACK
void __sanitizer_set_death_callback(void (*callback)(void));
#endif

#if defined(HAVE_POSIX) && !defined(TIGRIS_LIBFUZZER)
/* The hang alarm: only async-signal-safe calls (open, write, _exit). */
static void on_hang(int sig) {
    static const char msg[] = "fuzz_plan: hang: an input ran longer than the -T limit\n";
    int fd;
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) _exit(4);
    fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && current_data != NULL) {
        if (write(fd, current_data, current_len) < 0) _exit(4);
        close(fd);
    }
    _exit(4);
}
#endif

/* Wall-clock seconds (CPU time where there is no POSIX clock). */
static double now(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static uint64_t next(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint32_t n) {
    return n == 0 ? 0 : (uint32_t)((next() >> 32) % n);
}

static const char *code_name(int code) {
    static const char *const names[NUM_CODES] = {
        "TIGRIS_OK", "TIGRIS_ERR_NULL", "TIGRIS_ERR_TOO_SMALL", "TIGRIS_ERR_BAD_MAGIC",
        "TIGRIS_ERR_BAD_VERSION", "TIGRIS_ERR_BAD_SIZE", "TIGRIS_ERR_BAD_SECTION", "TIGRIS_ERR_MISSING_SEC",
        "TIGRIS_ERR_ENDIAN", "TIGRIS_ERR_PLAN_LIMITS", "TIGRIS_ERR_BAD_CRC", "TIGRIS_ERR_BAD_RECORD",
        "TIGRIS_ERR_BAD_ALIGN"};
    return code <= 0 && code > -NUM_CODES ? names[-code] : "UNKNOWN";
}

static const char *exec_code_name(int code) {
    static const char *const names[NUM_EXEC_CODES] = {
        "TIGRIS_EXEC_OK", "TIGRIS_EXEC_ERR_NULL", "TIGRIS_EXEC_ERR_MEM", "TIGRIS_EXEC_ERR_KERNEL",
        "TIGRIS_EXEC_ERR_NO_STAGES", "TIGRIS_EXEC_ERR_TILE", "TIGRIS_EXEC_ERR_INPUT", "TIGRIS_EXEC_ERR_WEIGHTS",
        "TIGRIS_EXEC_ERR_PLAN", "TIGRIS_EXEC_ERR_OUTPUT"};
    return code <= 0 && code > -NUM_EXEC_CODES ? names[-code] : "TIGRIS_EXEC_UNKNOWN";
}

static const char *kernel_code_name(int code) {
    static const char *const names[NUM_KERNEL_CODES] = {
        "TIGRIS_KERNEL_OK", "TIGRIS_KERNEL_ERR_UNSUPPORTED", "TIGRIS_KERNEL_ERR_SHAPE", "TIGRIS_KERNEL_ERR_BAND",
        "TIGRIS_KERNEL_ERR_PARAMS", "TIGRIS_KERNEL_ERR_RANGE"};
    return code <= 0 && code > -NUM_KERNEL_CODES ? names[-code] : "TIGRIS_KERNEL_UNKNOWN";
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- the walk over an accepted plan ------------------------------------------------- */

static const uint8_t *walk_buf;
static uint32_t walk_len;
static int failed;

static void fail(const char *what, unsigned long index) {
    fprintf(stderr, "fuzz_plan: accepted plan: %s %lu is inconsistent\n", what, index);
    failed = 1;
    save_current();
}

/* Reads n bytes at p after checking they lie inside the file. */
static void touch(const void *p, uint32_t n, const char *what, unsigned long index) {
    const uint8_t *b = (const uint8_t *)p;
    uint32_t i, acc = 0;
    if (n == 0) return;
    if (p == NULL || (size_t)(b - walk_buf) > walk_len || n > walk_len - (size_t)(b - walk_buf)) {
        fail(what, index);
        return;
    }
    for (i = 0; i < n; i++) acc += b[i];
    sink += acc;
}

static void touch_string(const char *s, const char *what, unsigned long index) {
    const uint8_t *b = (const uint8_t *)s;
    if (s == NULL || b < walk_buf || b >= walk_buf + walk_len) {
        fail(what, index);
        return;
    }
    touch(s, (uint32_t)strlen(s) + 1, what, index);
}

static void touch_list(const tigris_plan_t *plan, const uint16_t *list, uint32_t n, uint32_t limit, const char *what,
                       unsigned long index) {
    uint32_t i;
    (void)plan;
    touch(list, n * 2u, what, index);
    for (i = 0; i < n; i++)
        if (list[i] >= limit) fail(what, index);
}

static void walk_lz4(const tigris_plan_t *plan) {
    uint32_t b;
    for (b = 0; b < plan->num_weight_blocks; b++) {
        const tigris_weight_block_t *blk = &plan->weight_blocks[b];
        uint8_t *dst = (uint8_t *)malloc(blk->raw_size);
        int32_t n;
        if (dst == NULL) continue;
        n = tigris_lz4_decompress(blk->size ? plan->weight_blocks_data + blk->offset : NULL, blk->size, dst,
                                  blk->raw_size);
        if (n < 0 || (uint32_t)n != blk->raw_size) fail("lz4 block", b);
        else sink += dst[n - 1];
        free(dst);
    }
}

static void walk(const tigris_plan_t *plan) {
    const tigris_file_header_t *h = plan->header;
    uint32_t i;
    if ((const uint8_t *)h != walk_buf) fail("header", 0);
    touch(h, sizeof *h, "header", 0);
    touch_string(tigris_model_name(plan), "model name", 0);
    if (plan->num_model_inputs != h->num_model_inputs || plan->num_model_outputs != h->num_model_outputs)
        fail("model io counts", 0);
    touch_list(plan, plan->model_inputs, plan->num_model_inputs, h->num_tensors, "model inputs", 0);
    touch_list(plan, plan->model_outputs, plan->num_model_outputs, h->num_tensors, "model outputs", 0);
    touch(plan->index_pool, plan->index_pool_len * 2u, "index pool", 0);
    touch(plan->shape_pool, plan->shape_pool_len * 4u, "shape pool", 0);
    if (plan->quant_data_len) touch(plan->quant_data, plan->quant_data_len * 4u, "quant data", 0);
    if (h->num_tables) touch(plan->tables, h->num_tables * (uint32_t)TIGRIS_TABLE_SIZE, "tables", 0);

    for (i = 0; i < h->num_quant_params; i++) {
        const tigris_quant_param_t *q = &plan->quant_params[i];
        touch(q, sizeof *q, "quant param", i);
        if (q->axis >= 0) touch(plan->quant_data + q->data, 8u * q->num_channels, "quant param data", i);
    }
    for (i = 0; i < h->num_tensors; i++) {
        const tigris_tensor_t *t = &plan->tensors[i];
        const tigris_quant_param_t *q = tigris_tensor_quant(plan, t);
        const void *w = tigris_tensor_weight(plan, (uint16_t)i);
        touch(t, sizeof *t, "tensor", i);
        touch_string(tigris_tensor_name(plan, t), "tensor name", i);
        if (t->ndim) touch(tigris_tensor_shape(plan, t), 4u * t->ndim, "tensor shape", i);
        if (t->perm != TIGRIS_NONE32) touch(plan->shape_pool + t->perm, 4u * t->ndim, "tensor perm", i);
        if (q != NULL) touch(q, sizeof *q, "tensor quant", i);
        if (t->weight != TIGRIS_NONE16) {
            const tigris_weight_entry_t *e = &plan->weight_entries[t->weight];
            touch(e, sizeof *e, "weight entry", i);
            if (w != NULL) {
                touch(w, t->size, "tensor weight", i);
            } else if (e->block == TIGRIS_NONE16 || plan->weight_compression != TIGRIS_COMPRESSION_LZ4 ||
                       e->offset > plan->weight_blocks[e->block].raw_size ||
                       e->size > plan->weight_blocks[e->block].raw_size - e->offset) {
                fail("tensor weight", i);
            }
        }
        sink += (uint32_t)tigris_tensor_rows(plan, t) + tigris_tensor_row_bytes(plan, t);
    }
    for (i = 0; i < h->num_ops; i++) {
        const tigris_op_t *op = &plan->ops[i];
        const int8_t *table = tigris_op_table(plan, op);
        const void *w;
        touch(op, sizeof *op, "op", i);
        touch_string(tigris_op_name(plan, op), "op name", i);
        touch_list(plan, tigris_op_inputs(plan, op), op->num_inputs, h->num_tensors, "op inputs", i);
        touch_list(plan, tigris_op_outputs(plan, op), op->num_outputs, h->num_tensors, "op outputs", i);
        if (op->num_params) touch(tigris_op_params(plan, op), 4u * op->num_params, "op params", i);
        if (op->num_scales) touch(tigris_op_scale_bits(plan, op), 4u * op->num_scales, "op scales", i);
        if (table != NULL) touch(table, TIGRIS_TABLE_SIZE, "op table", i);
        else if (op->table != TIGRIS_NONE16) fail("op table", i);
        w = tigris_op_weight(plan, op);
        if (w != NULL) touch(w, plan->tensors[op->weight].size, "op weight", i);
        w = tigris_op_bias(plan, op);
        if (w != NULL) touch(w, plan->tensors[op->bias].size, "op bias", i);
    }
    for (i = 0; i < h->num_stages; i++) {
        const tigris_stage_t *st = &plan->stages[i];
        const tigris_tile_plan_t *tp = tigris_stage_tile_plan(plan, st);
        touch(st, sizeof *st, "stage", i);
        touch_list(plan, tigris_stage_ops(plan, st), st->num_ops, h->num_ops, "stage ops", i);
        touch_list(plan, tigris_stage_inputs(plan, st), st->num_inputs, h->num_tensors, "stage inputs", i);
        touch_list(plan, tigris_stage_outputs(plan, st), st->num_outputs, h->num_tensors, "stage outputs", i);
        if (tp != NULL) touch(tp, sizeof *tp, "stage tile plan", i);
        if (st->weight_block != TIGRIS_NONE16 && st->weight_block >= plan->num_weight_blocks) fail("stage block", i);
    }
    for (i = 0; i < h->num_tile_plans; i++) touch(&plan->tile_plans[i], sizeof(tigris_tile_plan_t), "tile plan", i);
    for (i = 0; i < plan->num_weight_blocks; i++) {
        const tigris_weight_block_t *b = &plan->weight_blocks[i];
        touch(b, sizeof *b, "weight block", i);
        if (b->size) touch(plan->weight_blocks_data + b->offset, b->size, "weight block data", i);
    }
    for (i = 0; i < h->num_weights; i++) {
        const tigris_weight_entry_t *e = &plan->weight_entries[i];
        touch(e, sizeof *e, "weight entry", i);
        if (e->block == TIGRIS_NONE16) touch(plan->weight_blob + e->offset, e->size, "weight", i);
    }
    for (i = 0; i < plan->num_model_inputs; i++) /* a model input is never a constant */
        if (plan->tensors[plan->model_inputs[i]].weight != TIGRIS_NONE16) fail("model input constant", i);
    if (plan->weight_compression == TIGRIS_COMPRESSION_LZ4) walk_lz4(plan);
}

/* ---- mutations ---------------------------------------------------------------------- */

static uint32_t interesting(uint32_t len) {
    static const uint32_t values[] = {0,      1,      2,      3,          4,          7,          8,
                                      15,     16,     31,     32,         63,         64,         127,
                                      128,    255,    256,    0x7FFF,     0x8000,     0xFFFE,     0xFFFF,
                                      0x10000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    uint32_t r = below(sizeof values / sizeof values[0] + 4u);
    if (r < sizeof values / sizeof values[0]) return values[r];
    if (r == sizeof values / sizeof values[0]) return len;
    if (r == sizeof values / sizeof values[0] + 1u) return len - 1u;
    if (r == sizeof values / sizeof values[0] + 2u) return below(64);
    return (uint32_t)next();
}

/* A signed 32-bit value near an overflow boundary, or a small one: the values that make
 * int32 shape arithmetic (x * scale, x + pads, d * (k - 1)) wrap onto a plausible result. */
static uint32_t interesting_i32(uint32_t old) {
    static const uint32_t values[] = {0x7FFFFFFFu, 0x80000000u, 0x7FFFFFFEu, 0x80000001u, 0x40000000u,
                                      0x40000001u, 0x40000002u, 0x3FFFFFFFu, 0xC0000000u, 0xFFFFFFFFu,
                                      0xFFFFFFFEu, 0x10000u,     0xFFFFu,     0x8000u,     0x7FFFu};
    switch (below(6)) {
    case 0:
    case 1: return values[below(sizeof values / sizeof values[0])];
    case 2: return old + (uint32_t)below(9) - 4u;             /* old - 4 .. old + 4 */
    case 3: return 0u - old;                                   /* -old */
    case 4: return old + (0x80000000u >> below(8)) * (below(2) ? 1u : 0xFFFFFFFFu); /* wraps near old */
    default: return below(9);
    }
}

/* Writes `size` (1, 2 or 4) little-endian bytes of v at pos if they fit. */
static void put(uint8_t *d, uint32_t len, uint32_t pos, uint32_t size, uint32_t v) {
    uint32_t i;
    if (pos > len || size > len - pos) return;
    for (i = 0; i < size; i++) d[pos + i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get(const uint8_t *d, uint32_t len, uint32_t pos, uint32_t size) {
    uint32_t i, v = 0;
    if (pos > len || size > len - pos) return 0;
    for (i = 0; i < size; i++) v |= (uint32_t)d[pos + i] << (8 * i);
    return v;
}

/* The section of `kind` in the (mutated) file, from its own section table. */
static int find_section(const uint8_t *d, uint32_t len, uint32_t kind, uint32_t *off, uint32_t *size) {
    uint32_t n, i;
    if (len < 64) return 0;
    n = rd16(d + 40);
    if (64u + 16u * n > len) return 0;
    for (i = 0; i < n; i++) {
        if (rd16(d + 64 + 16 * i) != kind) continue;
        *off = rd32(d + 64 + 16 * i + 4);
        *size = rd32(d + 64 + 16 * i + 8);
        return *off <= len && *size <= len - *off;
    }
    return 0;
}

/* A section of the (mutated) file, from its own section table: its kind, place, and the
 * size of one of its elements (size / count, as the table says). */
static int section_pos(const uint8_t *d, uint32_t len, uint32_t *kind, uint32_t *off, uint32_t *size,
                       uint32_t *element) {
    uint32_t n, i, count;
    if (len < 64) return 0;
    n = rd16(d + 40);
    if (n == 0 || 64u + 16u * n > len) return 0;
    i = below(n);
    *kind = rd16(d + 64 + 16 * i);
    *off = rd32(d + 64 + 16 * i + 4);
    *size = rd32(d + 64 + 16 * i + 8);
    count = rd32(d + 64 + 16 * i + 12);
    *element = count != 0 && *size % count == 0 && *size / count != 0 ? *size / count : 1u;
    return *off <= len && *size <= len - *off && *size > 0;
}

/* One field of the -F table in one record of its section (or the header): a value of its
 * width, interesting, near the old one, or random. */
static void mutate_field(uint8_t *d, uint32_t n) {
    uint32_t k = below((uint32_t)num_fields), off = 0, size = HEADER_BYTES, pos, old, v;
    const field_t *f = &fields[k];
    if (f->kind != 0 && !find_section(d, n, f->kind, &off, &size)) return;
    if (size < f->record) return;
    pos = off + below(size / f->record) * f->record + f->offset;
    old = get(d, n, pos, f->size);
    switch (below(4)) {
    case 0: v = interesting(n); break;
    case 1: v = old + (uint32_t)below(33) - 16u; break;
    case 2: v = f->size == 4 ? interesting_i32(old) : (uint32_t)next(); break;
    default: v = (uint32_t)next(); break;
    }
    put(d, n, pos, f->size, v);
    field_hits[k]++;
}

/* A tensor's dimension, with its size field kept consistent (so the loader's size check
 * passes and the kernels see the new shape). */
static void mutate_shape(uint8_t *d, uint32_t n) {
    uint32_t toff, tsize, soff, ssize, rec, shape, ndim, dim, esize, k;
    uint64_t bytes = 1;
    if (!find_section(d, n, TIGRIS_SECTION_TENSORS, &toff, &tsize) || tsize < sizeof(tigris_tensor_t)) return;
    if (!find_section(d, n, TIGRIS_SECTION_SHAPE_POOL, &soff, &ssize)) return;
    rec = toff + below(tsize / (uint32_t)sizeof(tigris_tensor_t)) * (uint32_t)sizeof(tigris_tensor_t);
    shape = rd32(d + rec + 4);
    ndim = d[rec + 21];
    esize = tigris_dtype_size(d[rec + 20]);
    if (ndim == 0 || ndim > TIGRIS_MAX_RANK || shape > ssize / 4u || ndim > ssize / 4u - shape || esize == 0) return;
    dim = soff + 4u * (shape + below(ndim));
    switch (below(4)) {
    case 0: put(d, n, dim, 4, 1u + below(8)); break;
    case 1: put(d, n, dim, 4, rd32(d + dim) * 2u); break;
    case 2: put(d, n, dim, 4, rd32(d + dim) + 1u); break;
    default: put(d, n, dim, 4, interesting_i32(rd32(d + dim))); break;
    }
    for (k = 0; k < ndim; k++) bytes *= (uint64_t)(int64_t)(int32_t)rd32(d + soff + 4u * (shape + k));
    bytes *= esize;
    if (bytes <= 0xFFFFFFFFu) put(d, n, rec + 8, 4, (uint32_t)bytes);
}

/* One of an op's int32 parameters (pads, scales, perm, axes). */
static void mutate_param(uint8_t *d, uint32_t n) {
    uint32_t ooff, osize, soff, ssize, rec, params, count, at;
    if (!find_section(d, n, TIGRIS_SECTION_OPS, &ooff, &osize) || osize < sizeof(tigris_op_t)) return;
    if (!find_section(d, n, TIGRIS_SECTION_SHAPE_POOL, &soff, &ssize)) return;
    rec = ooff + below(osize / (uint32_t)sizeof(tigris_op_t)) * (uint32_t)sizeof(tigris_op_t);
    params = rd32(d + rec + 12);
    count = rd16(d + rec + 30);
    if (count == 0 || params > ssize / 4u || count > ssize / 4u - params) return;
    at = soff + 4u * (params + below(count));
    put(d, n, at, 4, interesting_i32(rd32(d + at)));
}

/* One mutation of d[0, *len) in place (capacity cap). */
static void mutate(uint8_t *d, uint32_t *len, uint32_t cap) {
    uint32_t n = *len, i, pos, k;
    uint32_t kind, off, size, rs;
    switch (below(20)) {
    case 0:
    case 1: /* bit flips */
        for (k = 1 + below(8); k > 0 && n > 0; k--) d[below(n)] ^= (uint8_t)(1u << below(8));
        break;
    case 2: /* an interesting byte */
        if (n > 0) d[below(n)] = (uint8_t)interesting(n);
        break;
    case 3:
    case 4: /* an interesting 16- or 32-bit word, often aligned */
        size = below(2) ? 2u : 4u;
        pos = below(n);
        if (below(2)) pos &= ~(size - 1u);
        put(d, n, pos, size, interesting(n));
        break;
    case 5:
    case 6: /* a field of a record (or a pool element) inside a section */
        if (section_pos(d, n, &kind, &off, &size, &rs)) {
            pos = off + below(size / rs + 1u) * rs + (below(rs) & ~1u);
            if (kind == TIGRIS_SECTION_INDEX_POOL)
                put(d, n, pos, 2, below(4) ? below(rd16(d + 42) + 2u) : interesting(n)); /* a tensor index */
            else
                put(d, n, pos, below(3) ? 2u : (below(2) ? 4u : 1u), interesting(n));
        }
        break;
    case 7:
    case 8:
    case 9:
    case 10: /* an exact field of the -F table */
        if (num_fields > 0) mutate_field(d, n);
        break;
    case 11:
        mutate_shape(d, n);
        break;
    case 12:
        mutate_param(d, n);
        break;
    case 13: /* truncation, usually near the end */
        if (n > 0) *len = below(2) ? below(n) : n - 1u - below(n < 64 ? n : 64);
        break;
    case 14: /* insertion of random bytes */
        k = 1 + below(32);
        if (n + k <= cap) {
            pos = below(n + 1);
            memmove(d + pos + k, d + pos, n - pos);
            for (i = 0; i < k; i++) d[pos + i] = (uint8_t)next();
            *len = n + k;
        }
        break;
    case 15: /* deletion */
        if (n > 0) {
            pos = below(n);
            k = 1 + below(n - pos < 64 ? n - pos : 64);
            memmove(d + pos, d + pos + k, n - pos - k);
            *len = n - k;
        }
        break;
    case 16: { /* splice from another seed */
        const blob_t *s = &seeds[below((uint32_t)num_seeds)];
        if (s->len > 0 && n > 0) {
            uint32_t from = below(s->len);
            pos = below(n);
            k = 1 + below(256);
            if (k > s->len - from) k = s->len - from;
            if (k > n - pos) k = n - pos;
            memcpy(d + pos, s->data + from, k);
        }
        break;
    }
    case 17: /* copy within the file */
        if (n > 1) {
            uint32_t from = below(n);
            pos = below(n);
            k = 1 + below(64);
            if (k > n - from) k = n - from;
            if (k > n - pos) k = n - pos;
            memmove(d + pos, d + from, k);
        }
        break;
    default: /* random bytes */
        if (n > 0) {
            pos = below(n);
            for (k = 1 + below(16); k > 0 && pos < n; k--) d[pos++] = (uint8_t)next();
        }
        break;
    }
}

/* file_size and the CRC made right, so the mutation reaches the checks behind them. */
static void fix_size_and_crc(uint8_t *d, uint32_t len) {
    if (len >= 16) wr32(d + 12, len);
    if (len >= HEADER_BYTES) wr32(d + 16, tigris_crc32(0, d + HEADER_BYTES, len - HEADER_BYTES));
}

#ifndef TIGRIS_LIBFUZZER
/* Fuzz the decoder directly: a mutated block stream of an LZ4 seed into an exact block. */
static void fuzz_lz4(uint8_t *scratch, uint32_t cap) {
    const blob_t *s = &seeds[below((uint32_t)num_seeds)];
    tigris_plan_t plan;
    const tigris_weight_block_t *b;
    uint8_t *src, *dst;
    uint32_t len, out_cap, k;
    int32_t n, dry;
    if (tigris_plan_load(s->data, s->len, &plan) != TIGRIS_OK || plan.weight_compression != TIGRIS_COMPRESSION_LZ4 ||
        plan.num_weight_blocks == 0)
        return;
    b = &plan.weight_blocks[below(plan.num_weight_blocks)];
    if (b->size > cap) return;
    memcpy(scratch, plan.weight_blocks_data + b->offset, b->size);
    len = b->size;
    for (k = 1 + below(3); k > 0; k--) {
        uint32_t r = below(4);
        if (r == 0 && len > 0) scratch[below(len)] ^= (uint8_t)(1u << below(8));
        else if (r == 1 && len > 0) scratch[below(len)] = (uint8_t)interesting(len);
        else if (r == 2) len = below(len + 1);
        else if (len > 0) scratch[below(len)] = (uint8_t)next();
    }
    out_cap = b->raw_size + below(3) - 1u; /* raw_size - 1, raw_size or raw_size + 1 */
    src = (uint8_t *)malloc(len ? len : 1u);
    dst = (uint8_t *)malloc(out_cap ? out_cap : 1u);
    if (src != NULL && dst != NULL) {
        memcpy(src, scratch, len);
        n = tigris_lz4_decompress(src, len, dst, out_cap);
        dry = tigris_lz4_decoded_size(src, len, out_cap);
        if (n != dry || n > (int32_t)out_cap) fail("lz4 dry run", (unsigned long)len);
        if (n > 0) sink += dst[n - 1];
    }
    free(src);
    free(dst);
}

#endif

/* ---- running an accepted plan -------------------------------------------------------- */

/* Bytes of the arenas a plan asks for, as the host runner sizes them (tigris_host.c). */
static uint64_t fast_need(const tigris_plan_t *plan) {
    uint64_t peak = 0;
    uint16_t s;
    for (s = 0; s < plan->header->num_stages; s++) {
        const tigris_tile_plan_t *tp = tigris_stage_tile_plan(plan, &plan->stages[s]);
        uint64_t p = tp != NULL ? tp->peak : plan->stages[s].peak;
        if (p > peak) peak = p;
    }
    return (uint64_t)plan->header->fast_reserved + TIGRIS_TENSOR_ALIGN + peak +
           (uint64_t)TIGRIS_TENSOR_ALIGN * TIGRIS_MAX_FAST_ALLOCS;
}

static uint64_t slow_need(const tigris_plan_t *plan) {
    uint64_t total = (uint64_t)TIGRIS_TENSOR_ALIGN * TIGRIS_MAX_SLOW_ALLOCS;
    uint16_t t;
    for (t = 0; t < plan->header->num_tensors; t++)
        if (plan->tensors[t].weight == TIGRIS_NONE16) total += plan->tensors[t].size + (uint64_t)TIGRIS_TENSOR_ALIGN;
    return total;
}

/* An arena size: what the plan needs (capped), or less now and then. */
static uint32_t arena_size(uint64_t need, uint32_t cap) {
    uint32_t size = need > cap ? cap : (uint32_t)need;
    if (full_arenas) return size;
    switch (below(8)) {
    case 0: return below(size + 1u);
    case 1: return size / 2u;
    default: return size;
    }
}

/* Seeded model input values: floats in [-4, 4] (now and then NaN, an infinity or a huge
 * value), other dtypes random bytes. */
static void fill_input(uint8_t *p, uint32_t size, uint8_t dtype) {
    uint32_t i;
    if (dtype != TIGRIS_DTYPE_F32) {
        for (i = 0; i < size; i++) p[i] = (uint8_t)next();
        return;
    }
    for (i = 0; i + 4u <= size; i += 4u) {
        float v;
        uint32_t r = below(64);
        if (r == 0) v = INFINITY;
        else if (r == 1) v = -1e30f;
        else if (r == 2) v = NAN;
        else v = (float)((int32_t)below(8001) - 4000) / 1000.0f;
        memcpy(p + i, &v, 4);
    }
}

static int inside(const void *p, uint32_t n, const uint8_t *base, uint32_t size) {
    const uint8_t *b = (const uint8_t *)p;
    return base != NULL && b >= base && (size_t)(b - base) <= size && n <= size - (size_t)(b - base);
}

typedef struct {
    int err;               /* tigris_exec_error_t, or 1 when not run */
    tigris_exec_stats_t st;
} run_result_t;

/* Run an accepted plan in exact-size heap arenas and check what tigris_run promises. */
static run_result_t execute(const tigris_plan_t *plan, const uint8_t *buf, uint32_t len) {
    run_result_t res;
    uint32_t fast_size = arena_size(fast_need(plan), FAST_CAP), slow_size = arena_size(slow_need(plan), SLOW_CAP);
    uint8_t *fast = (uint8_t *)malloc(fast_size ? fast_size : 1u), *slow = (uint8_t *)malloc(slow_size ? slow_size : 1u);
    void **ptrs = (void **)calloc((size_t)plan->header->num_tensors + 1u, sizeof(void *));
    tigris_mem_t *mem = (tigris_mem_t *)calloc(1, sizeof(tigris_mem_t));
    uint16_t i;
    double start;
    memset(&res, 0, sizeof res);
    res.err = 1;
    if (fast == NULL || slow == NULL || ptrs == NULL || mem == NULL ||
        tigris_mem_init(mem, ptrs, plan->header->num_tensors, fast, fast_size, slow, slow_size) != TIGRIS_MEM_OK)
        goto done;
    for (i = 0; i < plan->num_model_inputs; i++) { /* the caller's part: inputs in slow memory */
        uint16_t t = plan->model_inputs[i];
        if (tigris_mem_alloc_slow(mem, t, plan->tensors[t].size) != TIGRIS_MEM_OK) goto done;
        fill_input((uint8_t *)ptrs[t], plan->tensors[t].size, plan->tensors[t].dtype);
    }
    start = now();
    res.err = tigris_run(plan, mem, tigris_ref_kernel, NULL, &res.st);
    if (now() - start > slowest) slowest = now() - start;
    if (res.err == TIGRIS_EXEC_OK) {
        for (i = 0; i < plan->num_model_outputs; i++) {
            uint16_t t = plan->model_outputs[i];
            const void *p = ptrs[t];
            uint32_t size = plan->tensors[t].size;
            int held = plan->tensors[t].weight != TIGRIS_NONE16
                           ? (inside(p, size, buf, len) || inside(p, size, mem->fast_base, mem->fast_size))
                           : inside(p, size, mem->slow_base, mem->slow_size);
            if (!held) {
                ok_missing_output++;
                fail("ok with a missing model output", t);
            } else {
                sink += ((const uint8_t *)p)[0] + ((const uint8_t *)p)[size - 1u];
            }
        }
    } else if (res.err == TIGRIS_EXEC_ERR_KERNEL &&
               (res.st.error_op >= plan->header->num_ops || res.st.kernel_error == 0)) {
        fail("kernel error without its op and code", res.st.error_op);
    }
    if (res.err == TIGRIS_EXEC_OK ? res.st.error_stage != TIGRIS_NONE16
                                   : res.st.error_stage != TIGRIS_NONE16 && res.st.error_stage >= plan->header->num_stages)
        fail("error_stage", res.st.error_stage);
done:
    free(fast);
    free(slow);
    free(ptrs);
    free(mem);
    return res;
}

/* Kinds of tile plans: reduction tiles (a reduce_op), 2-D tiles (a tile_w). */
static int reduces(const tigris_tile_plan_t *tp) { return tp->reduce_op != TIGRIS_NONE16; }
static int cuts_columns(const tigris_tile_plan_t *tp) { return tp->tile_w != 0; }

/* Whether a stage of the plan runs in tiles of that kind. */
static int has_tiles(const tigris_plan_t *plan, int (*kind)(const tigris_tile_plan_t *)) {
    uint16_t s;
    for (s = 0; s < plan->header->num_stages; s++) {
        const tigris_tile_plan_t *tp = tigris_stage_tile_plan(plan, &plan->stages[s]);
        if (tp != NULL && kind(tp)) return 1;
    }
    return 0;
}

/* Load (and walk and, with -x, run) one input held in an exact-size heap block. */
static int target(const uint8_t *buf, uint32_t len, run_result_t *run) {
    tigris_plan_t plan;
    tigris_error_t err;
    current_data = buf;
    current_len = len;
    err = tigris_plan_load(buf, len, &plan);
    counts[err <= 0 && err > -NUM_CODES ? -err : NUM_CODES]++;
    run->err = 1;
    if (err == TIGRIS_OK) {
        walk_buf = buf;
        walk_len = len;
        walk(&plan);
        if (execute_plans && !failed) {
            *run = execute(&plan, buf, len);
            if (run->err == 1) {
                exec_skipped++;
            } else {
                executed++;
                exec_counts[run->err <= 0 && run->err > -NUM_EXEC_CODES ? -run->err : NUM_EXEC_CODES]++;
                if (run->err == TIGRIS_EXEC_OK && has_tiles(&plan, reduces)) reduced_ok++;
                if (run->err == TIGRIS_EXEC_OK && has_tiles(&plan, cuts_columns)) tiled_2d_ok++;
                if (run->err == TIGRIS_EXEC_ERR_KERNEL) {
                    int k = run->st.kernel_error;
                    kernel_counts[k <= 0 && k > -NUM_KERNEL_CODES ? -k : NUM_KERNEL_CODES]++;
                }
            }
        }
    } else if (plan.header != NULL || plan.tensors != NULL) {
        fail("plan not zeroed on error", (unsigned long)-err);
    }
    current_data = NULL;
    return err;
}

#ifndef TIGRIS_LIBFUZZER
static int read_seed(const char *path, blob_t *out) {
    FILE *f = fopen(path, "rb");
    long n;
    if (f == NULL) return 0;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > 0x7FFFFFFFL || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    out->data = (uint8_t *)malloc(n > 0 ? (size_t)n : 1u);
    out->len = (uint32_t)n;
    if (out->data == NULL || fread(out->data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return 0;
    }
    fclose(f);
    return 1;
}

#endif

/* -F: "KIND RECORD_SIZE OFFSET SIZE" lines. */
static int read_fields(const char *path) {
    FILE *f = fopen(path, "r");
    unsigned long kind, record, offset, size;
    if (f == NULL) return 0;
    while (num_fields < MAX_FIELDS && fscanf(f, "%lu %lu %lu %lu", &kind, &record, &offset, &size) == 4) {
        if (record == 0 || (size != 1 && size != 2 && size != 4) || offset + size > record) {
            fclose(f);
            return 0;
        }
        fields[num_fields].kind = (uint32_t)kind;
        fields[num_fields].record = (uint32_t)record;
        fields[num_fields].offset = (uint32_t)offset;
        fields[num_fields].size = (uint32_t)size;
        num_fields++;
    }
    fclose(f);
    return num_fields > 0;
}

#ifndef TIGRIS_LIBFUZZER
static int none_or(uint16_t index) { return index == TIGRIS_NONE16 ? -1 : (int)index; }

/* -r: each file once, as it is. */
static int replay(int first, int argc, char **argv) {
    int i;
    execute_plans = 1;
    full_arenas = 1;
    rng_state = 0x9E3779B97F4A7C15ULL; /* the input values: the same on every replay */
    for (i = first; i < argc; i++) {
        blob_t b;
        uint8_t *buf;
        run_result_t run;
        int err;
        if (!read_seed(argv[i], &b)) {
            fprintf(stderr, "fuzz_plan: cannot read %s\n", argv[i]);
            return 2;
        }
        buf = (uint8_t *)malloc(b.len ? b.len : 1u);
        if (buf == NULL) return 2;
        memcpy(buf, b.data, b.len);
        err = target(buf, b.len, &run);
        printf("%s load=%s", argv[i], code_name(err));
        if (run.err == 1) printf(" exec=-\n");
        else
            printf(" exec=%s stage=%d op=%d tensor=%d kernel=%s\n", exec_code_name(run.err),
                   none_or(run.st.error_stage), none_or(run.st.error_op), none_or(run.st.error_tensor),
                   kernel_code_name(run.st.kernel_error));
        free(buf);
        free(b.data);
    }
    return failed ? 1 : 0;
}
#endif

static void print_counts(unsigned long long iters, double elapsed) {
    int i, hit = 0;
    printf("iterations %llu\n", iters);
    printf("seconds %.2f\n", elapsed);
    printf("iterations_per_second %.0f\n", elapsed > 0 ? (double)iters / elapsed : 0.0);
    printf("crc_fixed %llu\n", crc_fixed);
    printf("accepted %llu\n", counts[0]);
    for (i = 0; i < NUM_CODES; i++) printf("%s %llu\n", code_name(-i), counts[i]);
    printf("other %llu\n", counts[NUM_CODES]);
    printf("executed %llu\n", executed);
    printf("exec_skipped %llu\n", exec_skipped);
    for (i = 0; i < NUM_EXEC_CODES; i++) printf("%s %llu\n", exec_code_name(-i), exec_counts[i]);
    printf("exec_other %llu\n", exec_counts[NUM_EXEC_CODES]);
    for (i = 1; i < NUM_KERNEL_CODES; i++) printf("%s %llu\n", kernel_code_name(-i), kernel_counts[i]);
    printf("kernel_other %llu\n", kernel_counts[NUM_KERNEL_CODES]);
    printf("ok_missing_output %llu\n", ok_missing_output);
    printf("reduced_ok %llu\n", reduced_ok);
    printf("tiled_2d_ok %llu\n", tiled_2d_ok);
    printf("slowest_run_ms %.1f\n", slowest * 1000.0);
    for (i = 0; i < num_fields; i++) hit += field_hits[i] > 0;
    printf("fields %d\n", num_fields);
    printf("fields_hit %d\n", hit);
}

#ifdef TIGRIS_LIBFUZZER
static double fuzz_start;

static void print_libfuzzer_counts(void) { print_counts(crc_fixed, now() - fuzz_start); }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* The field table of -F, from $TIGRIS_FUZZ_FIELDS (libFuzzer owns the command line). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *path = getenv("TIGRIS_FUZZ_FIELDS");
    (void)argc;
    (void)argv;
    if (path != NULL && !read_fields(path)) {
        fprintf(stderr, "fuzz_plan: bad field table %s\n", path);
        exit(2);
    }
    fuzz_start = now();
    atexit(print_libfuzzer_counts); /* the same "key value" lines as the loop driver */
    return 0;
}

/* libFuzzer: every input with its size and CRC made right, then loaded and run. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *buf;
    run_result_t run;
    if (size > 0xFFFFFFFFu) return 0;
    buf = (uint8_t *)malloc(size ? size : 1u);
    if (buf == NULL) return 0;
    memcpy(buf, data, size);
    fix_size_and_crc(buf, (uint32_t)size);
    crc_fixed++;
    execute_plans = 1;
    (void)target(buf, (uint32_t)size, &run);
    free(buf);
    if (failed) abort();
    return 0;
}

/* The format-aware mutations of the loop driver (exact fields, consistent shapes, op
 * parameters), half of the time; libFuzzer's own byte-level ones otherwise. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    uint32_t len = (uint32_t)size, k;
    rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 1u;
    if (below(2) || size > 0xFFFFFFFFu || max_size > 0xFFFFFFFFu) return LLVMFuzzerMutate(data, size, max_size);
    for (k = 1 + below(3); k > 0; k--) mutate(data, &len, (uint32_t)max_size);
    return len;
}
#else
int main(int argc, char **argv) {
    double seconds = 10.0, elapsed, start;
    unsigned long long max_iters = 0, iters = 0;
    unsigned hang_seconds = 10;
    uint64_t seed = 1;
    uint32_t max_len = 0, scratch_cap;
    uint8_t *scratch;
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-r") == 0) return replay(i + 1, argc, argv);
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) max_iters = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) crash_path = argv[++i];
        else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc) hang_seconds = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-x") == 0) execute_plans = 1;
        else if (strcmp(argv[i], "-F") == 0 && i + 1 < argc) {
            if (!read_fields(argv[++i])) {
                fprintf(stderr, "fuzz_plan: bad field table %s\n", argv[i]);
                return 2;
            }
        } else if (num_seeds < MAX_SEEDS && read_seed(argv[i], &seeds[num_seeds])) {
            tigris_plan_t plan;
            tigris_error_t err = tigris_plan_load(seeds[num_seeds].data, seeds[num_seeds].len, &plan);
            if (err != TIGRIS_OK) fprintf(stderr, "fuzz_plan: seed %s: %s\n", argv[i], code_name(err));
            if (seeds[num_seeds].len > max_len) max_len = seeds[num_seeds].len;
            num_seeds++;
        } else {
            fprintf(stderr, "fuzz_plan: cannot read %s\n", argv[i]);
            return 2;
        }
    }
    if (num_seeds == 0) {
        fprintf(stderr, "usage: fuzz_plan [-t SECONDS] [-s SEED] [-n MAX_ITERATIONS] [-o CRASH_FILE] [-F FIELDS] "
                        "[-T HANG_SECONDS] [-x] PLAN...\n       fuzz_plan -r PLAN...\n");
        return 2;
    }
#ifdef HAVE_DEATH_CALLBACK
    __sanitizer_set_death_callback(save_current);
#endif
#ifdef HAVE_POSIX
    signal(SIGALRM, on_hang);
#endif
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 1u;
    scratch_cap = max_len + 4096u;
    scratch = (uint8_t *)malloc(scratch_cap);
    if (scratch == NULL) return 2;
    start = now();
    for (;;) {
        const blob_t *s;
        uint32_t len, k;
        uint8_t *buf;
        tigris_plan_t plan;
        run_result_t run;
        if (max_iters != 0 && iters >= max_iters) break;
        if ((iters & 63u) == 0 && max_iters == 0 && now() - start >= seconds) break;
        iters++;
        if ((iters & 15u) == 0) {
            fuzz_lz4(scratch, scratch_cap);
            continue;
        }
        s = &seeds[below((uint32_t)num_seeds)];
        if ((iters & 255u) == 1) { /* argument checks on a seed */
            buf = (uint8_t *)malloc(s->len + 4u);
            if (buf == NULL) continue;
            memcpy(buf + 1 + below(3), s->data, s->len);
            if (tigris_plan_load(buf + 1, s->len, &plan) != TIGRIS_ERR_BAD_ALIGN) fail("misaligned", 0);
            if (tigris_plan_load(NULL, s->len, &plan) != TIGRIS_ERR_NULL || plan.header != NULL) fail("null buf", 0);
            if (tigris_plan_load(s->data, s->len, NULL) != TIGRIS_ERR_NULL) fail("null plan", 0);
            free(buf);
            continue;
        }
        memcpy(scratch, s->data, s->len);
        len = s->len;
        for (k = below(4) ? 1u : 2u + below(3); k > 0; k--) mutate(scratch, &len, scratch_cap);
        if (below(10) != 0) { /* make size and checksum right, so deeper checks run */
            fix_size_and_crc(scratch, len);
            crc_fixed++;
        }
        buf = (uint8_t *)malloc(len ? len : 1u);
        if (buf == NULL) continue;
        memcpy(buf, scratch, len);
#ifdef HAVE_POSIX
        alarm(hang_seconds);
#endif
        (void)target(buf, len, &run);
#ifdef HAVE_POSIX
        alarm(0);
#endif
        free(buf);
        if (failed) break;
    }
    elapsed = now() - start;
    print_counts(iters, elapsed);
    free(scratch);
    for (i = 0; i < num_seeds; i++) free(seeds[i].data);
    return failed ? 1 : 0;
}
#endif
