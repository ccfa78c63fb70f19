/* tigris_loader.c - parse and validate a .tgrs plan in place (docs/tgrs-format.md).
 *
 * Zero copy and zero allocation: every pointer of the plan points into the caller's
 * buffer, no heap, no mutable globals, no recursion, every stack frame under 1 KiB
 * (the largest local is one 256-byte bitmap; test_runtime_loader.py checks the frames).
 *
 * Every offset, count and index is checked with overflow-safe arithmetic before the
 * data it designates is read, so any buffer (fuzzed, truncated, hostile) is safe.
 * The checks are those of the Python reader (emit/tgrs/reader.py, decode.py,
 * decode_ops.py) and every file gets the error code that reader raises:
 *
 *   1. arguments (NULL), platform (ENDIAN), buffer alignment (BAD_ALIGN): C only;
 *   2. length >= 64 (TOO_SMALL), magic (BAD_MAGIC), version and header_size
 *      (BAD_VERSION), file_size (BAD_SIZE), CRC (BAD_CRC), header flags and reserved
 *      (BAD_RECORD);
 *   3. the section table entry by entry, then overlaps (BAD_SECTION), then the
 *      required sections (MISSING_SEC), then the header counts in section-kind order
 *      (MISSING_SEC for an absent section, else BAD_SECTION);
 *   4. every record, index, pool range, string and LZ4 stream (BAD_RECORD; the Python
 *      reader raises BAD_RECORD for all of them, so their order does not matter and
 *      is chosen so that each check only reads what earlier ones validated);
 *   5. the compiled executor limits of tigris.h (PLAN_LIMITS, C only, see
 *      check_limits), which a well-formed plan can still exceed.
 */
#include <string.h>

#include "tigris_loader.h"

/* Internal to the runtime (tigris_lz4.c): bytes the LZ4 stream decodes to with at most
 * max_size bytes of output, or -1; a dry run of tigris_lz4_decompress. */

#define HEADER_SIZE 64u
#define SECTION_ENTRY_SIZE 16u
#define NUM_KINDS 14u
#define KNOWN_FILE_FLAGS (TIGRIS_FLAG_XIP | TIGRIS_FLAG_LZ4 | TIGRIS_FLAG_QUANTIZED)
#define KNOWN_TENSOR_FLAGS (TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT | TIGRIS_TENSOR_CONSTANT)
#define KNOWN_OP_FLAGS (TIGRIS_OPF_CEIL_MODE | TIGRIS_OPF_COUNT_INCLUDE_PAD | TIGRIS_OPF_KEEPDIMS | TIGRIS_OPF_STORED_ORDER)
#define LZ4_MAX_RATIO 255u /* an LZ4 block expands at most ~255x */
#define BITMAP_BITS 2048u  /* chunk of the index sets below (256 bytes of stack) */

typedef struct {
    uint32_t offset, size, count;
} section_t;

typedef struct {
    const uint8_t *buf;
    uint32_t len;
    const tigris_file_header_t *h;
    section_t sec[NUM_KINDS + 1]; /* by kind; all 0 when absent */
    uint32_t present;             /* bit k set: a section of kind k */
    tigris_plan_t *p;             /* the caller's plan, filled as sections resolve (zeroed on error) */
    uint32_t strings_len, blob_len, block_data_len;
} ctx_t;

static int is_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* [off, off + n) inside [0, len), without overflow. */
static int range_ok(uint32_t off, uint32_t n, uint32_t len) {
    return off <= len && n <= len - off;
}

static uint32_t f32_bits(const float *f) {
    uint32_t u;
    memcpy(&u, f, sizeof u);
    return u;
}

/* A binary32 that is finite and > 0 (denormals included): sign 0, not zero, not inf/NaN. */
static int positive_finite_bits(uint32_t u) {
    return u != 0 && u < 0x7F800000u;
}

/* Strict UTF-8 as Python decodes it: no overlongs, surrogates or code points > U+10FFFF. */
static int utf8_ok(const uint8_t *s, uint32_t n) {
    uint32_t i = 0;
    while (i < n) {
        uint32_t c = s[i], need, k;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80u) {
            i++;
            continue;
        }
        if (c < 0xC2u) return 0;
        if (c < 0xE0u) {
            need = 1;
        } else if (c < 0xF0u) {
            need = 2;
            if (c == 0xE0u) lo = 0xA0;
            if (c == 0xEDu) hi = 0x9F;
        } else if (c < 0xF5u) {
            need = 3;
            if (c == 0xF0u) lo = 0x90;
            if (c == 0xF4u) hi = 0x8F;
        } else {
            return 0;
        }
        if (n - i - 1 < need) return 0;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (k = 2; k <= need; k++)
            if (s[i + k] < 0x80u || s[i + k] > 0xBFu) return 0;
        i += need + 1;
    }
    return 1;
}

/* A NUL-terminated UTF-8 string at byte `off` of the string pool. */
static int string_ok(const ctx_t *c, uint32_t off) {
    const uint8_t *s = (const uint8_t *)c->p->strings;
    const uint8_t *nul;
    if (off >= c->strings_len) return 0;
    nul = (const uint8_t *)memchr(s + off, 0, c->strings_len - off);
    return nul != NULL && utf8_ok(s + off, (uint32_t)(nul - (s + off)));
}

/* n index-pool entries at off, each < limit. */
static int indices_ok(const ctx_t *c, uint32_t off, uint32_t n, uint32_t limit) {
    uint32_t i;
    if (!range_ok(off, n, c->p->index_pool_len)) return 0;
    for (i = 0; i < n; i++)
        if (c->p->index_pool[off + i] >= limit) return 0;
    return 1;
}

/* Whether the n index-pool entries at off (a checked range) include `value`. */
static int pool_lists(const ctx_t *c, uint32_t off, uint32_t n, uint16_t value) {
    uint32_t i;
    for (i = 0; i < n; i++)
        if (c->p->index_pool[off + i] == value) return 1;
    return 0;
}

static int is_constant(const ctx_t *c, uint16_t t) {
    return c->p->tensors[t].weight != TIGRIS_NONE16;
}

/* ---- index sets without memory: a chunked bitmap ------------------------------------
 *
 * Some checks need a set of indices (which ops the stages run, which blocks the weights
 * name, how many distinct tensors a stage touches). The universe [0, n) is processed
 * in chunks of BITMAP_BITS indices: each chunk re-walks the source and marks the
 * indices that fall in it. Work is ceil(n / 2048) walks of the source.
 */

enum {
    SRC_STAGE_OPS,       /* the op lists of all stages */
    SRC_WEIGHT_BLOCKS,   /* the block of every weight entry (entries in the blob skipped) */
    SRC_LIST,            /* one index-pool list */
    SRC_OPS_ACTIVATIONS, /* the operands of the ops of one list that are activations of rank >= 3 */
    SRC_OP_OPERANDS      /* the operands of one op that are not constants */
};

