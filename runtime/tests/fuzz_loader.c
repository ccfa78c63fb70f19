/* fuzz_loader - mutation fuzzer for tigris_plan_load (no libFuzzer needed).
 *
 *     fuzz_loader [-t SECONDS] [-s SEED] [-n MAX_ITERATIONS] [-o CRASH_FILE] PLAN...
 *
 * The PLAN files (valid .tgrs files) are the seed corpus. Each iteration copies a seed,
 * applies 1-4 random mutations (bit flips, byte and word sets with interesting values,
 * record-field sets inside the sections, index-pool entries, truncation, insertion,
 * deletion, splices from another seed, random bytes), then usually rewrites file_size
 * and the CRC so that the mutation reaches the checks behind the checksum, and loads
 * the result from a heap block of exactly its size (AddressSanitizer sees any read
 * past it). When the loader accepts a file, every accessor of tigris.h is walked over
 * every tensor, op, stage, table, quant param and weight block, touching each byte
 * they designate and checking it lies inside the file; LZ4 blocks are decompressed
 * and must give exactly raw_size bytes (the loader's dry run and the decoder agree).
 * Every 16th iteration instead fuzzes tigris_lz4_decompress directly on a mutated
 * block stream of a seed. Misaligned and NULL arguments are tried now and then.
 *
 * The PRNG is xorshift64*, so a seed gives the same sequence of inputs (-n makes the
 * run reproducible; -t stops on wall-clock time). With AddressSanitizer, the input being
 * loaded when a report fires is written to CRASH_FILE (default fuzz-crash.tgrs).
 *
 * Output: "key value" lines (iterations, seconds, iterations_per_second, accepted, one
 * line per tigris_error_t name). Exits 0, or 1 if a walk found an inconsistency.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tigris_loader.h"


#define MAX_SEEDS 256
#define NUM_CODES 13 /* TIGRIS_OK .. TIGRIS_ERR_BAD_ALIGN (0 .. -12) */

typedef struct {
    uint8_t *data;
    uint32_t len;
} blob_t;

static blob_t seeds[MAX_SEEDS];
static int num_seeds;
static uint64_t rng_state;
static volatile uint32_t sink;

/* The input under test, written out by the sanitizer's death callback. */
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
    fprintf(stderr, "fuzz_loader: the failing input is in %s (%lu bytes)\n", crash_path, (unsigned long)current_len);
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
static int walk_failed;

