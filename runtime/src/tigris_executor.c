/* tigris_executor.c - run a loaded plan stage by stage (normal, tiled, chained).
 *
 * The memory plan is the compiler's: stage boundaries, reload and spill sets, tile
 * heights and chains come from the file. The executor follows it, checks it
 * against the memory it was given, and derives nothing but each tile's row ranges
 * (tigris_bands.c, the twin of the compiler's bands). All state lives in the
 * caller's tigris_mem_t and in the small run_t on this stack.
 */
#include "tigris_executor.h"

#include <string.h>

#include "tigris_bands.h"
#include "tigris_loader.h"

#define REFS_MAX 0xFFFEu

typedef struct {
    const tigris_plan_t *plan;
    tigris_mem_t *mem;
    tigris_kernel_fn kernel;
    void *ctx;
    uint16_t block; /* weight block now in the reserved prefix (LZ4), TIGRIS_NONE16: none */
    uint16_t stage; /* the stage running, TIGRIS_NONE16 before the first */
    int dense;      /* a dense op runs in blocks of its output features (output-feature or reduction blocks) */
    tigris_exec_stats_t st;
} run_t;

static uint32_t align_up(uint32_t v) {
    uint32_t a = (uint32_t)TIGRIS_TENSOR_ALIGN;
    return v > UINT32_MAX - (a - 1u) ? UINT32_MAX : (v + a - 1u) / a * a;
}

static int is_constant(const tigris_plan_t *plan, uint16_t t) {
    return plan->tensors[t].weight != TIGRIS_NONE16 || (plan->tensors[t].flags & TIGRIS_TENSOR_CONSTANT) != 0;
}

static int listed(const uint16_t *list, uint32_t n, uint16_t t) {
    uint32_t i;
    for (i = 0; i < n; i++) {
        if (list[i] == t) return 1;
    }
    return 0;
}

/* ---- plan checks (the loader validates too; the executor never trusts an index) ---- */

static int pool_ok(const tigris_plan_t *plan, uint32_t off, uint32_t n) {
    return off <= plan->index_pool_len && n <= plan->index_pool_len - off;
}

static int tensors_ok(const tigris_plan_t *plan, uint32_t off, uint32_t n) {
    uint32_t i;
    if (!pool_ok(plan, off, n)) return 0;
    for (i = 0; i < n; i++) {
        if (plan->index_pool[off + i] >= plan->header->num_tensors) return 0;
    }
    return 1;
}

static int stage_ok(const tigris_plan_t *plan, uint16_t s) {
    const tigris_stage_t *st = &plan->stages[s];
    uint16_t i;
    if (!pool_ok(plan, st->ops, st->num_ops) || !tensors_ok(plan, st->inputs, st->num_inputs) ||
        !tensors_ok(plan, st->outputs, st->num_outputs))
        return 0;
    if (st->tile_plan != TIGRIS_NONE16 && (st->tile_plan >= plan->header->num_tile_plans || plan->tile_plans == NULL))
        return 0;
    for (i = 0; i < st->num_ops; i++) {
        uint16_t o = plan->index_pool[st->ops + i];
        const tigris_op_t *op;
        if (o >= plan->header->num_ops) return 0;
        op = &plan->ops[o];
        if (!tensors_ok(plan, op->inputs, op->num_inputs) || !tensors_ok(plan, op->outputs, op->num_outputs))
            return 0;
    }
    return 1;
}

/* ---- weights ---- */

/* Point every in-place constant at its bytes (LZ4 block weights: NULL until decoded). */
static tigris_exec_error_t bind_constants(const tigris_plan_t *plan, tigris_mem_t *mem) {
    uint16_t t;
    for (t = 0; t < plan->header->num_tensors; t++) {
        uint16_t w = plan->tensors[t].weight;
        if (w == TIGRIS_NONE16) continue;
        if (w >= plan->header->num_weights || plan->weight_entries == NULL) return TIGRIS_EXEC_ERR_PLAN;
        if (plan->weight_entries[w].block != TIGRIS_NONE16 && plan->weight_entries[w].block >= plan->num_weight_blocks)
            return TIGRIS_EXEC_ERR_PLAN;
        mem->tensor_ptrs[t] = (void *)(uintptr_t)tigris_tensor_weight(plan, t);
    }
    return TIGRIS_EXEC_OK;
}

/* With LZ4: make the stage's weight block the one in the reserved prefix. */
static tigris_exec_error_t ensure_block(run_t *r, const tigris_stage_t *stage) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_weight_block_t *blk;
    uint16_t b = stage->weight_block, old = r->block, t;
    int32_t n;
    if (plan->weight_compression != TIGRIS_COMPRESSION_LZ4 || b == TIGRIS_NONE16 || b == old) return TIGRIS_EXEC_OK;
    if (b >= plan->num_weight_blocks || plan->weight_blocks == NULL || plan->weight_blocks_data == NULL)
        return TIGRIS_EXEC_ERR_WEIGHTS;
    blk = &plan->weight_blocks[b];
    if (mem->fast_base == NULL || blk->raw_size > mem->fast_reserved) return TIGRIS_EXEC_ERR_WEIGHTS;
    r->block = TIGRIS_NONE16; /* the prefix is overwritten from here on */
    n = tigris_lz4_decompress(plan->weight_blocks_data + blk->offset, blk->size, mem->fast_base, mem->fast_reserved);
    for (t = 0; t < plan->header->num_tensors; t++) { /* bind_constants checked every entry index */
        const tigris_weight_entry_t *e;
        if (plan->tensors[t].weight == TIGRIS_NONE16) continue;
        e = &plan->weight_entries[plan->tensors[t].weight];
        if (e->block == TIGRIS_NONE16) continue;
        if (e->block == b && n >= 0 && (uint32_t)n == blk->raw_size && e->offset <= blk->raw_size &&
            e->size <= blk->raw_size - e->offset) {
            mem->tensor_ptrs[t] = mem->fast_base + e->offset;
        } else if (e->block == b || e->block == old) {
            mem->tensor_ptrs[t] = NULL;
            if (e->block == b) return TIGRIS_EXEC_ERR_WEIGHTS;
        }
    }
    if (n < 0 || (uint32_t)n != blk->raw_size) return TIGRIS_EXEC_ERR_WEIGHTS;
    r->block = b;
    return TIGRIS_EXEC_OK;
}

/* ---- ops ---- */

/* Uses of tensor t as an operand by the ops of stages first..last that come after
 * op position `pos` of stage `k` (pos -1: all ops of stage k and later). */
static uint32_t uses_after(const run_t *r, uint16_t first, uint16_t last, uint16_t k, int32_t pos, uint16_t t) {
    const tigris_plan_t *plan = r->plan;
    uint32_t count = 0;
    uint16_t s;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        uint16_t i;
        if (s < k) continue;
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[ops[i]];
            const uint16_t *ins = tigris_op_inputs(plan, op);
            uint8_t j;
            if (s == k && (int32_t)i <= pos) continue;
            for (j = 0; j < op->num_inputs; j++) count += ins[j] == t;
        }
    }
    return count;
}

static uint16_t refs_of(uint32_t n) { return (uint16_t)(n > REFS_MAX ? REFS_MAX : n); }

static tigris_exec_error_t mem_error(tigris_mem_error_t err) {
    return err == TIGRIS_MEM_ERR_BAD_RANGE ? TIGRIS_EXEC_ERR_TILE : TIGRIS_EXEC_ERR_MEM;
}

/* Bytes of tensor t's band b: its rows (every row if it has none to cut) x its columns (every
 * column outside 2-D tiles); the whole size for a band outside the tensor. A dense op in blocks
 * of output features (`dense`: the lone op of the stage, whose outputs alone are allocated here)
 * writes its rank-2 output [N, M] as the block's features: N x (c_end - c_start) values. */