typedef struct {
    const ctx_t *c;
    int kind;
    const uint16_t *list; /* SRC_LIST, SRC_OPS_ACTIVATIONS: the list */
    uint32_t n;           /* its length */
    uint16_t op;          /* SRC_OP_OPERANDS */
    /* cursor */
    uint32_t i, j, k;
} source_t;

static void source_init(source_t *s, const ctx_t *c, int kind, const uint16_t *list, uint32_t n, uint16_t op) {
    s->c = c;
    s->kind = kind;
    s->list = list;
    s->n = n;
    s->op = op;
    s->i = s->j = s->k = 0;
}

/* Operand k of op (inputs first, then outputs), k < num_inputs + num_outputs. */
static uint16_t operand(const ctx_t *c, const tigris_op_t *op, uint32_t k) {
    return k < op->num_inputs ? c->p->index_pool[op->inputs + k]
                              : c->p->index_pool[op->outputs + (k - op->num_inputs)];
}

/* The next index of the source, or -1 at its end. */
static int32_t source_next(source_t *s) {
    const ctx_t *c = s->c;
    switch (s->kind) {
    case SRC_STAGE_OPS:
        while (s->i < c->h->num_stages) {
            const tigris_stage_t *st = &c->p->stages[s->i];
            if (s->j < st->num_ops) return c->p->index_pool[st->ops + s->j++];
            s->i++;
            s->j = 0;
        }
        return -1;
    case SRC_WEIGHT_BLOCKS:
        while (s->i < c->h->num_weights) {
            uint16_t b = c->p->weight_entries[s->i++].block;
            if (b != TIGRIS_NONE16) return b;
        }
        return -1;
    case SRC_LIST:
        return s->i < s->n ? (int32_t)s->list[s->i++] : -1;
    case SRC_OPS_ACTIVATIONS:
        while (s->i < s->n) {
            const tigris_op_t *op = &c->p->ops[s->list[s->i]];
            while (s->k < (uint32_t)op->num_inputs + op->num_outputs) {
                uint16_t t = operand(c, op, s->k++);
                if (!is_constant(c, t) && c->p->tensors[t].ndim >= 3) return t;
            }
            s->i++;
            s->k = 0;
        }
        return -1;
    default: { /* SRC_OP_OPERANDS */
        const tigris_op_t *op = &c->p->ops[s->op];
        while (s->k < (uint32_t)op->num_inputs + op->num_outputs) {
            uint16_t t = operand(c, op, s->k++);
            if (!is_constant(c, t)) return t;
        }
        return -1;
    }
    }
}

/* Distinct indices of the source within the universe [0, n). With limit != 0 the
 * count stops (early) at the first value > limit. With cover != 0 it returns 0 as
 * soon as a chunk finds an index of the universe that the source never names. */
static uint32_t distinct(const source_t *proto, uint32_t n, uint32_t limit, int cover) {
    uint8_t seen[BITMAP_BITS / 8];
    uint32_t base, total = 0;
    for (base = 0; base < n; base += BITMAP_BITS) {
        uint32_t span = n - base < BITMAP_BITS ? n - base : BITMAP_BITS;
        source_t s = *proto;
        int32_t v;
        memset(seen, 0, sizeof seen);
        while ((v = source_next(&s)) >= 0) {
            uint32_t d = (uint32_t)v - base;
            if ((uint32_t)v < base || d >= span || (seen[d >> 3] & (1u << (d & 7u)))) continue;
            seen[d >> 3] = (uint8_t)(seen[d >> 3] | (1u << (d & 7u)));
            total++;
            if (limit != 0 && total > limit) return total;
        }
        if (cover && total != base + span) return 0;
    }
    return total;
}

/* ---- 2. header ---------------------------------------------------------------------- */

static tigris_error_t check_header(ctx_t *c) {
    const tigris_file_header_t *h;
    if (c->len < HEADER_SIZE) return TIGRIS_ERR_TOO_SMALL;
    h = (const tigris_file_header_t *)(const void *)c->buf;
    c->h = h;
    if (memcmp(h->magic, TIGRIS_FORMAT_MAGIC, 4) != 0) return TIGRIS_ERR_BAD_MAGIC;
    /* minors before TIGRIS_FORMAT_VERSION_MINOR_OLDEST: their op records hold no band geometry */
    if (h->version_major != TIGRIS_FORMAT_VERSION_MAJOR || h->version_minor > TIGRIS_FORMAT_VERSION_MINOR ||
        h->version_minor < TIGRIS_FORMAT_VERSION_MINOR_OLDEST)
        return TIGRIS_ERR_BAD_VERSION;
    if (h->header_size != HEADER_SIZE) return TIGRIS_ERR_BAD_VERSION;
    if (h->file_size != c->len) return TIGRIS_ERR_BAD_SIZE;
    if (tigris_crc32(0, c->buf + HEADER_SIZE, c->len - HEADER_SIZE) != h->crc32) return TIGRIS_ERR_BAD_CRC;
    if ((h->flags & ~(uint32_t)KNOWN_FILE_FLAGS) != 0 || h->reserved != 0) return TIGRIS_ERR_BAD_RECORD;
    return TIGRIS_OK;
}

/* ---- 3. section table --------------------------------------------------------------- */

static uint32_t element_size(uint32_t kind) {
    switch (kind) {
    case TIGRIS_SECTION_TENSORS: return sizeof(tigris_tensor_t);
    case TIGRIS_SECTION_OPS: return sizeof(tigris_op_t);
    case TIGRIS_SECTION_STAGES: return sizeof(tigris_stage_t);
    case TIGRIS_SECTION_TILE_PLANS: return sizeof(tigris_tile_plan_t);
    case TIGRIS_SECTION_WEIGHT_ENTRIES: return sizeof(tigris_weight_entry_t);
    case TIGRIS_SECTION_WEIGHT_BLOCKS: return sizeof(tigris_weight_block_t);
    case TIGRIS_SECTION_QUANT_PARAMS: return sizeof(tigris_quant_param_t);
    case TIGRIS_SECTION_INDEX_POOL: return sizeof(uint16_t);
    case TIGRIS_SECTION_SHAPE_POOL: return sizeof(int32_t);
    case TIGRIS_SECTION_QUANT_DATA: return sizeof(int32_t);
    case TIGRIS_SECTION_TABLES: return TIGRIS_TABLE_SIZE;
    default: return 1; /* STRINGS, WEIGHT_BLOB, WEIGHT_BLOCK_DATA */
    }
}

static const void *section_ptr(const ctx_t *c, uint32_t kind) {
    return (c->present & (1u << kind)) ? (const void *)(c->buf + c->sec[kind].offset) : NULL;
}