static void fail(const char *what, unsigned long index) {
    fprintf(stderr, "fuzz_loader: accepted plan: %s %lu is inconsistent\n", what, index);
    walk_failed = 1;
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

/* Writes `size` (1, 2 or 4) little-endian bytes of v at pos if they fit. */
static void put(uint8_t *d, uint32_t len, uint32_t pos, uint32_t size, uint32_t v) {
    uint32_t i;
    if (pos > len || size > len - pos) return;
    for (i = 0; i < size; i++) d[pos + i] = (uint8_t)(v >> (8 * i));
}

/* A position inside a section of the (mutated) file, from its own section table. */
static int section_pos(const uint8_t *d, uint32_t len, uint32_t *kind, uint32_t *off, uint32_t *size) {
    uint32_t n, i;
    if (len < 64) return 0;
    n = rd16(d + 40);
    if (n == 0 || 64u + 16u * n > len) return 0;
    i = below(n);
    *kind = rd16(d + 64 + 16 * i);
    *off = rd32(d + 64 + 16 * i + 4);
    *size = rd32(d + 64 + 16 * i + 8);
    return *off <= len && *size <= len - *off && *size > 0;
}

static uint32_t record_size(uint32_t kind) {
    switch (kind) {
    case TIGRIS_SECTION_TENSORS: return sizeof(tigris_tensor_t);
    case TIGRIS_SECTION_OPS: return sizeof(tigris_op_t);
    case TIGRIS_SECTION_STAGES: return sizeof(tigris_stage_t);
    case TIGRIS_SECTION_TILE_PLANS: return sizeof(tigris_tile_plan_t);
    case TIGRIS_SECTION_WEIGHT_ENTRIES: return sizeof(tigris_weight_entry_t);
    case TIGRIS_SECTION_WEIGHT_BLOCKS: return sizeof(tigris_weight_block_t);
    case TIGRIS_SECTION_QUANT_PARAMS: return sizeof(tigris_quant_param_t);
    case TIGRIS_SECTION_INDEX_POOL: return 2;
    default: return 4;
    }
}

/* One mutation of d[0, *len) in place (capacity cap). */
static void mutate(uint8_t *d, uint32_t *len, uint32_t cap) {
    uint32_t n = *len, i, pos, k;
    uint32_t kind, off, size;
    switch (below(16)) {
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
    case 6:
    case 7:
    case 8:
    case 9: /* a field of a record (or a pool element) inside a section */
        if (section_pos(d, n, &kind, &off, &size)) {
            uint32_t rs = record_size(kind);
            pos = off + below(size / rs + 1u) * rs + (below(rs) & ~1u);
            if (kind == TIGRIS_SECTION_INDEX_POOL)
                put(d, n, pos, 2, below(4) ? below(rd16(d + 42) + 2u) : interesting(n)); /* a tensor index */
            else
                put(d, n, pos, below(3) ? 2u : (below(2) ? 4u : 1u), interesting(n));
        }
        break;
    case 10: /* truncation, usually near the end */
        if (n > 0) *len = below(2) ? below(n) : n - 1u - below(n < 64 ? n : 64);
        break;
    case 11: /* insertion of random bytes */
        k = 1 + below(32);
        if (n + k <= cap) {
            pos = below(n + 1);
            memmove(d + pos + k, d + pos, n - pos);
            for (i = 0; i < k; i++) d[pos + i] = (uint8_t)next();
            *len = n + k;
        }
        break;
    case 12: /* deletion */
        if (n > 0) {
            pos = below(n);
            k = 1 + below(n - pos < 64 ? n - pos : 64);
            memmove(d + pos, d + pos + k, n - pos - k);
            *len = n - k;
        }
        break;
    case 13: { /* splice from another seed */
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
    case 14: /* copy within the file */
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

static int read_seed(const char *path, blob_t *out) {
    FILE *f = fopen(path, "rb");
    long n;
    if (f == NULL) return 0;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || n > 0x7FFFFFFFL || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    out->data = (uint8_t *)malloc((size_t)n);
    out->len = (uint32_t)n;
    if (out->data == NULL || fread(out->data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return 0;
    }
    fclose(f);
    return 1;
}

int main(int argc, char **argv) {
    double seconds = 10.0, elapsed, start;
    unsigned long long max_iters = 0, iters = 0, counts[NUM_CODES + 1] = {0};
    uint64_t seed = 1;
    uint32_t max_len = 0, scratch_cap;
    uint8_t *scratch;
    int i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) max_iters = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) crash_path = argv[++i];
        else if (num_seeds < MAX_SEEDS && read_seed(argv[i], &seeds[num_seeds])) {
            tigris_plan_t plan;
            tigris_error_t err = tigris_plan_load(seeds[num_seeds].data, seeds[num_seeds].len, &plan);
            if (err != TIGRIS_OK) fprintf(stderr, "fuzz_loader: seed %s: %s\n", argv[i], code_name(err));
            if (seeds[num_seeds].len > max_len) max_len = seeds[num_seeds].len;
            num_seeds++;
        } else {
            fprintf(stderr, "fuzz_loader: cannot read %s\n", argv[i]);
            return 2;
        }
    }
    if (num_seeds == 0) {
        fprintf(stderr, "usage: fuzz_loader [-t SECONDS] [-s SEED] [-n MAX_ITERATIONS] [-o CRASH_FILE] PLAN...\n");
        return 2;
    }
#ifdef HAVE_DEATH_CALLBACK
    __sanitizer_set_death_callback(save_current);
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
        tigris_error_t err;
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
            if (len >= 16) wr32(scratch + 12, len);
            if (len >= 64) wr32(scratch + 16, tigris_crc32(0, scratch + 64, len - 64));
        }
        buf = (uint8_t *)malloc(len ? len : 1u);
        if (buf == NULL) continue;
        memcpy(buf, scratch, len);
        current_data = buf;
        current_len = len;
        err = tigris_plan_load(buf, len, &plan);
        counts[err <= 0 && err > -NUM_CODES ? -err : NUM_CODES]++;
        if (err == TIGRIS_OK) {
            walk_buf = buf;
            walk_len = len;
            walk(&plan);
        } else if (plan.header != NULL || plan.tensors != NULL) {
            fail("plan not zeroed on error", (unsigned long)-err);
        }
        current_data = NULL;
        free(buf);
        if (walk_failed) break;
    }
    elapsed = now() - start;
    printf("iterations %llu\n", iters);
    printf("seconds %.2f\n", elapsed);
    printf("iterations_per_second %.0f\n", elapsed > 0 ? (double)iters / elapsed : 0.0);
    printf("accepted %llu\n", counts[0]);
    for (i = 0; i < NUM_CODES; i++) printf("%s %llu\n", code_name(-i), counts[i]);
    printf("other %llu\n", counts[NUM_CODES]);
    free(scratch);
    for (i = 0; i < num_seeds; i++) free(seeds[i].data);
    return walk_failed ? 1 : 0;
}