static uint32_t band_bytes(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, const tigris_band_t *b,
                           int dense) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    int32_t rows = tigris_tensor_rows(plan, tt), h0 = b->h_start, h1 = b->h_end, w0, w1;
    uint32_t bytes;
    if (dense && mem->tile.c_end != 0 && tt->ndim == 2) {
        const int32_t *shape = tigris_tensor_shape(plan, tt);
        uint64_t n = (uint64_t)(uint32_t)shape[0] * (uint64_t)(uint32_t)(mem->tile.c_end - mem->tile.c_start);
        /* feature_blocks_ok: 0 <= c_start < c_end <= M, so the block is within the tensor */
        return (uint32_t)(n * tigris_dtype_size(tt->dtype));
    }
    if (tt->ndim < 3 || rows <= 1) {
        h0 = 0;
        h1 = 1;
    }
    tigris_mem_cols(mem, plan, t, &w0, &w1);
    bytes = tigris_mem_window_bytes(plan, t, h0, h1, w0, w1);
    return bytes != 0 ? bytes : tt->size;
}

/* The kernel of op op_idx, its operands in place: every input must have data. */
static tigris_exec_error_t call_kernel(run_t *r, uint16_t op_idx) {
    const tigris_plan_t *plan = r->plan;
    const tigris_op_t *op = &plan->ops[op_idx];
    const uint16_t *ins = tigris_op_inputs(plan, op);
    int rc;
    uint8_t j;
    for (j = 0; j < op->num_inputs; j++) {
        r->st.error_tensor = ins[j];
        if (r->mem->tensor_ptrs[ins[j]] == NULL)
            return is_constant(plan, ins[j]) ? TIGRIS_EXEC_ERR_WEIGHTS : TIGRIS_EXEC_ERR_MEM;
    }
    r->st.error_tensor = TIGRIS_NONE16;
    rc = r->kernel(plan, op, op_idx, r->mem, r->ctx);
    if (rc != 0) {
        r->st.kernel_error = rc;
        return TIGRIS_EXEC_ERR_KERNEL;
    }
    r->st.error_op = TIGRIS_NONE16;
    return TIGRIS_EXEC_OK;
}

/* After an op's kernel: one use of each of its activation inputs is over. */
static void release_inputs(run_t *r, uint16_t op_idx) {
    const tigris_op_t *op = &r->plan->ops[op_idx];
    const uint16_t *ins = tigris_op_inputs(r->plan, op);
    uint8_t j;
    for (j = 0; j < op->num_inputs; j++) {
        if (!is_constant(r->plan, ins[j])) (void)tigris_mem_release(r->mem, ins[j]);
    }
}

/* The slot of a row cache: its bytes in the accumulator region (setup_caches laid them out
 * within acc_bytes). */
static uint8_t *slot_of(const tigris_mem_t *mem, const tigris_row_cache_t *c) {
    return (uint8_t *)mem->tile.acc + c->offset;
}

/* An op writing a cached tensor (its one output) in a row-cache tile: it computes only the
 * rows from the cache's `fresh` on, straight into the slot after the kept rows (nothing is
 * allocated, nothing counted in references: the slot outlives the tile). While the kernel runs
 * the output's band and pointer are those rows, so a kernel writes just them; afterwards they are
 * the whole band at the slot's start, which is what consumers and spills read. An op with no new
 * row does not run. */
static tigris_exec_error_t run_cached_op(run_t *r, uint16_t op_idx) {
    tigris_mem_t *mem = r->mem;
    const uint16_t o = tigris_op_outputs(r->plan, &r->plan->ops[op_idx])[0];
    const tigris_row_cache_t *c = tigris_band_cache_find(mem, o);
    tigris_band_t *b = tigris_band_find(mem, o); /* run_op: the op is needed, its one output has a band */
    int32_t h0 = b->h_start;
    tigris_exec_error_t err;
    if (c->fresh >= b->h_end) { /* prepare_caches: every row of the band is kept */
        r->st.error_op = TIGRIS_NONE16;
        return TIGRIS_EXEC_OK;
    }
    /* prepare_caches: h0 <= fresh < h_end and h_end - h0 <= the slot's rows */
    mem->tensor_ptrs[o] = slot_of(mem, c) + (size_t)(c->fresh - h0) * c->row_bytes;
    b->h_start = c->fresh;
    err = call_kernel(r, op_idx);
    b->h_start = h0;
    mem->tensor_ptrs[o] = slot_of(mem, c);
    if (err == TIGRIS_EXEC_OK) release_inputs(r, op_idx);
    return err;
}

/* Run op `pos` of stage k, in the stage group first..last whose last stage's
 * outputs are spilled. banded: allocate outputs as their bands; ops none of whose
 * outputs has a band are skipped (nothing of the tile needs them). */
static tigris_exec_error_t run_op(run_t *r, uint16_t first, uint16_t last, uint16_t k, uint16_t pos, int banded) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_stage_t *spill = &plan->stages[last];
    uint16_t op_idx = tigris_stage_ops(plan, &plan->stages[k])[pos];
    const tigris_op_t *op = &plan->ops[op_idx];
    const uint16_t *outs = tigris_op_outputs(plan, op);
    tigris_exec_error_t err;
    uint8_t j;
    r->stage = k;
    r->st.error_op = op_idx; /* until the op has run */
    if (banded) {
        int needed = 0;
        for (j = 0; j < op->num_outputs; j++) needed |= tigris_band_find(mem, outs[j]) != NULL;
        if (!needed) {
            r->st.error_op = TIGRIS_NONE16;
            return TIGRIS_EXEC_OK;
        }
    }
    /* find_caches: a cached tensor's writer has this one output */
    if (banded && mem->tile.num_caches != 0 && op->num_outputs == 1 && tigris_band_cache_find(mem, outs[0]) != NULL)
        return run_cached_op(r, op_idx);
    for (j = 0; j < op->num_outputs; j++) {
        uint16_t o = outs[j];
        const tigris_band_t *b = banded ? tigris_band_find(mem, o) : NULL;
        uint32_t size = b != NULL ? band_bytes(plan, mem, o, b, r->dense) : plan->tensors[o].size;
        uint32_t refs = uses_after(r, first, last, k, pos, o) + 1u; /* + 1: held while the op runs */
        tigris_mem_error_t e;
        r->st.error_tensor = o;
        if (is_constant(plan, o)) return TIGRIS_EXEC_ERR_PLAN;
        if (listed(tigris_stage_outputs(plan, spill), spill->num_outputs, o)) refs++;
        e = tigris_mem_alloc(mem, o, size);
        if (e == TIGRIS_MEM_OK) e = tigris_mem_set_refs(mem, o, refs_of(refs));
        if (e != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    }
    err = call_kernel(r, op_idx);
    if (err != TIGRIS_EXEC_OK) return err;
    release_inputs(r, op_idx);
    for (j = 0; j < op->num_outputs; j++) (void)tigris_mem_release(mem, outs[j]);
    return TIGRIS_EXEC_OK;
}

/* ---- stage bookkeeping ---- */

/* Point tensor t back at its slow copy (its band's slow pointer, else its slow allocation) or
 * NULL if it is in the arena above the reserved prefix ([lo, fast_size) from fast_base). */
static void evict(run_t *r, uint16_t t, uint32_t lo) {
    tigris_mem_t *mem = r->mem;
    uintptr_t p = (uintptr_t)mem->tensor_ptrs[t], base = (uintptr_t)mem->fast_base;
    const tigris_band_t *b;
    if (p == 0 || p < base + lo || p - base >= mem->fast_size || is_constant(r->plan, t)) return;
    b = tigris_band_find(mem, t);
    mem->tensor_ptrs[t] = (b != NULL && b->slow_ptr != NULL) ? b->slow_ptr : tigris_mem_slow_ptr(mem, t);
}