static tigris_error_t check_sections(ctx_t *c) {
    static const uint8_t required[] = {TIGRIS_SECTION_TENSORS, TIGRIS_SECTION_OPS, TIGRIS_SECTION_STAGES,
                                       TIGRIS_SECTION_INDEX_POOL, TIGRIS_SECTION_SHAPE_POOL,
                                       TIGRIS_SECTION_STRINGS};
    const tigris_file_header_t *h = c->h;
    const uint16_t counted[8] = {h->num_tensors, h->num_ops, h->num_stages, h->num_tile_plans,
                                 h->num_weights, h->num_weight_blocks, h->num_quant_params, h->num_tables};
    static const uint8_t counted_kind[8] = {TIGRIS_SECTION_TENSORS, TIGRIS_SECTION_OPS, TIGRIS_SECTION_STAGES,
                                            TIGRIS_SECTION_TILE_PLANS, TIGRIS_SECTION_WEIGHT_ENTRIES,
                                            TIGRIS_SECTION_WEIGHT_BLOCKS, TIGRIS_SECTION_QUANT_PARAMS,
                                            TIGRIS_SECTION_TABLES};
    const tigris_section_t *table = (const tigris_section_t *)(const void *)(c->buf + HEADER_SIZE);
    uint32_t table_end = HEADER_SIZE + SECTION_ENTRY_SIZE * (uint32_t)h->num_sections;
    uint32_t i, j;

    if (table_end > c->len) return TIGRIS_ERR_BAD_SECTION;
    for (i = 0; i < h->num_sections; i++) {
        const tigris_section_t *s = &table[i];
        uint32_t kind = s->kind;
        if (kind < 1 || kind > NUM_KINDS || s->reserved != 0) return TIGRIS_ERR_BAD_SECTION;
        if (c->present & (1u << kind)) return TIGRIS_ERR_BAD_SECTION; /* a second section of a kind */
        if (s->offset % TIGRIS_SECTION_ALIGN != 0) return TIGRIS_ERR_BAD_SECTION;
        if (s->offset < table_end || !range_ok(s->offset, s->size, c->len)) return TIGRIS_ERR_BAD_SECTION;
        if ((uint64_t)s->size != (uint64_t)s->count * element_size(kind)) return TIGRIS_ERR_BAD_SECTION;
        c->present |= 1u << kind;
        c->sec[kind].offset = s->offset;
        c->sec[kind].size = s->size;
        c->sec[kind].count = s->count;
    }
    /* Overlaps, as the reader finds them (sorted spans, each against the next): two
     * sections overlap when one starts strictly inside the other, or both start at the
     * same offset and neither is empty. */
    for (i = 1; i <= NUM_KINDS; i++) {
        if (!(c->present & (1u << i))) continue;
        for (j = i + 1; j <= NUM_KINDS; j++) {
            const section_t *a = &c->sec[i], *b = &c->sec[j];
            if (!(c->present & (1u << j))) continue;
            if (a->offset == b->offset) {
                if (a->size != 0 && b->size != 0) return TIGRIS_ERR_BAD_SECTION;
            } else if (a->offset < b->offset ? b->offset - a->offset < a->size
                                             : a->offset - b->offset < b->size) {
                return TIGRIS_ERR_BAD_SECTION;
            }
        }
    }
    for (i = 0; i < sizeof required; i++)
        if (!(c->present & (1u << required[i]))) return TIGRIS_ERR_MISSING_SEC;
    for (i = 0; i < 8; i++) {
        uint32_t kind = counted_kind[i];
        if (c->sec[kind].count != counted[i])
            return (c->present & (1u << kind)) ? TIGRIS_ERR_BAD_SECTION : TIGRIS_ERR_MISSING_SEC;
    }

    /* Resolve the sections; an absent optional section is NULL with length 0. */
    c->p->header = h;
    c->p->tensors = (const tigris_tensor_t *)section_ptr(c, TIGRIS_SECTION_TENSORS);
    c->p->ops = (const tigris_op_t *)section_ptr(c, TIGRIS_SECTION_OPS);
    c->p->stages = (const tigris_stage_t *)section_ptr(c, TIGRIS_SECTION_STAGES);
    c->p->tile_plans = (const tigris_tile_plan_t *)section_ptr(c, TIGRIS_SECTION_TILE_PLANS);
    c->p->index_pool = (const uint16_t *)section_ptr(c, TIGRIS_SECTION_INDEX_POOL);
    c->p->shape_pool = (const int32_t *)section_ptr(c, TIGRIS_SECTION_SHAPE_POOL);
    c->p->strings = (const char *)section_ptr(c, TIGRIS_SECTION_STRINGS);
    c->p->weight_entries = (const tigris_weight_entry_t *)section_ptr(c, TIGRIS_SECTION_WEIGHT_ENTRIES);
    c->p->weight_blob = (const uint8_t *)section_ptr(c, TIGRIS_SECTION_WEIGHT_BLOB);
    c->p->weight_blocks = (const tigris_weight_block_t *)section_ptr(c, TIGRIS_SECTION_WEIGHT_BLOCKS);
    c->p->weight_blocks_data = (const uint8_t *)section_ptr(c, TIGRIS_SECTION_WEIGHT_BLOCK_DATA);
    c->p->num_weight_blocks = h->num_weight_blocks;
    c->p->weight_compression =
        (h->flags & TIGRIS_FLAG_LZ4) ? (uint16_t)TIGRIS_COMPRESSION_LZ4 : (uint16_t)TIGRIS_COMPRESSION_NONE;
    c->p->quant_params = (const tigris_quant_param_t *)section_ptr(c, TIGRIS_SECTION_QUANT_PARAMS);
    c->p->quant_data = (const int32_t *)section_ptr(c, TIGRIS_SECTION_QUANT_DATA);
    c->p->num_quant_params = h->num_quant_params;
    c->p->tables = (const int8_t *)section_ptr(c, TIGRIS_SECTION_TABLES);
    c->p->num_model_inputs = h->num_model_inputs;
    c->p->num_model_outputs = h->num_model_outputs;
    c->p->index_pool_len = c->sec[TIGRIS_SECTION_INDEX_POOL].count;
    c->p->shape_pool_len = c->sec[TIGRIS_SECTION_SHAPE_POOL].count;
    c->p->quant_data_len = c->sec[TIGRIS_SECTION_QUANT_DATA].count;
    c->strings_len = c->sec[TIGRIS_SECTION_STRINGS].size;
    c->blob_len = c->sec[TIGRIS_SECTION_WEIGHT_BLOB].size;
    c->block_data_len = c->sec[TIGRIS_SECTION_WEIGHT_BLOCK_DATA].size;
    return TIGRIS_OK;
}

/* ---- 4. records (each returns 1 when sound) ----------------------------------------- */

/* The model input or output list: indices < num_tensors, no index twice, each tensor carrying
 * `flag`, and exactly n tensors carrying it: the reader's "no duplicates" and the "flag iff
 * listed" half of its tensor flag check. (Counting alone is not enough: a duplicate beside a
 * flagged tensor left out of the list keeps the count.) The pairwise check is over the list
 * (a handful of entries in any real model; at most num_tensors, itself a uint16_t). */
