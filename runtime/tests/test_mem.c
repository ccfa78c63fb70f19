/* test_mem.c - the memory manager: every function of tigris_mem.h and every error code.
 *
 * Prints one line per failed check and "test_mem: N checks, M failed"; exits 1 if
 * any failed. Run by test/python/test_runtime_mem.py (plain and sanitized builds).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tigris_mem.h"

static int g_checks, g_failed;

#define CHECK(cond)                                                                \
    do {                                                                           \
        g_checks++;                                                                \
        if (!(cond)) {                                                             \
            g_failed++;                                                            \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                 \
        }                                                                          \
    } while (0)

#define A ((uint32_t)TIGRIS_TENSOR_ALIGN)
#define NT 8

static uint8_t fast_raw[4096 + 128];
static uint8_t slow_raw[8192 + 128];
static void *ptrs[NT];
static tigris_mem_t mem;

static uint32_t pad(uint32_t n) { return (n + A - 1u) / A * A; }

static int aligned(const void *p) { return ((uintptr_t)p % A) == 0; }

static int in_slow(const void *p) {
    return (const uint8_t *)p >= mem.slow_base && (const uint8_t *)p < mem.slow_base + mem.slow_size;
}

static int in_fast(const void *p) {
    return (const uint8_t *)p >= mem.fast_base && (const uint8_t *)p < mem.fast_base + mem.fast_size;
}

static void fill(void *p, uint32_t n, uint8_t seed) {
    uint32_t i;
    for (i = 0; i < n; i++) ((uint8_t *)p)[i] = (uint8_t)(seed + i * 7u);
}

static int same(const void *p, uint32_t n, uint8_t seed) {
    uint32_t i;
    for (i = 0; i < n; i++) {
        if (((const uint8_t *)p)[i] != (uint8_t)(seed + i * 7u)) return 0;
    }
    return 1;
}

static uint8_t *aligned_in(uint8_t *raw) { return raw + (A - (uintptr_t)raw % A) % A; }

/* Fresh memory over aligned buffers of exactly these sizes. */
static void init(uint32_t fast, uint32_t slow) {
    CHECK(tigris_mem_init(&mem, ptrs, NT, aligned_in(fast_raw), fast, aligned_in(slow_raw), slow) == TIGRIS_MEM_OK);
    CHECK(mem.fast_size == fast && mem.slow_size == slow);
}

static void test_init(void) {
    uint8_t *odd = fast_raw + 1;
    int i;
    CHECK(tigris_mem_init(NULL, ptrs, NT, fast_raw, 64, slow_raw, 64) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_init(&mem, NULL, NT, fast_raw, 64, slow_raw, 64) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_init(&mem, ptrs, NT, NULL, 64, slow_raw, 64) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_init(&mem, ptrs, NT, fast_raw, 64, NULL, 64) == TIGRIS_MEM_ERR_NULL);
    /* no slow memory at all is fine (single-stage plans) */
    CHECK(tigris_mem_init(&mem, ptrs, NT, fast_raw, 64, NULL, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_slow(&mem, 0, 1) == TIGRIS_MEM_ERR_OOM);
    for (i = 0; i < NT; i++) ptrs[i] = &mem;
    /* a misaligned buffer: the base moves to the next aligned address */
    if (((uintptr_t)odd % A) == 0) odd++;
    CHECK(tigris_mem_init(&mem, ptrs, NT, odd, 1000, slow_raw + 3, 1000) == TIGRIS_MEM_OK);
    CHECK(aligned(mem.fast_base) && aligned(mem.slow_base));
    CHECK(mem.fast_base >= odd && mem.fast_base < odd + A);
    CHECK(mem.fast_size == 1000u - (uint32_t)(mem.fast_base - odd));
    CHECK(mem.slow_size == 1000u - (uint32_t)(mem.slow_base - (slow_raw + 3)));
    for (i = 0; i < NT; i++) CHECK(ptrs[i] == NULL);
    CHECK(mem.fast_used == 0 && mem.slow_used == 0 && mem.num_fast_allocs == 0 && mem.num_slow_allocs == 0);
    CHECK(mem.counters.loads_bytes == 0 && mem.tile.num_bands == 0);
    /* smaller than the alignment gap: empty arena */
    CHECK(tigris_mem_init(&mem, ptrs, NT, odd, 1, NULL, 0) == TIGRIS_MEM_OK);
    CHECK(mem.fast_size == 0 || A == 1u);
}

static void test_alloc_fast(void) {
    int i;
    init(1024, 1024);
    CHECK(tigris_mem_alloc_fast(NULL, 0, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_alloc_fast(&mem, NT, 4) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_alloc_fast(&mem, 0, 5) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 1, 3) == TIGRIS_MEM_OK);
    CHECK(ptrs[0] == mem.fast_base && aligned(ptrs[1]));
    CHECK((uint8_t *)ptrs[1] == mem.fast_base + pad(5));
    CHECK(mem.fast_used == pad(5) + pad(3));
    CHECK(mem.num_fast_allocs == 2 && mem.fast_allocs[1].tensor == 1 && mem.fast_allocs[1].size == 3);
    CHECK(mem.fast_allocs[0].refs == 1);
    CHECK(mem.counters.fast_peak == mem.fast_used);
    CHECK(tigris_mem_alloc_fast(&mem, 2, 1024) == TIGRIS_MEM_ERR_OOM);
    CHECK(ptrs[2] == NULL);
    CHECK(tigris_mem_alloc_fast(&mem, 2, 0xFFFFFFFFu) == TIGRIS_MEM_ERR_OOM); /* padding would overflow */
    /* the allocation table is full before the arena */
    init(4096, 0);
    for (i = 0; i < TIGRIS_MAX_FAST_ALLOCS; i++) CHECK(tigris_mem_alloc_fast(&mem, (uint16_t)(i % NT), 1) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 0, 1) == TIGRIS_MEM_ERR_OOM);
    CHECK(tigris_mem_tensor_ptr(&mem, 0) != NULL && tigris_mem_tensor_ptr(&mem, NT) == NULL);
    CHECK(tigris_mem_tensor_ptr(NULL, 0) == NULL);
}