/* End of stages first..last or of one of their tiles: drop overflow allocations, point every
 * tensor that was in the arena back at its slow copy (or NULL), and empty the arena. Only a
 * tensor the stages name can be there (the executor loads their inputs, allocates their ops'
 * outputs, and points their cached tensors at slots), so only their inputs, outputs and ops'
 * operands are looked at (stage_ok checked every index), not every tensor of the plan: a tiled
 * run finishes every tile. A tensor named twice is evicted once (then it is not in the arena). */
static void finish(run_t *r, uint16_t first, uint16_t last) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const uint32_t lo = align_up(mem->fast_reserved);
    uint16_t s, i;
    uint8_t j;
    tigris_mem_free_overflow(mem);
    for (s = first; mem->fast_base != NULL && s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        const uint16_t *ins = tigris_stage_inputs(plan, st), *outs = tigris_stage_outputs(plan, st);
        for (i = 0; i < st->num_inputs; i++) evict(r, ins[i], lo);
        for (i = 0; i < st->num_outputs; i++) evict(r, outs[i], lo);
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
            for (j = 0; j < op->num_inputs; j++) evict(r, tigris_op_inputs(plan, op)[j], lo);
            for (j = 0; j < op->num_outputs; j++) evict(r, tigris_op_outputs(plan, op)[j], lo);
        }
    }
    tigris_mem_compact_slow(mem);
    tigris_mem_reset_fast(mem);
    mem->tile.active = 0;
}

/* After stages ..last: free from slow memory what no later stage reads and the
 * caller does not get back, then compact. */
static void free_dead(run_t *r, uint16_t last) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    uint16_t i, s;
    for (i = mem->num_slow_allocs; i-- > 0;) {
        uint16_t t = mem->slow_allocs[i].tensor;
        int keep = t >= plan->header->num_tensors ||
                   listed(plan->model_outputs, plan->num_model_outputs, t) ||
                   (plan->tensors[t].flags & TIGRIS_TENSOR_MODEL_OUTPUT) != 0;
        for (s = (uint16_t)(last + 1u); !keep && s < plan->header->num_stages; s++) {
            const tigris_stage_t *st = &plan->stages[s];
            keep = listed(tigris_stage_inputs(plan, st), st->num_inputs, t);
        }
        if (!keep) (void)tigris_mem_free_slow(mem, t);
    }
    tigris_mem_compact_slow(mem);
}

static tigris_exec_error_t run_normal(run_t *r, uint16_t s) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_stage_t *st = &plan->stages[s];
    const uint16_t *ins = tigris_stage_inputs(plan, st), *outs = tigris_stage_outputs(plan, st);
    tigris_exec_error_t err;
    uint16_t i;
    r->stage = s;
    tigris_mem_reset_fast(mem);
    err = ensure_block(r, st);
    for (i = 0; err == TIGRIS_EXEC_OK && i < st->num_inputs; i++) {
        tigris_mem_error_t e = tigris_mem_load(mem, ins[i], plan->tensors[ins[i]].size);
        if (e == TIGRIS_MEM_OK) e = tigris_mem_set_refs(mem, ins[i], refs_of(uses_after(r, s, s, s, -1, ins[i])));
        if (e != TIGRIS_MEM_OK) {
            r->st.error_tensor = ins[i];
            err = TIGRIS_EXEC_ERR_MEM;
        }
    }
    for (i = 0; err == TIGRIS_EXEC_OK && i < st->num_ops; i++) err = run_op(r, s, s, s, i, 0);
    for (i = 0; err == TIGRIS_EXEC_OK && i < st->num_outputs; i++) {
        if (tigris_mem_spill(mem, outs[i], plan->tensors[outs[i]].size) != TIGRIS_MEM_OK) {
            r->st.error_tensor = outs[i];
            err = TIGRIS_EXEC_ERR_MEM;
        }
    }
    finish(r, s, s);
    if (err == TIGRIS_EXEC_OK) r->st.stages_normal++;
    return err;
}

/* Whether num tiles of `size` cover `total` exactly: every index once, no tile empty. */
static int covers(uint32_t size, uint32_t num, uint32_t total) {
    return size != 0 && num != 0 && total != 0 && total <= (uint32_t)INT32_MAX &&
           (uint64_t)(num - 1u) * size < total && (uint64_t)num * size >= total;
}

/* The output of a stage in output-feature blocks (docs/tgrs-format.md, "Output-feature
 * blocks"): its one op runs in them, and its one output, the stage's, is [N, M]. */
static uint16_t feature_output(const tigris_plan_t *plan, const tigris_stage_t *st) {
    const tigris_op_t *op;
    uint16_t o;
    if (st->num_ops != 1 || st->num_outputs != 1) return TIGRIS_NONE16;
    op = &plan->ops[tigris_stage_ops(plan, st)[0]];
    if (!tigris_band_op_feature_blocks(op->op_type) || op->num_outputs != 1) return TIGRIS_NONE16;
    o = tigris_op_outputs(plan, op)[0];
    if (o != tigris_stage_outputs(plan, st)[0] || plan->tensors[o].ndim != 2) return TIGRIS_NONE16;
    return o;
}

/* Whether the tile plan runs a dense op in blocks of its output features: output-feature blocks
 * (channel blocks without reduce_op) or reduction blocks (reduce_op a feature-block op type). */
static int dense_blocks(const tigris_plan_t *plan, const tigris_tile_plan_t *tp) {
    if (tp->tile_c == 0) return 0;
    if (tp->reduce_op == TIGRIS_NONE16) return 1;
    return tp->reduce_op < plan->header->num_ops && tigris_band_op_feature_blocks(plan->ops[tp->reduce_op].op_type);
}

/* A dense op's stage in blocks of its output features: blocks of tile_c cover the M features
 * of the stage's one output (feature_output). */
static int features_covered(const tigris_plan_t *plan, const tigris_stage_t *st, const tigris_tile_plan_t *tp) {
    uint16_t o = feature_output(plan, st);
    return o != TIGRIS_NONE16 &&
           covers(tp->tile_c, tp->num_tiles_c, (uint32_t)tigris_tensor_shape(plan, &plan->tensors[o])[1]);
}

/* Output-feature blocks: one row (no row, column or chain tiling), the blocks covering the
 * output's features. */
static int feature_blocks_ok(const tigris_plan_t *plan, uint16_t s, const tigris_tile_plan_t *tp) {
    if (tp->chain >= 0 || tp->tile_h != 1 || tp->num_tiles != 1 || tp->out_h != 1 || tp->halo != 0 || tp->tile_w != 0)
        return 0;
    return features_covered(plan, &plan->stages[s], tp);
}

/* Whether the tile plan runs its group with row caches (docs/tgrs-format.md, "Row caches"). */
static int row_cache(const tigris_tile_plan_t *tp) { return (tp->flags & TIGRIS_TILE_ROW_CACHE) != 0; }

/* Reduction tiles (docs/tgrs-format.md): a lone stage whose last op accumulates, the tile
 * rows (and columns, when cut along W) being those of that op's input 0, every stage output
 * written by it, and an accumulator within the peak; without reduce_op, no accumulator but the
 * slots of row caches (full-width row tiles only, within the peak too). */