static int io_list_ok(const ctx_t *c, uint32_t off, uint32_t n, uint16_t flag) {
    uint32_t i, j, flagged = 0;
    const tigris_file_header_t *h = c->h;
    if (!indices_ok(c, off, n, h->num_tensors)) return 0;
    for (i = 0; i < n; i++) {
        if (!(c->p->tensors[c->p->index_pool[off + i]].flags & flag)) return 0;
        for (j = 0; j < i; j++)
            if (c->p->index_pool[off + j] == c->p->index_pool[off + i]) return 0;
    }
    for (i = 0; i < h->num_tensors; i++) flagged += (c->p->tensors[i].flags & flag) != 0;
    return flagged == n;
}

static int quant_params_ok(const ctx_t *c) {
    uint32_t i, k;
    for (i = 0; i < c->h->num_quant_params; i++) {
        const tigris_quant_param_t *q = &c->p->quant_params[i];
        uint32_t scale = f32_bits(&q->scale);
        if (q->axis == -1) {
            if (q->num_channels != 1 || q->data != TIGRIS_NONE32 || !positive_finite_bits(scale)) return 0;
            continue;
        }
        if (q->axis < 0 || q->axis >= TIGRIS_MAX_RANK || q->num_channels < 1 || q->data == TIGRIS_NONE32)
            return 0;
        if ((scale != 0 && scale != 0x80000000u) || q->zero_point != 0) return 0; /* +-0.0 */
        if (!range_ok(q->data, 2u * q->num_channels, c->p->quant_data_len)) return 0;
        for (k = 0; k < q->num_channels; k++)
            if (!positive_finite_bits((uint32_t)c->p->quant_data[q->data + k])) return 0;
    }
    return 1;
}

/* Block records (the LZ4 streams are checked last, see lz4_blocks_ok). */
static int blocks_ok(const ctx_t *c) {
    const tigris_file_header_t *h = c->h;
    int lz4 = (h->flags & TIGRIS_FLAG_LZ4) != 0;
    uint32_t i, biggest = 0;
    for (i = 0; i < h->num_weight_blocks; i++) {
        const tigris_weight_block_t *b = &c->p->weight_blocks[i];
        if (b->offset % TIGRIS_WEIGHT_ALIGN != 0 || !range_ok(b->offset, b->size, c->block_data_len)) return 0;
        if (b->raw_size < 1) return 0;
        if (!lz4 && b->size != b->raw_size) return 0;
        if (lz4 && (uint64_t)b->raw_size > (uint64_t)LZ4_MAX_RATIO * ((uint64_t)b->size + 1)) return 0;
        if (b->raw_size > biggest) biggest = b->raw_size;
    }
    if ((h->flags & TIGRIS_FLAG_XIP) && lz4) return 0;
    return h->fast_reserved == (lz4 ? biggest : 0u);
}

static int lz4_blocks_ok(const ctx_t *c) {
    uint32_t i;
    if (!(c->h->flags & TIGRIS_FLAG_LZ4)) return 1;
    for (i = 0; i < c->h->num_weight_blocks; i++) {
        const tigris_weight_block_t *b = &c->p->weight_blocks[i];
        /* an empty stream may have no WEIGHT_BLOCK_DATA section: no NULL + 0 */
        const uint8_t *src = b->size != 0 ? c->p->weight_blocks_data + b->offset : NULL;
        int32_t n = tigris_lz4_decoded_size(src, b->size, b->raw_size);
        if (n < 0 || (uint32_t)n != b->raw_size) return 0;
    }
    return 1;
}

static int weights_ok(const ctx_t *c) {
    const tigris_file_header_t *h = c->h;
    uint32_t i;
    source_t s;
    for (i = 0; i < h->num_weights; i++) {
        const tigris_weight_entry_t *w = &c->p->weight_entries[i];
        uint32_t src_len;
        if (w->reserved != 0 || w->layout > TIGRIS_LAYOUT_NK_HWC) return 0;
        if (w->block != TIGRIS_NONE16 && w->block >= h->num_weight_blocks) return 0;
        src_len = w->block == TIGRIS_NONE16 ? c->blob_len : c->p->weight_blocks[w->block].raw_size;
        if (w->offset % TIGRIS_WEIGHT_ALIGN != 0) return 0;
        if (w->size < 1 || !range_ok(w->offset, w->size, src_len)) return 0;
    }
    /* every block holds at least one weight */
    source_init(&s, c, SRC_WEIGHT_BLOCKS, NULL, 0, 0);
    return h->num_weight_blocks == 0 || distinct(&s, h->num_weight_blocks, 0, 1) != 0;
}

static uint32_t layout_rank(uint8_t layout) {
    switch (layout) {
    case TIGRIS_LAYOUT_OHWI: return 4;
    case TIGRIS_LAYOUT_HWC: return 3;
    case TIGRIS_LAYOUT_OKI: return 3;
    case TIGRIS_LAYOUT_NK_HWC: return 2;
    default: return 0; /* any rank */
    }
}

static int tensor_ok(const ctx_t *c, const tigris_tensor_t *t) {
    const tigris_file_header_t *h = c->h;
    const int32_t *shape;
    uint32_t d, esize = tigris_dtype_size(t->dtype);
    uint64_t nbytes;
    if (esize == 0 || (t->flags & ~(uint32_t)KNOWN_TENSOR_FLAGS) != 0) return 0;
    if (!string_ok(c, t->name)) return 0;
    if (t->ndim > TIGRIS_MAX_RANK || !range_ok(t->shape, t->ndim, c->p->shape_pool_len)) return 0;
    shape = c->p->shape_pool + t->shape;
    nbytes = esize;
    for (d = 0; d < t->ndim; d++) {
        if (shape[d] < 1) return 0;
        nbytes *= (uint32_t)shape[d];
        if (nbytes > 0xFFFFFFFFu) return 0; /* cannot equal a uint32_t size */
    }
    if (nbytes != t->size) return 0;
    if (t->quant != TIGRIS_NONE16) {
        const tigris_quant_param_t *q;
        if (t->quant >= h->num_quant_params) return 0;
        if (t->dtype != TIGRIS_DTYPE_I8 && t->dtype != TIGRIS_DTYPE_U8 && t->dtype != TIGRIS_DTYPE_I16 &&
            t->dtype != TIGRIS_DTYPE_I32)
            return 0;
        q = &c->p->quant_params[t->quant];
        if (q->axis >= 0 && (q->axis >= t->ndim || shape[q->axis] != (int32_t)q->num_channels)) return 0;
    }
    if (t->weight != TIGRIS_NONE16) {
        const tigris_weight_entry_t *w;
        uint32_t rank;
        if (t->weight >= h->num_weights) return 0;
        w = &c->p->weight_entries[t->weight];
        rank = layout_rank(w->layout);
        if (w->size != t->size || (rank != 0 && rank != t->ndim)) return 0;
    }
    /* CONSTANT iff a weight (MODEL_INPUT/OUTPUT iff listed: io_list_ok); never an input */
    if (((t->flags & TIGRIS_TENSOR_CONSTANT) != 0) != (t->weight != TIGRIS_NONE16)) return 0;
    if ((t->flags & TIGRIS_TENSOR_CONSTANT) && (t->flags & TIGRIS_TENSOR_MODEL_INPUT)) return 0;
    if (t->perm != TIGRIS_NONE32) {
        uint32_t seen = 0;
        if (!(t->flags & (TIGRIS_TENSOR_MODEL_INPUT | TIGRIS_TENSOR_MODEL_OUTPUT))) return 0;
        if (!range_ok(t->perm, t->ndim, c->p->shape_pool_len)) return 0;
        for (d = 0; d < t->ndim; d++) {
            int32_t a = c->p->shape_pool[t->perm + d];
            if (a < 0 || a >= t->ndim || (seen & (1u << a))) return 0;
            seen |= 1u << a;
        }
    }
    return 1;
}