static void test_alloc_slow(void) {
    init(256, 256);
    CHECK(tigris_mem_alloc_slow(NULL, 0, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_alloc_slow(&mem, NT, 4) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_alloc_slow(&mem, 3, 40) == TIGRIS_MEM_OK);
    CHECK(ptrs[3] == mem.slow_base && mem.slow_used == pad(40) && mem.slow_allocs[0].refs == 0);
    CHECK(tigris_mem_slow_ptr(&mem, 3) == ptrs[3] && tigris_mem_slow_ptr(&mem, 2) == NULL);
    CHECK(tigris_mem_slow_ptr(NULL, 3) == NULL && tigris_mem_slow_ptr(&mem, NT) == NULL);
    CHECK(tigris_mem_alloc_slow(&mem, 4, 300) == TIGRIS_MEM_ERR_OOM);
    CHECK(mem.counters.slow_peak == pad(40));
}

static void test_refs_and_compaction(void) {
    uint8_t *b_old;
    uint32_t reclaimed;
    init(1024, 1024);
    CHECK(tigris_mem_alloc_fast(&mem, 0, 40) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 1, 50) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 2, 60) == TIGRIS_MEM_OK);
    fill(ptrs[0], 40, 1);
    fill(ptrs[1], 50, 2);
    fill(ptrs[2], 60, 3);
    CHECK(tigris_mem_set_refs(NULL, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_set_refs(&mem, NT, 1) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_set_refs(&mem, 5, 1) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_release(NULL, 0) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_release(&mem, NT) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_release(&mem, 5) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_set_refs(&mem, 1, 2) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_release(&mem, 1) == TIGRIS_MEM_OK);
    CHECK(mem.fast_allocs[1].refs == 1);
    /* nothing free yet: compaction does nothing */
    CHECK(tigris_mem_compact_fast(&mem) == 0 && mem.counters.compactions == 0);
    CHECK(tigris_mem_release(&mem, 1) == TIGRIS_MEM_OK);
    CHECK(mem.fast_allocs[1].refs == 0);
    /* releasing a freed tensor is harmless (its pointer is still set) */
    CHECK(tigris_mem_release(&mem, 1) == TIGRIS_MEM_OK);
    b_old = (uint8_t *)ptrs[2];
    reclaimed = tigris_mem_compact_fast(&mem);
    CHECK(reclaimed == pad(50));
    CHECK(mem.counters.compactions == 1);
    CHECK(mem.num_fast_allocs == 2 && mem.fast_used == pad(40) + pad(60));
    CHECK((uint8_t *)ptrs[2] == mem.fast_base + pad(40) && (uint8_t *)ptrs[2] != b_old);
    CHECK(mem.fast_allocs[1].tensor == 2 && mem.fast_allocs[1].offset == pad(40));
    CHECK(same(ptrs[0], 40, 1) && same(ptrs[2], 60, 3));
    CHECK(tigris_mem_compact_fast(NULL) == 0);
    /* freed at the top: compaction lowers the bump pointer without moving anything */
    CHECK(tigris_mem_set_refs(&mem, 2, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_compact_fast(&mem) == pad(60) && mem.fast_used == pad(40) && mem.counters.compactions == 2);
}

static void test_alloc_fallbacks(void) {
    uint32_t arena = 4u * A;
    init(arena, 1024);
    CHECK(tigris_mem_alloc(NULL, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_alloc(&mem, NT, 1) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_alloc(&mem, 0, A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc(&mem, 1, 2u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc(&mem, 2, A) == TIGRIS_MEM_OK);
    fill(ptrs[0], A, 10);
    fill(ptrs[2], A, 12);
    CHECK(mem.fast_used == arena);
    /* full; tensor 1 (in the middle) is freed: compaction makes room */
    CHECK(tigris_mem_set_refs(&mem, 1, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc(&mem, 3, 2u * A) == TIGRIS_MEM_OK);
    CHECK(mem.counters.compactions == 1 && mem.counters.slow_overflow_count == 0);
    CHECK(in_fast(ptrs[3]) && (uint8_t *)ptrs[2] == mem.fast_base + A);
    CHECK(same(ptrs[0], A, 10) && same(ptrs[2], A, 12));
    /* still full and nothing to reclaim: overflow to slow memory */
    CHECK(tigris_mem_alloc(&mem, 4, 3u) == TIGRIS_MEM_OK);
    CHECK(in_slow(ptrs[4]));
    CHECK(mem.counters.slow_overflow_count == 1 && mem.counters.slow_overflow_bytes == 3);
    CHECK(mem.num_slow_allocs == 1 && mem.slow_allocs[0].refs == TIGRIS_ALLOC_OVERFLOW);
    CHECK(tigris_mem_slow_ptr(&mem, 4) == NULL); /* an overflow is not a slow copy */
    /* refcounting of an overflowed tensor does nothing */
    CHECK(tigris_mem_set_refs(&mem, 4, 3) == TIGRIS_MEM_OK && tigris_mem_release(&mem, 4) == TIGRIS_MEM_OK);
    tigris_mem_free_overflow(&mem);
    CHECK(ptrs[4] == NULL && mem.num_slow_allocs == 0);
    tigris_mem_compact_slow(&mem);
    CHECK(mem.slow_used == 0);
    tigris_mem_free_overflow(NULL);
    /* neither fast nor slow memory */
    init(A, 0);
    CHECK(tigris_mem_alloc(&mem, 0, A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc(&mem, 1, 1) == TIGRIS_MEM_ERR_OOM);
}

static void test_load_spill(void) {
    init(4u * A, 1024);
    CHECK(tigris_mem_load(NULL, 0, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_load(&mem, NT, 4) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_load(&mem, 0, 4) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_spill(NULL, 0, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill(&mem, NT, 4) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_spill(&mem, 0, 4) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_alloc_slow(&mem, 0, 2u * A) == TIGRIS_MEM_OK);
    fill(ptrs[0], 2u * A, 20);
    CHECK(tigris_mem_load(&mem, 0, 2u * A) == TIGRIS_MEM_OK);
    CHECK(in_fast(ptrs[0]) && same(ptrs[0], 2u * A, 20));
    CHECK(mem.counters.loads_bytes == 2u * A);
    CHECK(tigris_mem_load(&mem, 0, 2u * A) == TIGRIS_MEM_OK); /* already resident: nothing */
    CHECK(mem.counters.loads_bytes == 2u * A && mem.num_fast_allocs == 1);
    /* spill a fast tensor: a new slow copy */
    CHECK(tigris_mem_alloc_fast(&mem, 1, A) == TIGRIS_MEM_OK);
    fill(ptrs[1], A, 21);
    CHECK(tigris_mem_spill(&mem, 1, A) == TIGRIS_MEM_OK);
    CHECK(in_slow(ptrs[1]) && same(ptrs[1], A, 21) && tigris_mem_slow_ptr(&mem, 1) == ptrs[1]);
    CHECK(mem.counters.spills_bytes == A);
    CHECK(tigris_mem_spill(&mem, 1, A) == TIGRIS_MEM_OK); /* already in its slow copy */
    CHECK(mem.counters.spills_bytes == A && mem.num_slow_allocs == 2);
    /* spilling tensor 0 again overwrites its existing slow copy in place */
    fill(ptrs[0], 2u * A, 22);
    CHECK(tigris_mem_spill(&mem, 0, 2u * A) == TIGRIS_MEM_OK);
    CHECK(ptrs[0] == mem.slow_base && same(mem.slow_base, 2u * A, 22) && mem.num_slow_allocs == 2);
    /* a load that does not fit overflows to slow memory: its slow copy, read in place
     * (no second copy, nothing allocated), and it stays there after the stage */
    init(A, 1024);
    CHECK(tigris_mem_alloc_slow(&mem, 2, 2u * A) == TIGRIS_MEM_OK);
    fill(ptrs[2], 2u * A, 23);
    CHECK(tigris_mem_load(&mem, 2, 2u * A) == TIGRIS_MEM_OK);
    CHECK(in_slow(ptrs[2]) && ptrs[2] == tigris_mem_slow_ptr(&mem, 2) && same(ptrs[2], 2u * A, 23));
    CHECK(mem.counters.slow_overflow_count == 1 && mem.counters.slow_overflow_bytes == 2u * A);
    CHECK(mem.counters.loads_bytes == 2u * A && mem.num_slow_allocs == 1 && mem.num_fast_allocs == 0);
    CHECK(tigris_mem_set_refs(&mem, 2, 1) == TIGRIS_MEM_OK && tigris_mem_release(&mem, 2) == TIGRIS_MEM_OK);
    /* an overflowed tensor that is spilled becomes the slow copy, without a copy */
    CHECK(tigris_mem_alloc(&mem, 3, A) == TIGRIS_MEM_OK && tigris_mem_alloc(&mem, 4, A) == TIGRIS_MEM_OK);
    CHECK(in_slow(ptrs[4]));
    fill(ptrs[4], A, 24);
    CHECK(tigris_mem_spill(&mem, 4, A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_slow_ptr(&mem, 4) == ptrs[4] && same(ptrs[4], A, 24) && mem.counters.spills_bytes == 0);
    tigris_mem_free_overflow(&mem);
    CHECK(ptrs[4] != NULL && tigris_mem_slow_ptr(&mem, 4) == ptrs[4] && ptrs[2] == tigris_mem_slow_ptr(&mem, 2));
    tigris_mem_compact_slow(&mem);
    CHECK(same(ptrs[4], A, 24) && tigris_mem_slow_ptr(&mem, 4) == ptrs[4]);
    /* the spill of a too-small slow copy replaces it */
    init(4u * A, 1024);
    CHECK(tigris_mem_alloc_slow(&mem, 5, 1) == TIGRIS_MEM_OK && tigris_mem_alloc_fast(&mem, 5, 3u * A) == TIGRIS_MEM_OK);
    fill(ptrs[5], 3u * A, 25);
    CHECK(tigris_mem_spill(&mem, 5, 3u * A) == TIGRIS_MEM_OK);
    CHECK(mem.num_slow_allocs == 1 && tigris_mem_slow_ptr(&mem, 5) == ptrs[5] && same(ptrs[5], 3u * A, 25));
    /* a spill that does not fit anywhere */
    init(4u * A, A);
    CHECK(tigris_mem_alloc_fast(&mem, 6, 2u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_spill(&mem, 6, 2u * A) == TIGRIS_MEM_ERR_OOM && in_fast(ptrs[6]));
}

static void test_slow_free_compact(void) {
    uint8_t *c_old;
    init(256, 6u * A);
    CHECK(tigris_mem_free_slow(NULL, 0) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_free_slow(&mem, NT) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_free_slow(&mem, 0) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_alloc_slow(&mem, 0, A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_slow(&mem, 1, 2u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_slow(&mem, 2, A + 1u) == TIGRIS_MEM_OK);
    fill(ptrs[0], A, 30);
    fill(ptrs[1], 2u * A, 31);
    fill(ptrs[2], A + 1u, 32);
    c_old = (uint8_t *)ptrs[2];
    /* a band that names tensor 2's slow copy follows it when it moves */
    CHECK(tigris_mem_set_band(&mem, 2, 0, 1, ptrs[2]) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_free_slow(&mem, 1) == TIGRIS_MEM_OK);
    CHECK(ptrs[1] == NULL && mem.num_slow_allocs == 2 && mem.slow_used == 5u * A); /* lazy */
    tigris_mem_compact_slow(&mem);
    CHECK(mem.slow_used == A + pad(A + 1u));
    CHECK((uint8_t *)ptrs[2] == mem.slow_base + A && (uint8_t *)ptrs[2] != c_old);
    CHECK(mem.tile.bands[0].slow_ptr == ptrs[2]);
    CHECK(same(ptrs[0], A, 30) && same(ptrs[2], A + 1u, 32));
    CHECK(mem.counters.slow_peak == 5u * A);
    tigris_mem_compact_slow(NULL);
    /* alloc_slow compacts by itself when it runs out */
    CHECK(tigris_mem_alloc_slow(&mem, 3, 2u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_free_slow(&mem, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_slow(&mem, 4, 2u * A) == TIGRIS_MEM_OK); /* needs tensor 0's space */
    CHECK(same(ptrs[2], A + 1u, 32) && (uint8_t *)ptrs[2] == mem.slow_base);
    CHECK(mem.slow_used == 6u * A);
    /* a freed slow copy that the pointer no longer names leaves the pointer alone */
    CHECK(tigris_mem_alloc_fast(&mem, 3, 8) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_free_slow(&mem, 3) == TIGRIS_MEM_OK && in_fast(ptrs[3]));
}

/* A plan with: tensor 0 and 1 int8 [2, 3, 5, 4] (N, C, H, W: rows of 4*3 bytes),
 * tensor 2 a vector [6, 10], tensor 3 f32 [1, 2, 7] (conv1d [N, C, L]). */
static tigris_file_header_t hdr;
static tigris_tensor_t tensors[4];
static int32_t shapes[] = {2, 3, 5, 4, 6, 10, 1, 2, 7};
static tigris_plan_t plan;

static void make_plan(void) {
    memset(&hdr, 0, sizeof(hdr));
    memset(tensors, 0, sizeof(tensors));
    memset(&plan, 0, sizeof(plan));
    hdr.num_tensors = 4;
    tensors[0].shape = 0;
    tensors[0].ndim = 4;
    tensors[0].size = 2 * 3 * 5 * 4;
    tensors[0].dtype = TIGRIS_DTYPE_I8;
    tensors[0].weight = TIGRIS_NONE16;
    tensors[0].quant = TIGRIS_NONE16;
    tensors[1] = tensors[0];
    tensors[2] = tensors[0];
    tensors[2].shape = 4;
    tensors[2].ndim = 2;
    tensors[2].size = 60;
    tensors[3] = tensors[0];
    tensors[3].shape = 6;
    tensors[3].ndim = 3;
    tensors[3].size = 2 * 7 * 4;
    tensors[3].dtype = TIGRIS_DTYPE_F32;
    plan.header = &hdr;
    plan.tensors = tensors;
    plan.shape_pool = shapes;
    plan.shape_pool_len = 9;
}

static void test_tiles(void) {
    uint8_t *full, *band, *out;
    int32_t s, e;
    uint32_t n, r;
    int i;
    make_plan();
    init(2048, 2048);
    CHECK(tigris_mem_load_tile(NULL, &plan, 0, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_load_tile(&mem, NULL, 0, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_load_tile(&mem, &plan, NT, 0, 1) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_load_tile(&mem, &plan, 5, 0, 1) == TIGRIS_MEM_ERR_BAD_INDEX); /* beyond the plan */
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 0, 1) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_alloc_slow(&mem, 0, 120) == TIGRIS_MEM_OK);
    full = (uint8_t *)ptrs[0];
    fill(full, 120, 40);
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, -1, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 3, 6) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 3, 3) == TIGRIS_MEM_ERR_BAD_RANGE);
    tigris_mem_rows(&mem, &plan, 0, &s, &e);
    CHECK(s == 0 && e == 5);
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 1, 4) == TIGRIS_MEM_OK);
    band = (uint8_t *)ptrs[0];
    CHECK(in_fast(band) && mem.fast_allocs[0].size == 2u * 3u * 12u);
    CHECK(mem.counters.loads_bytes == 72);
    CHECK(mem.tile.num_bands == 1 && mem.tile.bands[0].slow_ptr == full);
    tigris_mem_rows(&mem, &plan, 0, &s, &e);
    CHECK(s == 1 && e == 4);
    for (n = 0; n < 2; n++) {
        for (r = 1; r < 4; r++) CHECK(memcmp(band + (n * 3u + (r - 1u)) * 12u, full + (n * 5u + r) * 12u, 12) == 0);
    }
    /* a band's source must be the full tensor, not the band itself */
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 1, 4) == TIGRIS_MEM_ERR_BAD_RANGE);
    /* spill rows 2..3 of the band into another full tensor: only they are written */
    CHECK(tigris_mem_alloc_slow(&mem, 1, 120) == TIGRIS_MEM_OK);
    out = (uint8_t *)ptrs[1];
    memset(out, 0xEE, 120);
    ptrs[1] = band;
    CHECK(tigris_mem_set_band(&mem, 1, 1, 4, NULL) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_spill_tile(NULL, &plan, 1, out, 2, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill_tile(&mem, NULL, 1, out, 2, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, NULL, 2, 4) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill_tile(&mem, &plan, NT, out, 2, 4) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, out, 0, 2) == TIGRIS_MEM_ERR_BAD_RANGE); /* row 0 not resident */
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, out, 3, 5) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, out, 2, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, out, 2, 4) == TIGRIS_MEM_OK);
    CHECK(ptrs[1] == out && mem.counters.spills_bytes == 2u * 2u * 12u);
    tigris_mem_rows(&mem, &plan, 1, &s, &e);
    CHECK(s == 0 && e == 5); /* the band is gone: the pointer is the full tensor again */
    for (n = 0; n < 2; n++) {
        for (r = 0; r < 5; r++) {
            const uint8_t *row = out + (n * 5u + r) * 12u;
            if (r >= 2 && r < 4) CHECK(memcmp(row, full + (n * 5u + r) * 12u, 12) == 0);
            else CHECK(row[0] == 0xEE && row[11] == 0xEE);
        }
    }
    ptrs[2] = NULL;
    CHECK(tigris_mem_spill_tile(&mem, &plan, 2, out, 0, 1) == TIGRIS_MEM_ERR_NOT_SET);
    /* a destination smaller than the tensor is refused */
    CHECK(tigris_mem_alloc_slow(&mem, 3, 10) == TIGRIS_MEM_OK);
    ptrs[1] = band;
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, ptrs[3], 0, 1) == TIGRIS_MEM_ERR_BAD_RANGE);
    /* rank-2 tensors are one row: [0, 1) loads all of it */
    CHECK(tigris_mem_alloc_slow(&mem, 2, 60) == TIGRIS_MEM_OK);
    fill(ptrs[2], 60, 41);
    CHECK(tigris_mem_load_tile(&mem, &plan, 2, 0, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_tile(&mem, &plan, 2, 0, 1) == TIGRIS_MEM_OK);
    CHECK(in_fast(ptrs[2]) && same(ptrs[2], 60, 41));
    /* rank 3 [N, C, L]: rows along L, stored [N, L, C] */
    tigris_mem_rows(&mem, &plan, 3, &s, &e);
    CHECK(s == 0 && e == 7);
    /* rows of bad arguments */
    tigris_mem_rows(NULL, &plan, 0, &s, &e);
    CHECK(s == 0 && e == 0);
    tigris_mem_rows(&mem, &plan, NT, &s, &e);
    CHECK(s == 0 && e == 0);
    tigris_mem_rows(&mem, &plan, 0, NULL, NULL);
    /* set_band: errors, replacement, table full */
    CHECK(tigris_mem_set_band(NULL, 0, 0, 1, NULL) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_set_band(&mem, NT, 0, 1, NULL) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_set_band(&mem, 0, 2, 2, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_set_band(&mem, 0, -1, 2, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_set_band(&mem, 0, 2, 3, NULL) == TIGRIS_MEM_OK);
    tigris_mem_rows(&mem, &plan, 0, &s, &e);
    CHECK(s == 2 && e == 3);
    tigris_mem_reset_fast(&mem);
    CHECK(mem.tile.num_bands == 0 && mem.num_fast_allocs == 0 && mem.fast_used == 0);
    init(2048, 2048);
    for (i = 0; i < TIGRIS_MAX_BANDS; i++) {
        /* a full table (of bands of other tensors) */
        mem.tile.bands[i].tensor = (uint16_t)(100 + i);
    }
    mem.tile.num_bands = TIGRIS_MAX_BANDS;
    CHECK(tigris_mem_set_band(&mem, 0, 0, 1, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_alloc_slow(&mem, 0, 120) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 0, 1) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(mem.num_fast_allocs == 0); /* refused before allocating */
}

/* Byte b of pixel (n, r, c) of tensor 0 (int8 [2, 3, 5, 4]: N, C, H, W, 3 bytes a pixel) at
 * p, held as rows [r0, ...) x columns [c0, c0 + cols) of every batch item (rows per item: rows). */
static const uint8_t *px(const uint8_t *p, uint32_t n, uint32_t r, uint32_t c, uint32_t r0, uint32_t rows,
                         uint32_t c0, uint32_t cols) {
    return p + ((n * rows + (r - r0)) * cols + (c - c0)) * 3u;
}

/* 2-D tiles: load_window / spill_window move N x rows runs of cols * pixel bytes, count exactly
 * those bytes, and record the window; the full-width calls are their every-column cases. */
static void test_windows(void) {
    uint8_t *full, *win, *out;
    int32_t s, e;
    uint32_t n, r, c, before;
    int i;
    make_plan();
    init(2048, 2048);
    /* columns of tensors without a band: [0, W); rank <= 3 tensors have one column */
    tigris_mem_cols(&mem, &plan, 0, &s, &e);
    CHECK(s == 0 && e == 4);
    tigris_mem_cols(&mem, &plan, 3, &s, &e);
    CHECK(s == 0 && e == 1);
    tigris_mem_cols(&mem, &plan, 2, &s, &e);
    CHECK(s == 0 && e == 1);
    tigris_mem_cols(NULL, &plan, 0, &s, &e);
    CHECK(s == 0 && e == 0);
    tigris_mem_cols(&mem, &plan, NT, &s, &e);
    CHECK(s == 0 && e == 0);
    /* window sizes: N x rows x cols x pixel; 0 outside the tensor or empty */
    CHECK(tigris_mem_window_bytes(&plan, 0, 1, 4, 1, 3) == 2u * 3u * 2u * 3u);
    CHECK(tigris_mem_window_bytes(&plan, 0, 0, 5, 0, 4) == 120u);
    CHECK(tigris_mem_window_bytes(&plan, 2, 0, 1, 0, 1) == 60u && tigris_mem_window_bytes(&plan, 3, 2, 5, 0, 1) == 24u);
    CHECK(tigris_mem_window_bytes(&plan, 0, 1, 4, 3, 5) == 0 && tigris_mem_window_bytes(&plan, 0, 1, 4, 2, 2) == 0);
    CHECK(tigris_mem_window_bytes(&plan, 0, 4, 6, 0, 1) == 0 && tigris_mem_window_bytes(&plan, 0, 0, 1, -1, 1) == 0);
    CHECK(tigris_mem_window_bytes(&plan, 2, 0, 1, 0, 2) == 0 && tigris_mem_window_bytes(&plan, NT, 0, 1, 0, 1) == 0);
    CHECK(tigris_mem_window_bytes(NULL, 0, 0, 1, 0, 1) == 0);
    /* load_window: argument errors, then rows 1..3 x columns 1..2 */
    CHECK(tigris_mem_load_window(NULL, &plan, 0, 0, 1, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_load_window(&mem, NULL, 0, 0, 1, 0, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_load_window(&mem, &plan, NT, 0, 1, 0, 1) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 0, 1, 0, 1) == TIGRIS_MEM_ERR_NOT_SET);
    CHECK(tigris_mem_alloc_slow(&mem, 0, 120) == TIGRIS_MEM_OK);
    full = (uint8_t *)ptrs[0];
    fill(full, 120, 60);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 1, 4, -1, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 1, 4, 2, 5) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 1, 4, 2, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 4, 6, 0, 1) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(mem.num_fast_allocs == 0 && mem.counters.loads_bytes == 0); /* refused before allocating */
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 1, 4, 1, 3) == TIGRIS_MEM_OK);
    win = (uint8_t *)ptrs[0];
    CHECK(in_fast(win) && mem.fast_allocs[0].size == 36u && mem.counters.loads_bytes == 36u);
    CHECK(mem.tile.num_bands == 1 && mem.tile.bands[0].slow_ptr == full);
    CHECK(mem.tile.bands[0].w_start == 1 && mem.tile.bands[0].w_end == 3);
    tigris_mem_rows(&mem, &plan, 0, &s, &e);
    CHECK(s == 1 && e == 4);
    tigris_mem_cols(&mem, &plan, 0, &s, &e);
    CHECK(s == 1 && e == 3);
    for (n = 0; n < 2; n++)
        for (r = 1; r < 4; r++)
            for (c = 1; c < 3; c++) CHECK(memcmp(px(win, n, r, c, 1, 3, 1, 2), px(full, n, r, c, 0, 5, 0, 4), 3) == 0);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 1, 4, 1, 3) == TIGRIS_MEM_ERR_BAD_RANGE); /* the source is the window */
    /* spill_window: rows 2..3 x column 2 of that window into a full tensor, nothing else */
    CHECK(tigris_mem_alloc_slow(&mem, 1, 120) == TIGRIS_MEM_OK);
    out = (uint8_t *)ptrs[1];
    memset(out, 0xEE, 120);
    ptrs[1] = win;
    CHECK(tigris_mem_set_window(&mem, 1, 1, 4, 1, 3, NULL) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_spill_window(NULL, &plan, 1, out, 2, 4, 2, 3) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, NULL, 2, 4, 2, 3) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_spill_window(&mem, &plan, NT, out, 2, 4, 2, 3) == TIGRIS_MEM_ERR_BAD_INDEX);
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, out, 2, 4, 0, 2) == TIGRIS_MEM_ERR_BAD_RANGE); /* column 0 */
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, out, 2, 4, 2, 4) == TIGRIS_MEM_ERR_BAD_RANGE); /* column 3 */
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, out, 0, 2, 2, 3) == TIGRIS_MEM_ERR_BAD_RANGE); /* row 0 */
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, out, 2, 4, 2, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(mem.counters.spills_bytes == 0 && out[0] == 0xEE);
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, out, 2, 4, 2, 3) == TIGRIS_MEM_OK);
    CHECK(ptrs[1] == out && mem.counters.spills_bytes == 2u * 2u * 1u * 3u);
    tigris_mem_cols(&mem, &plan, 1, &s, &e);
    CHECK(s == 0 && e == 4); /* the window is gone: the pointer is the full tensor again */
    for (n = 0; n < 2; n++)
        for (r = 0; r < 5; r++)
            for (c = 0; c < 4; c++) {
                const uint8_t *got = px(out, n, r, c, 0, 5, 0, 4);
                if (r >= 2 && r < 4 && c == 2) CHECK(memcmp(got, px(full, n, r, c, 0, 5, 0, 4), 3) == 0);
                else CHECK(got[0] == 0xEE && got[2] == 0xEE);
            }
    /* spill_tile of a window writes the window's columns of those rows */
    ptrs[1] = win;
    CHECK(tigris_mem_set_window(&mem, 1, 1, 4, 1, 3, NULL) == TIGRIS_MEM_OK);
    before = mem.counters.spills_bytes;
    CHECK(tigris_mem_spill_tile(&mem, &plan, 1, out, 1, 2) == TIGRIS_MEM_OK);
    CHECK(mem.counters.spills_bytes - before == 2u * 1u * 2u * 3u);
    for (n = 0; n < 2; n++)
        for (c = 0; c < 4; c++) {
            const uint8_t *got = px(out, n, 1, c, 0, 5, 0, 4);
            if (c == 1 || c == 2) CHECK(memcmp(got, px(full, n, 1, c, 0, 5, 0, 4), 3) == 0);
            else CHECK(got[0] == 0xEE);
        }
    /* a destination smaller than the whole tensor is refused */
    CHECK(tigris_mem_alloc_slow(&mem, 3, 10) == TIGRIS_MEM_OK);
    ptrs[1] = win;
    CHECK(tigris_mem_set_window(&mem, 1, 1, 4, 1, 3, NULL) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_spill_window(&mem, &plan, 1, ptrs[3], 1, 2, 1, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    /* load_tile is the every-column case, recorded as whole rows */
    tigris_mem_reset_fast(&mem);
    ptrs[0] = full;
    before = mem.counters.loads_bytes;
    CHECK(tigris_mem_load_tile(&mem, &plan, 0, 2, 3) == TIGRIS_MEM_OK);
    CHECK(mem.counters.loads_bytes - before == 24u && mem.tile.bands[0].w_end == 0);
    CHECK(memcmp(ptrs[0], full + 2u * 12u, 12) == 0 && memcmp((uint8_t *)ptrs[0] + 12, full + 7u * 12u, 12) == 0);
    /* a rank-3 tensor has one column: [0, 1) is all of it */
    CHECK(tigris_mem_alloc_slow(&mem, 3, 56) == TIGRIS_MEM_OK);
    fill(ptrs[3], 56, 61);
    CHECK(tigris_mem_load_window(&mem, &plan, 3, 0, 7, 0, 2) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_load_window(&mem, &plan, 3, 2, 5, 0, 1) == TIGRIS_MEM_OK);
    CHECK(memcmp(ptrs[3], (const uint8_t *)mem.tile.bands[1].slow_ptr + 2u * 8u, 24) == 0);
    /* the band table full: refused before allocating */
    init(2048, 2048);
    for (i = 0; i < TIGRIS_MAX_BANDS; i++) mem.tile.bands[i].tensor = (uint16_t)(100 + i);
    mem.tile.num_bands = TIGRIS_MAX_BANDS;
    CHECK(tigris_mem_alloc_slow(&mem, 0, 120) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_load_window(&mem, &plan, 0, 0, 1, 0, 1) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_set_window(&mem, 0, 0, 1, 0, 1, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(mem.num_fast_allocs == 0);
    /* set_window: an empty or negative column range */
    init(2048, 2048);
    CHECK(tigris_mem_set_window(NULL, 0, 0, 1, 0, 1, NULL) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_set_window(&mem, 0, 0, 1, 1, 1, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_set_window(&mem, 0, 0, 1, -1, 1, NULL) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(mem.tile.num_bands == 0);
}

static void test_reserved(void) {
    init(8u * A, 0);
    CHECK(tigris_mem_set_reserved(NULL, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_set_reserved(&mem, 8u * A + 1u) == TIGRIS_MEM_ERR_OOM);
    CHECK(tigris_mem_set_reserved(&mem, 0xFFFFFFFFu) == TIGRIS_MEM_ERR_OOM);
    CHECK(tigris_mem_set_reserved(&mem, A + 1u) == TIGRIS_MEM_OK);
    CHECK(mem.fast_reserved == A + 1u && mem.fast_used == 2u * A && mem.counters.fast_peak == 2u * A);
    CHECK(tigris_mem_alloc_fast(&mem, 0, 1) == TIGRIS_MEM_OK);
    CHECK((uint8_t *)ptrs[0] == mem.fast_base + 2u * A);
    CHECK(tigris_mem_set_reserved(&mem, 0) == TIGRIS_MEM_ERR_BAD_RANGE);
    CHECK(tigris_mem_alloc_fast(&mem, 1, 4u * A) == TIGRIS_MEM_OK);
    CHECK(mem.counters.fast_peak == 7u * A);
    /* compaction never moves anything into the reserved prefix */
    CHECK(tigris_mem_set_refs(&mem, 0, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_compact_fast(&mem) == A && (uint8_t *)ptrs[1] == mem.fast_base + 2u * A);
    tigris_mem_reset_fast(&mem);
    CHECK(mem.fast_used == 2u * A && mem.num_fast_allocs == 0);
    CHECK(ptrs[1] != NULL); /* reset does not touch tensor pointers */
    CHECK(mem.counters.fast_peak == 7u * A);
    tigris_mem_reset_fast(NULL);
    CHECK(tigris_mem_alloc_fast(&mem, 2, 6u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 3, 1) == TIGRIS_MEM_ERR_OOM);
}

/* The accumulator of reduction tiles: after the reserved prefix, kept by reset and compaction,
 * counted by fast_peak, released with 0. */
static void test_accumulator(void) {
    init(8u * A, 0);
    CHECK(mem.tile.reduce_op == TIGRIS_NONE16 && mem.tile.acc == NULL && mem.tile.acc_bytes == 0);
    CHECK(tigris_mem_set_acc(NULL, 1) == TIGRIS_MEM_ERR_NULL);
    CHECK(tigris_mem_set_reserved(&mem, A + 1u) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_set_acc(&mem, 6u * A + 1u) == TIGRIS_MEM_ERR_OOM); /* 2 A prefix + 7 A > 8 A */
    CHECK(tigris_mem_set_acc(&mem, 0xFFFFFFFFu) == TIGRIS_MEM_ERR_OOM);
    CHECK(mem.tile.acc == NULL && mem.fast_used == 2u * A); /* refused: nothing changed */
    CHECK(tigris_mem_set_acc(&mem, A + 3u) == TIGRIS_MEM_OK);
    CHECK((uint8_t *)mem.tile.acc == mem.fast_base + 2u * A && mem.tile.acc_bytes == A + 3u);
    CHECK(mem.fast_used == 4u * A && mem.counters.fast_peak == 4u * A);
    fill(mem.tile.acc, A + 3u, 9);
    CHECK(tigris_mem_set_reserved(&mem, 0) == TIGRIS_MEM_ERR_BAD_RANGE); /* the prefix cannot move under it */
    CHECK(tigris_mem_alloc_fast(&mem, 0, A) == TIGRIS_MEM_OK && (uint8_t *)ptrs[0] == mem.fast_base + 4u * A);
    CHECK(tigris_mem_alloc_fast(&mem, 1, 2u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_set_acc(&mem, 0) == TIGRIS_MEM_ERR_BAD_RANGE); /* allocations above it */
    CHECK(mem.counters.fast_peak == 7u * A);
    /* compaction moves allocations down to the accumulator's end, not over it */
    CHECK(tigris_mem_set_refs(&mem, 0, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_compact_fast(&mem) == A && (uint8_t *)ptrs[1] == mem.fast_base + 4u * A);
    tigris_mem_reset_fast(&mem); /* as after a tile */
    CHECK(mem.fast_used == 4u * A && mem.num_fast_allocs == 0 && same(mem.tile.acc, A + 3u, 9));
    CHECK(tigris_mem_alloc_fast(&mem, 2, 4u * A) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_alloc_fast(&mem, 3, 1) == TIGRIS_MEM_ERR_OOM);
    tigris_mem_reset_fast(&mem);
    CHECK(tigris_mem_set_acc(&mem, 0) == TIGRIS_MEM_OK);
    CHECK(mem.tile.acc == NULL && mem.tile.acc_bytes == 0 && mem.fast_used == 2u * A);
    CHECK(tigris_mem_alloc_fast(&mem, 0, 6u * A) == TIGRIS_MEM_OK && (uint8_t *)ptrs[0] == mem.fast_base + 2u * A);
    /* no arena at all: only an empty accumulator fits */
    CHECK(tigris_mem_init(&mem, ptrs, NT, NULL, 0, NULL, 0) == TIGRIS_MEM_OK);
    CHECK(tigris_mem_set_acc(&mem, 1) == TIGRIS_MEM_ERR_OOM && tigris_mem_set_acc(&mem, 0) == TIGRIS_MEM_OK);
}

static void test_error_strings(void) {
    static const tigris_mem_error_t codes[] = {TIGRIS_MEM_OK, TIGRIS_MEM_ERR_NULL, TIGRIS_MEM_ERR_OOM,
                                               TIGRIS_MEM_ERR_BAD_INDEX, TIGRIS_MEM_ERR_NOT_SET,
                                               TIGRIS_MEM_ERR_BAD_RANGE};
    size_t i, j;
    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK(tigris_mem_error_str(codes[i]) != NULL && tigris_mem_error_str(codes[i])[0] != '\0');
        for (j = 0; j < i; j++) CHECK(strcmp(tigris_mem_error_str(codes[i]), tigris_mem_error_str(codes[j])) != 0);
    }
    CHECK(strstr(tigris_mem_error_str((tigris_mem_error_t)-99), "unknown") != NULL);
}

int main(void) {
    test_init();
    test_alloc_fast();
    test_alloc_slow();
    test_refs_and_compaction();
    test_alloc_fallbacks();
    test_load_spill();
    test_slow_free_compact();
    test_tiles();
    test_windows();
    test_reserved();
    test_accumulator();
    test_error_strings();
    printf("test_mem: %d checks, %d failed\n", g_checks, g_failed);
    return g_failed == 0 ? 0 : 1;
}