static int reduction_ok(const tigris_plan_t *plan, uint16_t s, const tigris_tile_plan_t *tp) {
    const tigris_stage_t *st = &plan->stages[s];
    const tigris_op_t *op;
    const tigris_tensor_t *in;
    uint16_t i;
    if (row_cache(tp)) /* full-width output rows whose slots take the accumulator's place */
        return tp->reduce_op == TIGRIS_NONE16 && tp->tile_w == 0 && tp->tile_c == 0 && tp->num_tiles_c == 1 &&
               tp->acc_bytes != 0 && tp->acc_bytes <= tp->peak;
    if (tp->reduce_op == TIGRIS_NONE16)
        return tp->acc_bytes == 0 && (tp->tile_c == 0 ? tp->num_tiles_c == 1 : feature_blocks_ok(plan, s, tp));
    if (tp->tile_c == 0 && tp->num_tiles_c != 1) return 0;
    /* the stage's ops were validated (stage_ok): equal to the last, reduce_op is an op index */
    if (tp->chain >= 0 || st->num_ops == 0 || tigris_stage_ops(plan, st)[st->num_ops - 1u] != tp->reduce_op) return 0;
    op = &plan->ops[tp->reduce_op];
    if (tp->acc_bytes == 0 || tp->acc_bytes > tp->peak || op->num_inputs == 0) return 0;
    if (tigris_band_op_feature_blocks(op->op_type)) { /* a dense op in reduction blocks of its K input features */
        in = &plan->tensors[tigris_op_inputs(plan, op)[0]];
        return tp->tile_c != 0 && tp->tile_w == 0 && features_covered(plan, st, tp) && in->ndim == 2 &&
               (uint32_t)tigris_tensor_shape(plan, in)[1] == tp->out_h;
    }
    if (!tigris_band_op_accumulates(op->op_type)) return 0;
    in = &plan->tensors[tigris_op_inputs(plan, op)[0]];
    if (tigris_tensor_rows(plan, in) != (int32_t)tp->out_h) return 0;
    if (tp->tile_w != 0 && (in->ndim != 4 || tigris_tensor_shape(plan, in)[3] != (int32_t)tp->out_w)) return 0;
    /* channel blocks cover the input's channels (model order [N, C, ...]) */
    if (tp->tile_c != 0 && (in->ndim < 3 || !covers(tp->tile_c, tp->num_tiles_c, (uint32_t)tigris_tensor_shape(plan, in)[1])))
        return 0;
    for (i = 0; i < st->num_outputs; i++) {
        if (!listed(tigris_op_outputs(plan, op), op->num_outputs, tigris_stage_outputs(plan, st)[i])) return 0;
    }
    return 1;
}

/* 2-D tiles (docs/tgrs-format.md, "2-D tiles"): a lone stage (no chain) whose column tiles
 * cover its out_w columns; reduction tiles cut along W are one row tall with no column halo
 * (row-major order, as the untiled op sums); without tile_w, the W fields are 1, 0, 0. The ops
 * and outputs are checked with the rest of the stage (check_tiles). */
static int cols_ok(const tigris_tile_plan_t *tp) {
    if (tp->tile_w == 0) return tp->num_tiles_w == 1 && tp->halo_w == 0 && tp->out_w == 0;
    if (tp->reduce_op != TIGRIS_NONE16 && (tp->tile_h != 1 || tp->halo_w != 0)) return 0;
    return tp->chain < 0 && covers(tp->tile_w, tp->num_tiles_w, tp->out_w);
}

/* An output of a tiled stage: rank 3+ with out_h rows; in 2-D tiles rank 4 with out_w columns. */
static int tiled_output_ok(const tigris_plan_t *plan, const tigris_tile_plan_t *tp, uint16_t t) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    if (tt->ndim < 3 || tigris_tensor_rows(plan, tt) != (int32_t)tp->out_h) return 0;
    return tp->tile_w == 0 || (tt->ndim == 4 && tigris_tensor_shape(plan, tt)[3] == (int32_t)tp->out_w);
}

/* The checks a tiled stage or chain must pass before its first tile. */
static tigris_exec_error_t check_tiles(const run_t *r, uint16_t first, uint16_t last, const tigris_tile_plan_t *tp) {
    const tigris_plan_t *plan = r->plan;
    const tigris_mem_t *mem = r->mem;
    const tigris_stage_t *lst = &plan->stages[last];
    uint32_t lo = align_up(mem->fast_reserved);
    uint32_t avail = mem->fast_size > lo ? mem->fast_size - lo : 0;
    const int features = dense_blocks(plan, tp);
    uint16_t s, i, j;
    if (tp->peak > avail || (tp->flags & ~(uint16_t)TIGRIS_TILE_ROW_CACHE) != 0) return TIGRIS_EXEC_ERR_TILE;
    /* the tiles cover the rows (and columns) exactly: every pixel is written (reduction: read) once */
    if (!covers(tp->tile_h, tp->num_tiles, tp->out_h) || lst->num_outputs == 0 || !reduction_ok(plan, last, tp) ||
        !cols_ok(tp))
        return TIGRIS_EXEC_ERR_TILE;
    if (features) return TIGRIS_EXEC_OK; /* reduction_ok: one dense op, its input and output checked */
    for (i = 0; tp->reduce_op == TIGRIS_NONE16 && i < lst->num_outputs; i++) {
        if (!tiled_output_ok(plan, tp, tigris_stage_outputs(plan, lst)[i])) return TIGRIS_EXEC_ERR_TILE;
    }
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[ops[i]];
            int windows = tp->tile_w != 0 && ops[i] != tp->reduce_op; /* takes windows of rows x columns */
            if (!tigris_band_op_tileable(plan, op) || (windows && !tigris_band_op_tileable_2d(op->op_type)))
                return TIGRIS_EXEC_ERR_TILE;
        }
        /* a chain: only the first stage reads slow memory, only the last writes it */
        for (i = 0; s > first && i < st->num_inputs; i++) {
            uint16_t t = tigris_stage_inputs(plan, st)[i];
            int linked = 0;
            for (j = first; j < s && !linked; j++)
                linked = listed(tigris_stage_outputs(plan, &plan->stages[j]), plan->stages[j].num_outputs, t);
            if (!linked) return TIGRIS_EXEC_ERR_TILE;
        }
        for (i = 0; s < last && i < st->num_outputs; i++) {
            uint16_t t = tigris_stage_outputs(plan, st)[i];
            int linked = 0;
            for (j = (uint16_t)(s + 1u); j <= last && !linked; j++)
                linked = listed(tigris_stage_inputs(plan, &plan->stages[j]), plan->stages[j].num_inputs, t);
            if (!linked) return TIGRIS_EXEC_ERR_TILE;
        }
    }
    return TIGRIS_EXEC_OK;
}

/* Spill the stage's outputs whole: after the last tile of a reduction stage, whose
 * accumulating op has written them then (earlier tiles only accumulate). */
static tigris_exec_error_t spill_whole(run_t *r, const tigris_stage_t *st) {
    const tigris_plan_t *plan = r->plan;
    uint16_t i;
    for (i = 0; i < st->num_outputs; i++) {
        uint16_t t = tigris_stage_outputs(plan, st)[i];
        tigris_mem_error_t e = tigris_mem_spill(r->mem, t, plan->tensors[t].size);
        if (e != TIGRIS_MEM_OK) {
            r->st.error_tensor = t;
            return mem_error(e);
        }
    }
    return TIGRIS_EXEC_OK;
}

/* A tile: output rows [h0, h1) and, in 2-D tiles, output columns [w0, w1) (w1 0: full width);
 * reduction tiles in channel blocks: input channels [c0, c1) (c1 0: all). */
typedef struct {
    int32_t h0, h1, w0, w1, c0, c1;
} tile_t;

/* Spill channels [c0, c1) of the stage's outputs after the last tile of a channel block (the
 * accumulating op has written them then; every output of the stage is one of its outputs,
 * whose channels are its input's). */
static tigris_exec_error_t spill_block(run_t *r, const tigris_stage_t *st, int32_t c0, int32_t c1) {
    const tigris_plan_t *plan = r->plan;
    uint16_t i;
    for (i = 0; i < st->num_outputs; i++) {
        uint16_t t = tigris_stage_outputs(plan, st)[i];
        void *full = tigris_mem_slow_ptr(r->mem, t);
        tigris_mem_error_t e = full != NULL ? tigris_mem_spill_channels(r->mem, plan, t, full, c0, c1)
                                            : TIGRIS_MEM_ERR_NOT_SET;
        if (e != TIGRIS_MEM_OK) {
            r->st.error_tensor = t;
            return mem_error(e);
        }
    }
    return TIGRIS_EXEC_OK;
}