/* The core op types, and the extension op types 128..254 (TIGRIS_OP_CUSTOM_FIRST..LAST),
 * which a user kernel runs (docs/extending.md); unassigned values are refused. */
static int known_op_type(uint8_t type) {
    if (type >= TIGRIS_OP_CONV && type <= TIGRIS_OP_DEQUANTIZE) return 1;
    if (type >= TIGRIS_OP_NEG && type <= TIGRIS_OP_SILU) return 1;
    if (type >= TIGRIS_OP_PRELU && type <= TIGRIS_OP_POW_TENSOR) return 1;
    if (type >= TIGRIS_OP_SLICE && type <= TIGRIS_OP_TILE) return 1;
    if (type >= TIGRIS_OP_REDUCE_SUM && type <= TIGRIS_OP_LAYER_NORM) return 1;
    if (type >= TIGRIS_OP_CUSTOM_FIRST && type <= TIGRIS_OP_CUSTOM_LAST) return 1;
    return 0; /* UNKNOWN (255) is known to the format but is not a runtime op */
}

/* A weight/bias role: none, or a constant among the op's inputs. */
static int role_ok(const ctx_t *c, const tigris_op_t *op, uint16_t t) {
    if (t == TIGRIS_NONE16) return 1;
    if (t >= c->h->num_tensors || !is_constant(c, t)) return 0;
    return pool_lists(c, op->inputs, op->num_inputs, t);
}

static int op_ok(const ctx_t *c, const tigris_op_t *op) {
    const tigris_file_header_t *h = c->h;
    uint32_t k;
    uint8_t type = op->op_type;
    if (!known_op_type(type) || op->activation > TIGRIS_ACT_RELU6) return 0;
    if ((op->flags & ~(uint32_t)KNOWN_OP_FLAGS) != 0) return 0;
    if (op->geometry_h > TIGRIS_GEOM_RESIZE || op->geometry_w > TIGRIS_GEOM_RESIZE) return 0;
    if (!string_ok(c, op->name)) return 0;
    if (op->num_inputs < 1 || op->num_outputs < 1) return 0;
    if (!indices_ok(c, op->inputs, op->num_inputs, h->num_tensors)) return 0;
    if (!indices_ok(c, op->outputs, op->num_outputs, h->num_tensors)) return 0;
    if (!range_ok(op->params, op->num_params, c->p->shape_pool_len)) return 0;
    if (!range_ok(op->scales, op->num_scales, c->p->quant_data_len)) return 0;
    for (k = 0; k < op->num_outputs; k++)
        if (is_constant(c, c->p->index_pool[op->outputs + k])) return 0;
    if (!role_ok(c, op, op->weight) || !role_ok(c, op, op->bias)) return 0;
    if (op->table != TIGRIS_NONE16 && op->table >= h->num_tables) return 0;
    switch (type) {
    case TIGRIS_OP_CONV: case TIGRIS_OP_DEPTHWISE: case TIGRIS_OP_CONV1D: case TIGRIS_OP_CONV_TRANSPOSE:
        if (op->group < 1) return 0;
        /* fall through - the conv family are window ops too */
    case TIGRIS_OP_MAX_POOL: case TIGRIS_OP_AVG_POOL:
        if (op->kernel_h < 1 || op->kernel_w < 1 || op->stride_h < 1 || op->stride_w < 1 ||
            op->dilation_h < 1 || op->dilation_w < 1)
            return 0;
        break;
    default:
        break;
    }
    if (type == TIGRIS_OP_RESIZE) {
        if (op->mode > TIGRIS_RESIZE_LINEAR || op->coord_mode > TIGRIS_COORD_PYTORCH_HALF_PIXEL) return 0;
    } else if (type == TIGRIS_OP_PAD) {
        if (op->mode > TIGRIS_PAD_EDGE || op->coord_mode != 0) return 0;
    } else if (type == TIGRIS_OP_GELU) {
        if (op->mode > TIGRIS_GELU_TANH || op->coord_mode != 0) return 0;
    } else if (op->mode != 0 || op->coord_mode != 0) {
        return 0;
    }
    if (op->act_min > op->act_max) return 0;
    for (k = 0; k < op->num_scales; k++) /* requantization scales: positive finite binary32 */
        if (!positive_finite_bits((uint32_t)c->p->quant_data[op->scales + k])) return 0;
    return 1;
}

/* Output-feature blocks (channel blocks without reduce_op, since 2.5): one row, no halo, no
 * chain, no column tiles; the stage is checked by feature_stage_ok. */
static int feature_plan_ok(const tigris_tile_plan_t *t) {
    return t->tile_h == 1 && t->num_tiles == 1 && t->out_h == 1 && t->halo == 0 && t->chain == -1 && t->tile_w == 0;
}

/* Reduction tiles: the accumulating op exists and accumulates (tigris_band_op_accumulates),
 * runs a lone stage (no chain) and keeps a non-empty accumulator the peak includes; a plan
 * without reduce_op keeps none, and has channel blocks only as output-feature blocks. */
static int reduction_plan_ok(const ctx_t *c, const tigris_tile_plan_t *t) {
    if (t->tile_c == 0 && t->num_tiles_c != 1) return 0; /* no channel blocks: one block of all */
    if (t->reduce_op == TIGRIS_NONE16 && (t->flags & TIGRIS_TILE_ROW_CACHE) != 0) /* row_cache_plan_ok */
        return t->acc_bytes > 0 && t->acc_bytes <= t->peak;
    if (t->reduce_op == TIGRIS_NONE16) return t->acc_bytes == 0 && (t->tile_c == 0 || feature_plan_ok(t));
    if (t->reduce_op >= c->h->num_ops) return 0;
    if (!tigris_band_op_accumulates(c->p->ops[t->reduce_op].op_type) &&
        !tigris_band_op_feature_blocks(c->p->ops[t->reduce_op].op_type))
        return 0;
    return t->chain == -1 && t->acc_bytes > 0 && t->acc_bytes <= t->peak;
}