/* Output-feature blocks: write features [c0, c1) of the stage's one output, computed into a
 * block of the arena, into its full slow copy. */
static tigris_exec_error_t spill_features(run_t *r, const tigris_stage_t *st, int32_t c0, int32_t c1) {
    uint16_t t = tigris_stage_outputs(r->plan, st)[0]; /* feature_blocks_ok: the one output */
    void *full = tigris_mem_slow_ptr(r->mem, t);
    tigris_mem_error_t e = full != NULL ? tigris_mem_spill_features(r->mem, r->plan, t, full, c0, c1)
                                        : TIGRIS_MEM_ERR_NOT_SET;
    if (e == TIGRIS_MEM_OK) return TIGRIS_EXEC_OK;
    r->st.error_tensor = t;
    return mem_error(e);
}

/* Load the band of first-stage input t the tile reads: its window (2-D tiles), its rows, or the
 * whole tensor if it has no rows to cut. */
static tigris_mem_error_t load_band(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t t, tigris_band_t *b,
                                    int dense) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    tigris_mem_error_t e;
    void *src;
    if (dense && mem->tile.reduce_op != TIGRIS_NONE16) /* reduction blocks: K features [h_start, h_end) */
        return tigris_mem_load_features(mem, plan, t, b->h_start, b->h_end);
    if (b->w_end != 0) return tigris_mem_load_window(mem, plan, t, b->h_start, b->h_end, b->w_start, b->w_end);
    if (tt->ndim >= 3 && tigris_tensor_rows(plan, tt) > 1)
        return tigris_mem_load_tile(mem, plan, t, b->h_start, b->h_end);
    src = mem->tensor_ptrs[t];
    e = tigris_mem_load(mem, t, tt->size); /* one row: the whole tensor */
    if (e == TIGRIS_MEM_OK && src != mem->tensor_ptrs[t]) b->slow_ptr = src; /* restored after the tile */
    return e;
}

/* Write the tile's rectangle of each output of the last stage into its full slow copy. */
static tigris_exec_error_t spill_tile_outputs(run_t *r, const tigris_stage_t *lst, const tile_t *tile) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    uint16_t i;
    for (i = 0; i < lst->num_outputs; i++) {
        uint16_t t = tigris_stage_outputs(plan, lst)[i];
        void *full = tigris_mem_slow_ptr(mem, t);
        tigris_mem_error_t e = TIGRIS_MEM_ERR_NOT_SET;
        if (full != NULL && tile->w1 != 0)
            e = tigris_mem_spill_window(mem, plan, t, full, tile->h0, tile->h1, tile->w0, tile->w1);
        else if (full != NULL)
            e = tigris_mem_spill_tile(mem, plan, t, full, tile->h0, tile->h1);
        if (e != TIGRIS_MEM_OK) {
            r->st.error_tensor = t;
            return mem_error(e);
        }
    }
    return TIGRIS_EXEC_OK;
}

/* Band k of `size` indices out of `total`: [k * size, min((k + 1) * size, total)) (check_tiles
 * made every band of the plan non-empty: covers). */
static void band_of(uint64_t k, uint32_t size, uint32_t total, int32_t *lo, int32_t *hi) {
    uint64_t start = k * size, end = start + size;
    *lo = (int32_t)start;
    *hi = (int32_t)(end < total ? end : total);
}

/* Whether an op of stages first..last writes tensor t. */
static int produced_in(const tigris_plan_t *plan, uint16_t first, uint16_t last, uint16_t t) {
    uint16_t s, i;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
            if (listed(tigris_op_outputs(plan, op), op->num_outputs, t)) return 1;
        }
    }
    return 0;
}

/* ---- row caches (docs/tgrs-format.md, "Row caches"; transforms/plan/row_cache.py) ----
 *
 * A group whose tile plan has TIGRIS_TILE_ROW_CACHE keeps every tensor an op of the group reads
 * through overlapping rows (tigris_op_reads_overlapping_rows), and every tensor with more than
 * one use in the group (find_caches), in a slot of the accumulator region across its tiles:
 * each tile keeps the rows of the previous one it still needs and computes (loads) only the
 * rows after them. mem->tile.caches holds the state. */

/* Add tensor t to the caches unless it is there, keeping them in tensor-number order (the
 * order of the slots). -1 if the table is full. */
static int cache_add(tigris_mem_t *mem, uint16_t t) {
    uint16_t n = mem->tile.num_caches, i;
    if (tigris_band_cache_find(mem, t) != NULL) return 0;
    if (n >= TIGRIS_MAX_BANDS) return -1;
    for (i = n; i > 0 && mem->tile.caches[i - 1u].tensor > t; i--) mem->tile.caches[i] = mem->tile.caches[i - 1u];
    memset(&mem->tile.caches[i], 0, sizeof(mem->tile.caches[i]));
    mem->tile.caches[i].tensor = t;
    mem->tile.num_caches = (uint16_t)(n + 1u);
    return 0;
}

/* Bytes of one row of cached tensor t as its slot holds it: a row of every column of a rank 3+
 * tensor with rows to cut (one batch item: consecutive rows are contiguous, so kept rows move as
 * one block and a kernel's new rows follow them); a tensor without rows to cut is one row of its
 * whole size. 0 if it cannot have a slot (a batch of several items, or a shape outside the pool
 * or its size). */
static uint32_t cache_row_bytes(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t) {
    const tigris_tensor_t *tt = &plan->tensors[t];
    int32_t w0, w1;
    if (tt->ndim < 3 || tigris_tensor_rows(plan, tt) <= 1) return tt->size;
    if (tigris_tensor_shape(plan, tt)[0] != 1) return 0;
    tigris_mem_cols(mem, plan, t, &w0, &w1); /* no band yet: every column */
    return tigris_mem_window_bytes(plan, t, 0, 1, w0, w1);
}

/* Uses of tensor t in the group first..last: the ops reading it (each once) and, for an output
 * of the last stage, its spill. */
static uint32_t group_uses(const tigris_plan_t *plan, uint16_t first, uint16_t last, uint16_t t) {
    const tigris_stage_t *lst = &plan->stages[last];
    uint32_t n = (uint32_t)listed(tigris_stage_outputs(plan, lst), lst->num_outputs, t);
    uint16_t s, i;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
            n += (uint32_t)listed(tigris_op_inputs(plan, op), op->num_inputs, t);
        }
    }
    return n;
}

/* The group's cached tensors (transforms/plan/row_cache.py cached_tensors): the non-constant
 * inputs of every op reading overlapping rows, and every tensor with more than one use in the
 * group (its uses may ask for rows at different paces). Each must come from one place the slot
 * can take it from: a first-stage input (loaded), or the one output of one op of the group
 * (computed into the slot), never both. */
static tigris_exec_error_t find_caches(run_t *r, uint16_t first, uint16_t last) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_stage_t *fst = &plan->stages[first];
    uint16_t s, i, k;
    uint8_t j;
    mem->tile.num_caches = 0;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
            const uint16_t *ins = tigris_op_inputs(plan, op);
            const int overlapping = tigris_op_reads_overlapping_rows(op);
            for (j = 0; j < op->num_inputs; j++) {
                if (is_constant(plan, ins[j]) || (!overlapping && group_uses(plan, first, last, ins[j]) < 2)) continue;
                if (cache_add(mem, ins[j]) != 0) return TIGRIS_EXEC_ERR_TILE;
            }
        }
    }
    for (k = 0; k < mem->tile.num_caches; k++) {
        tigris_row_cache_t *c = &mem->tile.caches[k];
        uint32_t writers = (uint32_t)listed(tigris_stage_inputs(plan, fst), fst->num_inputs, c->tensor);
        r->st.error_tensor = c->tensor;
        for (s = first; s <= last; s++) {
            const tigris_stage_t *st = &plan->stages[s];
            for (i = 0; i < st->num_ops; i++) {
                const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
                const uint16_t *outs = tigris_op_outputs(plan, op);
                for (j = 0; j < op->num_outputs; j++) {
                    if (outs[j] != c->tensor) continue;
                    if (op->num_outputs != 1) return TIGRIS_EXEC_ERR_TILE;
                    writers++;
                }
            }
        }
        c->row_bytes = cache_row_bytes(plan, mem, c->tensor);
        if (writers != 1 || c->row_bytes == 0) return TIGRIS_EXEC_ERR_TILE;
    }
    r->st.error_tensor = TIGRIS_NONE16;
    return TIGRIS_EXEC_OK;
}

/* After a tile's bands are computed: each cached tensor with a band takes it into its slot.
 * The band never starts before the slot's first row (a row dropped cannot come back) and
 * fits the slot; the rows [h_start, done) the previous tile left in the slot move to its
 * start, and `fresh` (the first row to compute or load) and `done` advance. A dry run (`dry`)
 * touches no memory and grows the slots to the bands instead: setup_caches runs every tile so
 * before the first. A group input's pointer is set by load_cached, after its copy is read. */
static tigris_exec_error_t prepare_caches(run_t *r, uint16_t first, int dry) {
    tigris_mem_t *mem = r->mem;
    const tigris_stage_t *fst = &r->plan->stages[first];
    uint16_t k;
    for (k = 0; k < mem->tile.num_caches; k++) {
        tigris_row_cache_t *c = &mem->tile.caches[k];
        const tigris_band_t *b = tigris_band_find(mem, c->tensor);
        int32_t keep;
        if (b == NULL) continue; /* nothing of this tile reads it: the slot stays as it is */
        r->st.error_tensor = c->tensor;
        if (b->h_start < c->start || b->h_end <= b->h_start) return TIGRIS_EXEC_ERR_TILE;
        if (dry && (uint32_t)(b->h_end - b->h_start) > c->rows) c->rows = (uint32_t)(b->h_end - b->h_start);
        if ((uint32_t)(b->h_end - b->h_start) > c->rows) return TIGRIS_EXEC_ERR_TILE;
        keep = c->done < b->h_end ? c->done : b->h_end; /* rows [h_start, keep) stay */
        if (keep > b->h_start && keep > c->end) return TIGRIS_EXEC_ERR_TILE; /* not in the slot any more */
        if (keep > b->h_start && b->h_start != c->start && !dry) {
            uint8_t *slot = slot_of(mem, c); /* [start, keep) is within [start, end): the slot's rows */
            memmove(slot, slot + (size_t)(b->h_start - c->start) * c->row_bytes,
                    (size_t)(keep - b->h_start) * c->row_bytes);
        }
        c->fresh = c->done > b->h_start ? c->done : b->h_start;
        c->start = b->h_start;
        c->end = b->h_end;
        if (b->h_end > c->done) c->done = b->h_end;
        if (!dry && !listed(tigris_stage_inputs(r->plan, fst), fst->num_inputs, c->tensor))
            mem->tensor_ptrs[c->tensor] = slot_of(mem, c);
    }
    r->st.error_tensor = TIGRIS_NONE16;
    return TIGRIS_EXEC_OK;
}

/* A cached first-stage input: copy its new rows [fresh, h_end) from its slow copy into its
 * slot after the kept ones (loads_bytes counts them), then point it at the slot; finish points
 * it back at the slow copy (the band's slow pointer) after the tile. */
static tigris_mem_error_t load_cached(tigris_mem_t *mem, const tigris_plan_t *plan, tigris_row_cache_t *c,
                                      tigris_band_t *b) {
    void *src = mem->tensor_ptrs[c->tensor];
    uint8_t *slot = slot_of(mem, c);
    if (c->fresh < b->h_end) {
        tigris_mem_error_t e = tigris_mem_load_rows(mem, plan, c->tensor,
                                                    slot + (size_t)(c->fresh - b->h_start) * c->row_bytes, c->fresh,
                                                    b->h_end);
        if (e != TIGRIS_MEM_OK) return e;
    }
    b->slow_ptr = src;
    mem->tensor_ptrs[c->tensor] = slot;
    return TIGRIS_MEM_OK;
}

/* Before the first tile of a row-cache group: find its cached tensors, size each slot by the
 * tallest band a dry run over every tile gives it, lay the slots out in tensor-number order,
 * each aligned as an arena allocation, and hold them as the accumulator region. They must fit
 * in the plan's acc_bytes (what the compiler counted in the peak, each slot aligned to the
 * plan's alignment, a multiple of TIGRIS_TENSOR_ALIGN: the same rows, as many bytes or more).
 * The caches then start empty. */
static tigris_exec_error_t setup_caches(run_t *r, uint16_t first, uint16_t last, const tigris_tile_plan_t *tp) {
    tigris_mem_t *mem = r->mem;
    tigris_exec_error_t err = find_caches(r, first, last);
    uint64_t total = 0;
    uint32_t k;
    for (k = 0; err == TIGRIS_EXEC_OK && k < tp->num_tiles; k++) {
        int32_t h0, h1;
        band_of(k, tp->tile_h, tp->out_h, &h0, &h1);
        if (tigris_bands_compute_cached(r->plan, mem, first, last, h0, h1) != 0) err = TIGRIS_EXEC_ERR_TILE;
        if (err == TIGRIS_EXEC_OK) err = prepare_caches(r, first, 1);
    }
    mem->tile.num_bands = 0;
    for (k = 0; err == TIGRIS_EXEC_OK && k < mem->tile.num_caches; k++) {
        tigris_row_cache_t *c = &mem->tile.caches[k];
        uint64_t bytes = (uint64_t)c->rows * c->row_bytes;
        c->offset = (uint32_t)total;
        total += bytes > UINT32_MAX ? bytes : align_up((uint32_t)bytes);
        if (total > UINT32_MAX) err = TIGRIS_EXEC_ERR_TILE;
        c->done = c->fresh = c->start = c->end = 0;
    }
    if (err == TIGRIS_EXEC_OK && total > tp->acc_bytes) err = TIGRIS_EXEC_ERR_TILE;
    if (err == TIGRIS_EXEC_OK && tigris_mem_set_acc(mem, tp->acc_bytes) != TIGRIS_MEM_OK) err = TIGRIS_EXEC_ERR_TILE;
    return err;
}

/* Rows the ops of stages first..last compute this tile (each output's band; a cached output:
 * the rows after those its slot kept), minus, with `whole`, the rows of those outputs: summed
 * over a row-tiled group's tiles (the outputs' rows once per column band), the rows computed
 * more than once (the recomputed_rows statistic). */
static int64_t rows_computed(const run_t *r, uint16_t first, uint16_t last, int cached, int whole) {
    const tigris_plan_t *plan = r->plan;
    int64_t rows = 0;
    uint16_t s, i, j;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        for (i = 0; i < st->num_ops; i++) {
            const tigris_op_t *op = &plan->ops[tigris_stage_ops(plan, st)[i]];
            for (j = 0; j < op->num_outputs; j++) {
                uint16_t t = tigris_op_outputs(plan, op)[j];
                const tigris_band_t *b;
                const tigris_row_cache_t *c;
                int32_t from;
                if (whole) {
                    int32_t height = tigris_tensor_rows(plan, &plan->tensors[t]);
                    rows -= height > 1 && plan->tensors[t].ndim >= 3 ? height : 1;
                    continue;
                }
                b = tigris_band_find(r->mem, t);
                if (b == NULL) continue;
                c = cached ? tigris_band_cache_find(r->mem, t) : NULL;
                from = c != NULL && c->fresh > b->h_start ? c->fresh : b->h_start;
                if (b->h_end > from) rows += b->h_end - from;
            }
        }
    }
    return rows;
}