/* num tiles of `size` (both >= 1) cover `total` exactly: (num - 1) * size < total <= num * size. */
static int tiles_cover(uint32_t size, uint32_t num, uint32_t total) {
    return size >= 1 && num >= 1 && (uint64_t)(num - 1) * size < total && (uint64_t)total <= (uint64_t)num * size;
}

/* 2-D tiles (tile_w > 0) run a lone stage (no chain), their column tiles covering out_w;
 * reduction tiles cut along W are one row tall with no column halo (the pixels are visited in
 * row-major order, as the untiled op visits them); full-width plans keep the W fields at 1, 0, 0. */
static int cols_plan_ok(const tigris_tile_plan_t *t) {
    if (t->tile_w == 0) return t->num_tiles_w == 1 && t->halo_w == 0 && t->out_w == 0;
    if (t->reduce_op != TIGRIS_NONE16 && (t->tile_h != 1 || t->halo_w != 0)) return 0;
    return t->chain == -1 && tiles_cover(t->tile_w, t->num_tiles_w, t->out_w);
}

/* Row caches (docs/tgrs-format.md, "Row caches") run full-width output-row tiles: no reduce_op,
 * no column tiles, no channel blocks; their slots (acc_bytes, checked by reduction_plan_ok) are
 * 1..peak bytes. No other flag is defined. */
static int row_cache_plan_ok(const tigris_tile_plan_t *t) {
    if ((t->flags & ~(uint16_t)TIGRIS_TILE_ROW_CACHE) != 0) return 0;
    if ((t->flags & TIGRIS_TILE_ROW_CACHE) == 0) return 1;
    return t->reduce_op == TIGRIS_NONE16 && t->tile_w == 0 && t->tile_c == 0;
}

static int tile_plans_ok(const ctx_t *c) {
    uint32_t i, n = c->h->num_tile_plans;
    for (i = 0; i < n; i++) {
        const tigris_tile_plan_t *t = &c->p->tile_plans[i];
        if (!row_cache_plan_ok(t) || !tiles_cover(t->tile_h, t->num_tiles, t->out_h)) return 0;
        if (t->chain < -1 || (t->chain >= 0 && (uint32_t)t->chain >= n)) return 0;
        if (!reduction_plan_ok(c, t) || !cols_plan_ok(t)) return 0;
    }
    return 1;
}

/* Whether tensor t of stages first..last is cached (the executor's find_caches): an op of the
 * group reads it through overlapping rows (tigris_op_reads_overlapping_rows), or it has more
 * than one use there (ops reading it, each once, and the spill of an output of the last stage). */
static int read_overlapping(const ctx_t *c, uint32_t first, uint32_t last, uint16_t t) {
    const tigris_stage_t *lst = &c->p->stages[last];
    uint32_t s, k, uses = (uint32_t)pool_lists(c, lst->outputs, lst->num_outputs, t);
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &c->p->stages[s];
        for (k = 0; k < st->num_ops; k++) {
            const tigris_op_t *op = &c->p->ops[c->p->index_pool[st->ops + k]];
            if (!pool_lists(c, op->inputs, op->num_inputs, t)) continue;
            if (tigris_op_reads_overlapping_rows(op) || ++uses > 1) return 1;
        }
    }
    return 0;
}

/* A group run with row caches (a lone stage, or the consecutive stages of a chain sharing the
 * tile plan, as the executor runs them): every op writing a cached tensor has one output (its
 * kernel computes the new rows straight into the slot). Stages checked by stage_ok. */
static int row_cache_group_ok(const ctx_t *c, uint32_t first, uint32_t last) {
    uint32_t s, k, j;
    for (s = first; s <= last; s++) {
        const tigris_stage_t *st = &c->p->stages[s];
        for (k = 0; k < st->num_ops; k++) {
            const tigris_op_t *op = &c->p->ops[c->p->index_pool[st->ops + k]];
            for (j = 0; op->num_outputs > 1 && j < op->num_outputs; j++)
                if (read_overlapping(c, first, last, c->p->index_pool[op->outputs + j])) return 0;
        }
    }
    return 1;
}

static int row_cache_groups_ok(const ctx_t *c) {
    uint32_t s = 0, last, n = c->h->num_stages;
    while (s < n) {
        uint16_t tp = c->p->stages[s].tile_plan;
        last = s;
        if (tp != TIGRIS_NONE16 && c->p->tile_plans[tp].chain >= 0)
            while (last + 1u < n && c->p->stages[last + 1u].tile_plan == tp) last++;
        if (tp != TIGRIS_NONE16 && (c->p->tile_plans[tp].flags & TIGRIS_TILE_ROW_CACHE) != 0 &&
            !row_cache_group_ok(c, s, last))
            return 0;
        s = last + 1u;
    }
    return 1;
}

static int feature_stage_ok(const ctx_t *c, const tigris_stage_t *st, const tigris_tile_plan_t *t);

/* A dense op in reduction blocks (tile plan t, reduce_op of a feature-block type): the stage is
 * that one op in blocks of tile_c output features (feature_stage_ok), and the tiles cut the K
 * features of its input 0 [N, K]: out_h is K, no columns. */
static int dense_reduction_stage_ok(const ctx_t *c, const tigris_stage_t *st, const tigris_tile_plan_t *t) {
    const tigris_op_t *op = &c->p->ops[t->reduce_op];
    const tigris_tensor_t *in = &c->p->tensors[c->p->index_pool[op->inputs]]; /* op_ok: >= 1 input */
    if (t->tile_c == 0 || t->tile_w != 0 || !feature_stage_ok(c, st, t)) return 0;
    return in->ndim == 2 && (uint32_t)tigris_tensor_shape(c->p, in)[1] == t->out_h;
}

/* A stage run in reduction tiles (tile plan t, checked by tile_plans_ok): its last op is the
 * accumulating op, whose input 0 has out_h rows (and, cut along W, is a rank-4 map of out_w
 * columns: the tiles cut them; in channel blocks, blocks of tile_c cover its channels), and
 * that op writes every output of the stage (spilled after the last tile of each block). */
static int reduction_stage_ok(const ctx_t *c, const tigris_stage_t *st, const tigris_tile_plan_t *t) {
    const tigris_op_t *op = &c->p->ops[t->reduce_op];
    const tigris_tensor_t *in;
    uint32_t k;
    if (st->num_ops == 0 || c->p->index_pool[st->ops + st->num_ops - 1u] != t->reduce_op) return 0;
    if (tigris_band_op_feature_blocks(op->op_type)) return dense_reduction_stage_ok(c, st, t);
    in = &c->p->tensors[c->p->index_pool[op->inputs]]; /* op_ok: >= 1 input */
    if ((uint32_t)tigris_tensor_rows(c->p, in) != t->out_h) return 0;
    if (t->tile_w != 0 && (in->ndim != 4 || (uint32_t)tigris_tensor_shape(c->p, in)[3] != t->out_w)) return 0;
    if (t->tile_c != 0 && (in->ndim < 3 || !tiles_cover(t->tile_c, t->num_tiles_c, (uint32_t)tigris_tensor_shape(c->p, in)[1])))
        return 0; /* channel blocks cover the input's channels (model order [N, C, ...]) */
    for (k = 0; k < st->num_outputs; k++)
        if (!pool_lists(c, op->outputs, op->num_outputs, c->p->index_pool[st->outputs + k])) return 0;
    return 1;
}