/* One tile of stages first..last: output rows [h0, h1) (and columns [w0, w1)) of the last
 * stage (reduction tiles: rows [h0, h1) of the accumulating op's input). Adds the rows its ops
 * compute to *rows unless NULL (rows_computed). */
static tigris_exec_error_t run_tile(run_t *r, uint16_t first, uint16_t last, const tigris_tile_plan_t *tp,
                                    const tile_t *tile, int64_t *rows) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_stage_t *fst = &plan->stages[first], *lst = &plan->stages[last];
    const int reduce = tp->reduce_op != TIGRIS_NONE16;
    tigris_exec_error_t err = TIGRIS_EXEC_OK;
    uint16_t i, s;
    const int cached = row_cache(tp);
    if ((reduce   ? tigris_bands_compute_reduce(plan, mem, last, tp->reduce_op, tile->h0, tile->h1, tile->w0, tile->w1)
         : cached ? tigris_bands_compute_cached(plan, mem, first, last, tile->h0, tile->h1)
                  : tigris_bands_compute(plan, mem, first, last, tile->h0, tile->h1, tile->w0, tile->w1)) != 0)
        return TIGRIS_EXEC_ERR_TILE;
    if (cached) err = prepare_caches(r, first, 0);
    if (err == TIGRIS_EXEC_OK && rows != NULL) *rows += rows_computed(r, first, last, cached, 0);
    for (i = 0; err == TIGRIS_EXEC_OK && i < fst->num_inputs; i++) {
        uint16_t t = tigris_stage_inputs(plan, fst)[i];
        tigris_band_t *b = tigris_band_find(mem, t);
        tigris_row_cache_t *c = cached ? tigris_band_cache_find(mem, t) : NULL;
        tigris_mem_error_t e;
        if (b == NULL) continue; /* no op of this tile reads it */
        if (c != NULL) {
            e = load_cached(mem, plan, c, b);
        } else {
            e = load_band(mem, plan, t, b, r->dense);
            if (e == TIGRIS_MEM_OK) e = tigris_mem_set_refs(mem, t, refs_of(uses_after(r, first, last, first, -1, t)));
        }
        if (e != TIGRIS_MEM_OK) {
            r->st.error_tensor = t;
            return mem_error(e);
        }
    }
    for (s = first; err == TIGRIS_EXEC_OK && s <= last; s++) {
        const tigris_stage_t *st = &plan->stages[s];
        err = ensure_block(r, st);
        for (i = 0; err == TIGRIS_EXEC_OK && i < st->num_ops; i++) err = run_op(r, first, last, s, i, 1);
    }
    if (err != TIGRIS_EXEC_OK) return err;
    /* the accumulating op writes its outputs (a channel block of them) at the last pixel */
    if (reduce && ((uint32_t)tile->h1 != tp->out_h || (tile->w1 != 0 && (uint32_t)tile->w1 != tp->out_w))) return err;
    if (r->dense) return spill_features(r, lst, tile->c0, tile->c1); /* feature_blocks_ok, reduction_ok: c1 > 0 */
    if (reduce) return tile->c1 != 0 ? spill_block(r, lst, tile->c0, tile->c1) : spill_whole(r, lst);
    return spill_tile_outputs(r, lst, tile);
}

/* A spatially tiled stage (first == last) or a chain of stages sharing a tile plan. 2-D tiles
 * run in row-major order: row band i, then its column bands 0..num_tiles_w - 1 (tile index
 * i * num_tiles_w + j). */
static tigris_exec_error_t run_tiled(run_t *r, uint16_t first, uint16_t last, int chain) {
    const tigris_plan_t *plan = r->plan;
    tigris_mem_t *mem = r->mem;
    const tigris_tile_plan_t *tp = &plan->tile_plans[plan->stages[first].tile_plan];
    const tigris_stage_t *lst = &plan->stages[last];
    const uint32_t per_row = tp->tile_w != 0 ? tp->num_tiles_w : 1u;
    const uint64_t per_block = (uint64_t)tp->num_tiles * per_row;
    const uint64_t count = per_block * (tp->tile_c != 0 ? tp->num_tiles_c : 1u);
    /* a dense op in blocks of its output features (output-feature or reduction blocks) */
    const int dense = dense_blocks(plan, tp);
    /* rows computed more than once: row tiles only (reduction and feature blocks compute each once) */
    const int count_rows = tp->reduce_op == TIGRIS_NONE16 && !dense;
    int64_t recomputed = 0;
    tigris_exec_error_t err;
    uint64_t k;
    uint16_t i;
    r->stage = first;
    err = check_tiles(r, first, last, tp);
    tigris_mem_reset_fast(mem);
    /* The full outputs the tiles write their rows into. A new one must be written by an op
     * of the group: else the tiles would leave it as the slow buffer happened to be. */
    for (i = 0; err == TIGRIS_EXEC_OK && i < lst->num_outputs; i++) {
        uint16_t t = tigris_stage_outputs(plan, lst)[i];
        if (tigris_mem_slow_ptr(mem, t) != NULL) continue;
        r->st.error_tensor = t;
        if (!produced_in(plan, first, last, t)) err = TIGRIS_EXEC_ERR_PLAN;
        else if (tigris_mem_alloc_slow(mem, t, plan->tensors[t].size) != TIGRIS_MEM_OK) err = TIGRIS_EXEC_ERR_MEM;
        else r->st.error_tensor = TIGRIS_NONE16;
    }
    /* Reduction tiles: the accumulator stays at the arena bottom across the tiles (the peak
     * counts it, so it fits whenever the peak does) */
    if (err == TIGRIS_EXEC_OK && tp->reduce_op != TIGRIS_NONE16) {
        if (tigris_mem_set_acc(mem, tp->acc_bytes) != TIGRIS_MEM_OK) err = TIGRIS_EXEC_ERR_TILE;
        mem->tile.reduce_op = tp->reduce_op;
    }
    /* Row caches: their slots in the same place (reduction_ok: never with reduce_op) */
    if (err == TIGRIS_EXEC_OK && row_cache(tp)) err = setup_caches(r, first, last, tp);
    r->dense = dense;
    for (k = 0; err == TIGRIS_EXEC_OK && k < count; k++) {
        tile_t tile = {0, 0, 0, 0, 0, 0};
        band_of(k % per_block / per_row, tp->tile_h, tp->out_h, &tile.h0, &tile.h1);
        if (tp->tile_w != 0) band_of(k % per_row, tp->tile_w, tp->out_w, &tile.w0, &tile.w1);
        if (tp->tile_c != 0) { /* reduction_ok: the blocks cover the input's channels (the output's features) */
            const uint16_t blocked = dense ? feature_output(plan, &plan->stages[first])
                                           : tigris_op_inputs(plan, &plan->ops[tp->reduce_op])[0];
            int32_t channels = tigris_tensor_shape(plan, &plan->tensors[blocked])[1];
            band_of(k / per_block, tp->tile_c, (uint32_t)channels, &tile.c0, &tile.c1);
        }
        mem->tile.c_start = tile.c0;
        mem->tile.c_end = tile.c1;
        mem->tile.active = 1;
        mem->tile.tile_index = (uint32_t)k; /* < out_h * out_w, a product of a tensor's dims */
        err = run_tile(r, first, last, tp, &tile, count_rows ? &recomputed : NULL);
        finish(r, first, last);
    }
    r->dense = 0;
    mem->tile.reduce_op = TIGRIS_NONE16;
    mem->tile.num_caches = 0;
    mem->tile.c_start = mem->tile.c_end = 0;
    (void)tigris_mem_set_acc(mem, 0); /* nothing is allocated after finish: the release cannot fail */
    if (err != TIGRIS_EXEC_OK) return err;
    if (row_cache(tp) && tp->acc_bytes > r->st.row_cache_bytes) r->st.row_cache_bytes = tp->acc_bytes;
    if (count_rows) {
        recomputed += rows_computed(r, first, last, 0, 1) * (int64_t)per_row;
        if (recomputed > (int64_t)(UINT32_MAX - r->st.recomputed_rows)) r->st.recomputed_rows = UINT32_MAX;
        else if (recomputed > 0) r->st.recomputed_rows += (uint32_t)recomputed;
    }
    if (chain) r->st.stages_chain = (uint16_t)(r->st.stages_chain + (last - first + 1u));
    else r->st.stages_tiled++;
    r->st.total_tiles = (uint16_t)(count > 0xFFFFu - r->st.total_tiles ? 0xFFFFu : r->st.total_tiles + count);
    return TIGRIS_EXEC_OK;
}

static void fill_stats(const run_t *r, const tigris_mem_counters_t *c0, tigris_exec_error_t err,
                       tigris_exec_stats_t *stats) {
    const tigris_mem_counters_t *c = &r->mem->counters;
    if (stats == NULL) return;
    *stats = r->st;
    if (err == TIGRIS_EXEC_OK) {
        stats->error_op = stats->error_tensor = TIGRIS_NONE16;
        stats->kernel_error = 0;
    }
    stats->error_stage = err == TIGRIS_EXEC_OK ? TIGRIS_NONE16 : r->stage;
    stats->slow_overflow_count = c->slow_overflow_count - c0->slow_overflow_count;
    stats->slow_overflow_bytes = c->slow_overflow_bytes - c0->slow_overflow_bytes;
    stats->loads_bytes = c->loads_bytes - c0->loads_bytes;
    stats->spills_bytes = c->spills_bytes - c0->spills_bytes;
    stats->compactions = c->compactions - c0->compactions;
    stats->slow_peak = c->slow_peak;
}

static tigris_exec_error_t check_run(const tigris_plan_t *plan, const tigris_mem_t *mem) {
    const tigris_file_header_t *h = plan->header;
    uint16_t i, s;
    if (h->num_stages == 0) return TIGRIS_EXEC_ERR_NO_STAGES;
    if (plan->tensors == NULL || plan->ops == NULL || plan->stages == NULL || plan->index_pool == NULL ||
        plan->shape_pool == NULL || (plan->num_model_inputs > 0 && plan->model_inputs == NULL) ||
        (plan->num_model_outputs > 0 && plan->model_outputs == NULL))
        return TIGRIS_EXEC_ERR_NULL;
    if (mem->num_tensors < h->num_tensors) return TIGRIS_EXEC_ERR_MEM;
    for (s = 0; s < h->num_stages; s++) {
        if (!stage_ok(plan, s)) return TIGRIS_EXEC_ERR_PLAN;
    }
    for (i = 0; i < plan->num_model_outputs; i++) {
        if (plan->model_outputs[i] >= h->num_tensors) return TIGRIS_EXEC_ERR_PLAN;
    }
    for (i = 0; i < plan->num_model_inputs; i++) {
        uint16_t t = plan->model_inputs[i];
        if (t >= h->num_tensors) return TIGRIS_EXEC_ERR_PLAN;
        if (mem->tensor_ptrs[t] == NULL) return TIGRIS_EXEC_ERR_INPUT;
    }
    return TIGRIS_EXEC_OK;
}

/* The postcondition of tigris_run: every model output is in the slow buffer (a slow copy
 * of at least its size, where tensor_ptrs points), or is a constant with its bytes. */
static tigris_exec_error_t check_outputs(run_t *r) {
    const tigris_plan_t *plan = r->plan;
    const tigris_mem_t *mem = r->mem;
    uint16_t i, k;
    for (i = 0; i < plan->num_model_outputs; i++) {
        uint16_t t = plan->model_outputs[i];
        const uint8_t *p = (const uint8_t *)mem->tensor_ptrs[t];
        int held = 0;
        if (is_constant(plan, t)) {
            held = p != NULL;
        } else {
            for (k = 0; k < mem->num_slow_allocs && p != NULL && !held; k++) {
                const tigris_alloc_t *a = &mem->slow_allocs[k];
                held = a->tensor == t && a->refs == 0 && mem->slow_base + a->offset == p &&
                       a->size >= plan->tensors[t].size;
            }
        }
        if (!held) {
            r->st.error_tensor = t;
            return TIGRIS_EXEC_ERR_OUTPUT;
        }
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel,
                               void *user_ctx, tigris_exec_stats_t *stats) {
    run_t r;
    tigris_mem_counters_t c0;
    tigris_exec_error_t err;
    uint16_t s = 0, n;
    if (stats != NULL) {
        memset(stats, 0, sizeof(*stats));
        stats->error_stage = stats->error_op = stats->error_tensor = TIGRIS_NONE16;
    }
    if (plan == NULL || plan->header == NULL || mem == NULL || mem->tensor_ptrs == NULL || kernel == NULL)
        return TIGRIS_EXEC_ERR_NULL;
    memset(&r, 0, sizeof(r));
    r.plan = plan;
    r.mem = mem;
    r.kernel = kernel;
    r.ctx = user_ctx;
    r.block = TIGRIS_NONE16;
    r.stage = TIGRIS_NONE16;
    r.st.error_stage = r.st.error_op = r.st.error_tensor = TIGRIS_NONE16;
    c0 = mem->counters;
    err = check_run(plan, mem);
    if (err == TIGRIS_EXEC_OK) {
        tigris_mem_reset_fast(mem);
        mem->tile.active = 0;
        mem->tile.reduce_op = TIGRIS_NONE16;
        mem->tile.num_caches = 0;
        mem->tile.c_start = mem->tile.c_end = 0;
        (void)tigris_mem_set_acc(mem, 0); /* nothing allocated: cannot fail */
        if (tigris_mem_set_reserved(mem, plan->header->fast_reserved) != TIGRIS_MEM_OK) err = TIGRIS_EXEC_ERR_WEIGHTS;
    }
    if (err == TIGRIS_EXEC_OK) err = bind_constants(plan, mem);
    n = plan->header->num_stages;
    while (err == TIGRIS_EXEC_OK && s < n) {
        const tigris_stage_t *st = &plan->stages[s];
        uint16_t last = s;
        if (st->tile_plan == TIGRIS_NONE16) {
            err = run_normal(&r, s);
        } else if (plan->tile_plans[st->tile_plan].chain < 0) {
            err = run_tiled(&r, s, s, 0);
        } else {
            while (last + 1u < n && plan->stages[last + 1u].tile_plan == st->tile_plan) last++;
            err = run_tiled(&r, s, last, 1);
        }
        if (err == TIGRIS_EXEC_OK) free_dead(&r, last);
        s = (uint16_t)(last + 1u);
    }
    if (err == TIGRIS_EXEC_OK) {
        r.stage = TIGRIS_NONE16;
        err = check_outputs(&r);
    }
    fill_stats(&r, &c0, err, stats);
    return err;
}

const char *tigris_exec_error_str(tigris_exec_error_t err) {
    switch (err) {
    case TIGRIS_EXEC_OK: return "ok";
    case TIGRIS_EXEC_ERR_NULL: return "null pointer argument";
    case TIGRIS_EXEC_ERR_MEM: return "memory allocation failed (fast and slow memory exhausted)";
    case TIGRIS_EXEC_ERR_KERNEL: return "kernel callback returned an error";
    case TIGRIS_EXEC_ERR_NO_STAGES: return "plan has no stages";
    case TIGRIS_EXEC_ERR_TILE: return "tiled execution error (band peak exceeds the arena, or band table full)";
    case TIGRIS_EXEC_ERR_INPUT: return "a model input was not allocated by the caller";
    case TIGRIS_EXEC_ERR_WEIGHTS: return "a weight block failed to decompress or does not fit";
    case TIGRIS_EXEC_ERR_PLAN: return "plan index or pool reference out of range, or a tiled output no op writes";
    case TIGRIS_EXEC_ERR_OUTPUT: return "a model output was not produced (it is not in the slow buffer)";
    default: return "unknown executor error";
    }
}