/* A stage in 2-D tiles (tile plan t with tile_w > 0, checked by tile_plans_ok): every op runs
 * on windows (tigris_band_op_tileable_2d) and is cut along W (geometry_w not NONE) but the
 * accumulating op of reduction tiles (which takes windows of its input and writes whole
 * outputs, checked by reduction_stage_ok); the
 * outputs of output tiles are rank-4 maps of out_h rows and out_w columns (model order
 * [N, C, H, W]). */
static int stage_2d_ok(const ctx_t *c, const tigris_stage_t *st, const tigris_tile_plan_t *t) {
    uint32_t k;
    for (k = 0; k < st->num_ops; k++) {
        uint16_t o = c->p->index_pool[st->ops + k];
        if (o != t->reduce_op &&
            (!tigris_band_op_tileable_2d(c->p->ops[o].op_type) || c->p->ops[o].geometry_w == TIGRIS_GEOM_NONE))
            return 0;
    }
    for (k = 0; t->reduce_op == TIGRIS_NONE16 && k < st->num_outputs; k++) {
        const tigris_tensor_t *o = &c->p->tensors[c->p->index_pool[st->outputs + k]];
        const int32_t *shape = tigris_tensor_shape(c->p, o); /* tensor_ok: inside the pool */
        if (o->ndim != 4 || (uint32_t)shape[2] != t->out_h || (uint32_t)shape[3] != t->out_w) return 0;
    }
    return 1;
}

/* A stage in output-feature blocks (tile plan t: tile_c > 0, no reduce_op): one op that can
 * run in them (tigris_band_op_feature_blocks), whose one output, the stage's one output, is
 * [N, M] with blocks of tile_c covering its M features. */
static int feature_stage_ok(const ctx_t *c, const tigris_stage_t *st, const tigris_tile_plan_t *t) {
    const tigris_op_t *op;
    const tigris_tensor_t *out;
    uint16_t o;
    if (st->num_ops != 1 || st->num_outputs != 1) return 0;
    op = &c->p->ops[c->p->index_pool[st->ops]];
    if (!tigris_band_op_feature_blocks(op->op_type) || op->num_outputs != 1) return 0;
    o = c->p->index_pool[op->outputs];
    if (o != c->p->index_pool[st->outputs]) return 0;
    out = &c->p->tensors[o];
    return out->ndim == 2 && tiles_cover(t->tile_c, t->num_tiles_c, (uint32_t)tigris_tensor_shape(c->p, out)[1]);
}

static int stage_ok(const ctx_t *c, const tigris_stage_t *st) {
    const tigris_file_header_t *h = c->h;
    uint32_t k, j;
    int staged = (h->flags & TIGRIS_FLAG_LZ4) != 0;
    if (st->reserved != 0) return 0;
    if (!indices_ok(c, st->ops, st->num_ops, h->num_ops)) return 0;
    if (!indices_ok(c, st->inputs, st->num_inputs, h->num_tensors)) return 0;
    if (!indices_ok(c, st->outputs, st->num_outputs, h->num_tensors)) return 0;
    for (k = 0; k < st->num_inputs; k++)
        if (is_constant(c, c->p->index_pool[st->inputs + k])) return 0;
    for (k = 0; k < st->num_outputs; k++)
        if (is_constant(c, c->p->index_pool[st->outputs + k])) return 0;
    if (st->tile_plan != TIGRIS_NONE16 && st->tile_plan >= h->num_tile_plans) return 0;
    if (st->tile_plan != TIGRIS_NONE16 && c->p->tile_plans[st->tile_plan].reduce_op != TIGRIS_NONE16 &&
        !reduction_stage_ok(c, st, &c->p->tile_plans[st->tile_plan]))
        return 0;
    if (st->tile_plan != TIGRIS_NONE16 && c->p->tile_plans[st->tile_plan].reduce_op == TIGRIS_NONE16 &&
        c->p->tile_plans[st->tile_plan].tile_c != 0 && !feature_stage_ok(c, st, &c->p->tile_plans[st->tile_plan]))
        return 0;
    if (st->tile_plan != TIGRIS_NONE16 && c->p->tile_plans[st->tile_plan].tile_w != 0 &&
        !stage_2d_ok(c, st, &c->p->tile_plans[st->tile_plan]))
        return 0;
    if (st->weight_block != TIGRIS_NONE16 && st->weight_block >= h->num_weight_blocks) return 0;
    if (!staged) return 1;
    /* LZ4: every block weight an op of the stage reads is in the stage's block */
    for (k = 0; k < st->num_ops; k++) {
        const tigris_op_t *op = &c->p->ops[c->p->index_pool[st->ops + k]];
        for (j = 0; j < op->num_inputs; j++) {
            uint16_t w = c->p->tensors[c->p->index_pool[op->inputs + j]].weight;
            if (w != TIGRIS_NONE16) {
                uint16_t b = c->p->weight_entries[w].block;
                if (b != TIGRIS_NONE16 && b != st->weight_block) return 0;
            }
        }
    }
    return 1;
}

static tigris_error_t check_records(const ctx_t *c) {
    const tigris_file_header_t *h = c->h;
    uint32_t i, runs = 0;
    source_t s;
    if (!string_ok(c, h->name)) return TIGRIS_ERR_BAD_RECORD;
    if (!quant_params_ok(c) || !blocks_ok(c) || !weights_ok(c)) return TIGRIS_ERR_BAD_RECORD;
    for (i = 0; i < h->num_tensors; i++)
        if (!tensor_ok(c, &c->p->tensors[i])) return TIGRIS_ERR_BAD_RECORD;
    if (!io_list_ok(c, h->model_inputs, h->num_model_inputs, TIGRIS_TENSOR_MODEL_INPUT) ||
        !io_list_ok(c, h->model_outputs, h->num_model_outputs, TIGRIS_TENSOR_MODEL_OUTPUT))
        return TIGRIS_ERR_BAD_RECORD;
    for (i = 0; i < h->num_ops; i++)
        if (!op_ok(c, &c->p->ops[i])) return TIGRIS_ERR_BAD_RECORD;
    if (!tile_plans_ok(c)) return TIGRIS_ERR_BAD_RECORD;
    for (i = 0; i < h->num_stages; i++) {
        if (!stage_ok(c, &c->p->stages[i])) return TIGRIS_ERR_BAD_RECORD;
        runs += c->p->stages[i].num_ops;
    }
    /* Every op in exactly one stage: as many entries as ops, all ops named (so none twice). */
    source_init(&s, c, SRC_STAGE_OPS, NULL, 0, 0);
    if (runs != h->num_ops || (h->num_ops != 0 && distinct(&s, h->num_ops, 0, 1) == 0))
        return TIGRIS_ERR_BAD_RECORD;
    if (!row_cache_groups_ok(c)) return TIGRIS_ERR_BAD_RECORD;
    if (!lz4_blocks_ok(c)) return TIGRIS_ERR_BAD_RECORD;
    return TIGRIS_OK;
}

/* ---- 5. compiled limits ------------------------------------------------------------- *
 *
 * Only plans that provably cannot run with the limits of tigris.h are refused; the
 * executor reports what depends on the arena sizes. A plan is refused when:
 *
 *  (a) num_model_inputs > TIGRIS_MAX_SLOW_ALLOCS or num_model_outputs >
 *      TIGRIS_MAX_SLOW_ALLOCS: the caller allocates every model input in the slow
 *      buffer before tigris_run, and every model output is there when it returns;
 *  (b) a stage's reload set (`inputs`) names more than TIGRIS_MAX_SLOW_ALLOCS distinct
 *      tensors: the fast arena is reset before a stage, so all of them are in the slow
 *      buffer when it starts;
 *  (c) a tiled stage (tile_plan set) touches more than TIGRIS_MAX_BANDS distinct
 *      activations of rank >= 3 (op inputs and outputs, constants excluded): each is
 *      held as a band while a tile runs, and the band table is only cleared with the
 *      fast arena. Rank <= 2 tensors are never banded (tigris.h). A chain's stages are
 *      counted one by one, not together (the minimum any executor needs);
 *  (d) an op has more distinct non-constant operands (inputs and outputs) than
 *      TIGRIS_MAX_FAST_ALLOCS + TIGRIS_MAX_SLOW_ALLOCS: each is allocated in one of
 *      the two arenas while the op runs. A tighter fast-arena bound is not provable:
 *      tigris_mem_alloc and tigris_mem_load fall back to the slow buffer when the
 *      fast arena (or its table) is full.
 */
static tigris_error_t check_limits(const ctx_t *c) {
    const tigris_file_header_t *h = c->h;
    const uint32_t op_limit = (uint32_t)TIGRIS_MAX_FAST_ALLOCS + (uint32_t)TIGRIS_MAX_SLOW_ALLOCS;
    uint32_t i;
    source_t s;
    if (h->num_model_inputs > TIGRIS_MAX_SLOW_ALLOCS || h->num_model_outputs > TIGRIS_MAX_SLOW_ALLOCS)
        return TIGRIS_ERR_PLAN_LIMITS;
    for (i = 0; i < h->num_stages; i++) {
        const tigris_stage_t *st = &c->p->stages[i];
        if (st->num_inputs > TIGRIS_MAX_SLOW_ALLOCS) {
            source_init(&s, c, SRC_LIST, c->p->index_pool + st->inputs, st->num_inputs, 0);
            if (distinct(&s, h->num_tensors, TIGRIS_MAX_SLOW_ALLOCS, 0) > TIGRIS_MAX_SLOW_ALLOCS)
                return TIGRIS_ERR_PLAN_LIMITS;
        }
        if (st->tile_plan != TIGRIS_NONE16) {
            source_init(&s, c, SRC_OPS_ACTIVATIONS, c->p->index_pool + st->ops, st->num_ops, 0);
            if (distinct(&s, h->num_tensors, TIGRIS_MAX_BANDS, 0) > TIGRIS_MAX_BANDS) return TIGRIS_ERR_PLAN_LIMITS;
        }
    }
    for (i = 0; i < h->num_ops; i++) {
        const tigris_op_t *op = &c->p->ops[i];
        if ((uint32_t)op->num_inputs + op->num_outputs <= op_limit) continue;
        source_init(&s, c, SRC_OP_OPERANDS, NULL, 0, (uint16_t)i);
        if (distinct(&s, h->num_tensors, op_limit, 0) > op_limit) return TIGRIS_ERR_PLAN_LIMITS;
    }
    return TIGRIS_OK;
}

/* ---- API ---------------------------------------------------------------------------- */

tigris_error_t tigris_plan_load(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan) {
    ctx_t c;
    tigris_error_t err;
    if (out_plan == NULL) return TIGRIS_ERR_NULL;
    memset(out_plan, 0, sizeof *out_plan);
    if (buf == NULL) return TIGRIS_ERR_NULL;
    if (!is_little_endian()) return TIGRIS_ERR_ENDIAN;
    if (((uintptr_t)buf & 3u) != 0) return TIGRIS_ERR_BAD_ALIGN;
    memset(&c, 0, sizeof c);
    c.buf = buf;
    c.len = buf_len;
    c.p = out_plan; /* nothing is written to it before the CRC has passed */
    err = check_header(&c);
    if (err == TIGRIS_OK) err = check_sections(&c);
    if (err == TIGRIS_OK) err = check_records(&c);
    if (err == TIGRIS_OK) err = check_limits(&c);
    if (err != TIGRIS_OK) {
        memset(out_plan, 0, sizeof *out_plan);
        return err;
    }
    /* index_pool + offset only now that the ranges are known to be inside the pool */
    out_plan->model_inputs = out_plan->index_pool + c.h->model_inputs;
    out_plan->model_outputs = out_plan->index_pool + c.h->model_outputs;
    return TIGRIS_OK;
}

const char *tigris_error_str(tigris_error_t err) {
    switch (err) {
    case TIGRIS_OK: return "ok";
    case TIGRIS_ERR_NULL: return "null pointer argument";
    case TIGRIS_ERR_TOO_SMALL: return "buffer smaller than the 64-byte header";
    case TIGRIS_ERR_BAD_MAGIC: return "not a .tgrs file (magic is not \"TGRS\")";
    case TIGRIS_ERR_BAD_VERSION: return "unsupported format version or header size";
    case TIGRIS_ERR_BAD_SIZE: return "header file_size does not match the buffer length";
    case TIGRIS_ERR_BAD_SECTION: return "section table entry out of bounds, misaligned, overlapping or inconsistent";
    case TIGRIS_ERR_MISSING_SEC: return "a required section is missing";
    case TIGRIS_ERR_ENDIAN: return "platform is not little-endian";
    case TIGRIS_ERR_PLAN_LIMITS: return "plan exceeds the compiled executor limits (TIGRIS_MAX_*)";
    case TIGRIS_ERR_BAD_CRC: return "CRC-32 mismatch: the file is corrupt";
    case TIGRIS_ERR_BAD_RECORD: return "a record field is out of range";
    case TIGRIS_ERR_BAD_ALIGN: return "buffer is not 4-byte aligned";
    }
    return "unknown error";
}
