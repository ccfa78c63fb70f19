/* run_ops.c - run every op of a plan with the reference kernels, without the executor.
 *
 *     run_ops plan.tgrs in.bin out.bin [--band TENSOR H0 H1 | --window TENSOR H0 H1 W0 W1]...
 *
 * Loads the plan, gives every non-constant tensor a buffer of its own (malloc: this is a
 * test driver), points constants at their weights (LZ4 blocks are decompressed into
 * buffers of their own), fills the model inputs from in.bin (their bytes concatenated in
 * model-input order, runtime layout), runs every op of every stage in order with
 * tigris_ref_kernel, and writes the model outputs to out.bin the same way.
 *
 * --band holds tensor TENSOR (an index) as rows [H0, H1) only, as a tiled stage would: its
 * buffer has just those rows, in.bin still holds the whole tensor (the driver copies the
 * band), and a banded model output is written as its band rows only. With bands, the
 * kernels must compute exactly the rows of their output bands from the rows of their input
 * bands. --window holds it as the 2-D tile rows [H0, H1) x columns [W0, W1) (columns: the
 * kernel view's W, tigris_mem_set_window), copied in and out as a compact window
 * [N][H1 - H0][W1 - W0][C] the same way.
 * Exit status: 0 ok, 1 usage or I/O error, 2 load error, 3 kernel error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris.h"
#include "tigris_kernels.h"
#include "tigris_loader.h"
#include "tigris_mem.h"

#define ALIGNMENT 64u

static uint8_t *align_ptr(void *raw) {
    uintptr_t p = (uintptr_t)raw;
    return (uint8_t *)(p + (ALIGNMENT - p % ALIGNMENT) % ALIGNMENT);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n + ALIGNMENT);
    if (p == NULL) {
        fprintf(stderr, "run_ops: out of memory (%lu bytes)\n", (unsigned long)n);
        exit(1);
    }
    memset(p, 0, n + ALIGNMENT);
    return p;
}

static uint8_t *read_file(const char *path, long *len, void **raw) {
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *data;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "run_ops: cannot read %s\n", path);
        exit(1);
    }
    *raw = xmalloc((size_t)n);
    data = align_ptr(*raw);
    if (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "run_ops: short read of %s\n", path);
        exit(1);
    }
    fclose(f);
    *len = n;
    return data;
}

/* What of a tensor is resident: rows [h0, h1) x columns [w0, w1) of each batch item. */
typedef struct {
    int32_t h0, h1, w0, w1;
    int window; /* given by --window; a --band holds every column */
} resident_t;

/* Operands of option `arg` (3 for --band, 5 for --window), 0 if it is not one. */
static int option_operands(const char *arg) {
    if (strcmp(arg, "--band") == 0) return 3;
    if (strcmp(arg, "--window") == 0) return 5;
    return 0;
}

/* Whether argv[4..] is a sequence of complete options. */
static int options_ok(int argc, char **argv) {
    int i = 4;
    while (i < argc) {
        int k = option_operands(argv[i]);
        if (k == 0 || i + k >= argc) return 0;
        i += k + 1;
    }
    return 1;
}

/* Columns of a tensor as a kernel view sees them: the product of the dims after H (rank >= 3). */
static int32_t view_cols(const tigris_plan_t *plan, uint16_t t) {
    const tigris_tensor_t *tensor = &plan->tensors[t];
    const int32_t *shape = tigris_tensor_shape(plan, tensor);
    int32_t cols = 1;
    uint8_t a;
    for (a = 3; a < tensor->ndim; ++a) cols *= shape[a];
    return cols;
}

/* The (first) band or window given for a tensor: 1 and what is resident, or 0. */
static int resident_of(const tigris_plan_t *plan, int argc, char **argv, uint16_t tensor, resident_t *r) {
    int i, k;
    for (i = 4; i < argc; i += k + 1) {
        k = option_operands(argv[i]);
        if (atoi(argv[i + 1]) != (int)tensor) continue;
        r->h0 = atoi(argv[i + 2]);
        r->h1 = atoi(argv[i + 3]);
        r->window = k == 5;
        r->w0 = r->window ? atoi(argv[i + 4]) : 0;
        r->w1 = r->window ? atoi(argv[i + 5]) : view_cols(plan, tensor);
        return 1;
    }
    return 0;
}

/* Bytes of one pixel (C elements) of a tensor of rank >= 3. */
static size_t pixel_bytes(const tigris_plan_t *plan, uint16_t t) {
    return tigris_tensor_row_bytes(plan, &plan->tensors[t]) / (size_t)view_cols(plan, t);
}

/* Bytes of a tensor held as r's window of each batch item. */
static size_t resident_bytes(const tigris_plan_t *plan, uint16_t t, const resident_t *r) {
    return (size_t)tigris_tensor_shape(plan, &plan->tensors[t])[0] * (size_t)(r->h1 - r->h0) *
           (size_t)(r->w1 - r->w0) * pixel_bytes(plan, t);
}

/* Copy r's window of every batch item from a full tensor to its compact copy, a run of
 * w1 - w0 pixels per row. */
static void copy_window(const tigris_plan_t *plan, uint16_t t, const uint8_t *full, uint8_t *window,
                        const resident_t *r) {
    const int32_t *shape = tigris_tensor_shape(plan, &plan->tensors[t]);
    const size_t px = pixel_bytes(plan, t), rows = (size_t)shape[2], cols = (size_t)view_cols(plan, t);
    const size_t run = (size_t)(r->w1 - r->w0) * px;
    int32_t n, row;
    for (n = 0; n < shape[0]; ++n)
        for (row = r->h0; row < r->h1; ++row)
            memcpy(window + ((size_t)n * (size_t)(r->h1 - r->h0) + (size_t)(row - r->h0)) * run,
                   full + (((size_t)n * rows + (size_t)row) * cols + (size_t)r->w0) * px, run);
}

/* Record r for tensor t in mem; 0 if the range is not one of the tensor's. */
static int set_resident(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t t, const resident_t *r) {
    const tigris_tensor_t *tensor = &plan->tensors[t];
    if (tensor->ndim < 3 || r->h0 < 0 || r->h1 <= r->h0 || r->h1 > tigris_tensor_rows(plan, tensor) || r->w0 < 0 ||
        r->w1 <= r->w0 || r->w1 > view_cols(plan, t))
        return 0;
    if (r->window) return tigris_mem_set_window(mem, t, r->h0, r->h1, r->w0, r->w1, NULL) == TIGRIS_MEM_OK;
    return tigris_mem_set_band(mem, t, r->h0, r->h1, NULL) == TIGRIS_MEM_OK;
}

int main(int argc, char **argv) {
    tigris_plan_t plan;
    tigris_mem_t *mem;
    void *plan_raw, *in_raw, **raws, **tensor_ptrs, **block_raws = NULL;
    uint8_t *plan_buf, *in_buf;
    long plan_len, in_len;
    size_t in_used = 0;
    uint16_t t, s, i, num_tensors;
    int banded = 0, err, status = 0;
    resident_t r;
    FILE *out;

    if (argc < 4 || !options_ok(argc, argv)) {
        fprintf(stderr, "usage: run_ops plan.tgrs in.bin out.bin "
                        "[--band TENSOR H0 H1 | --window TENSOR H0 H1 W0 W1]...\n");
        return 1;
    }
    plan_buf = read_file(argv[1], &plan_len, &plan_raw);
    in_buf = read_file(argv[2], &in_len, &in_raw);
    err = tigris_plan_load(plan_buf, (uint32_t)plan_len, &plan);
    if (err != TIGRIS_OK) {
        fprintf(stderr, "run_ops: %s: %s\n", argv[1], tigris_error_str((tigris_error_t)err));
        return 2;
    }
    num_tensors = plan.header->num_tensors;
    raws = (void **)xmalloc(sizeof(void *) * (num_tensors + 1u));
    tensor_ptrs = (void **)xmalloc(sizeof(void *) * (num_tensors + 1u));
    mem = (tigris_mem_t *)xmalloc(sizeof(tigris_mem_t));
    if (tigris_mem_init(mem, tensor_ptrs, num_tensors, NULL, 0, NULL, 0) != TIGRIS_MEM_OK) {
        fprintf(stderr, "run_ops: tigris_mem_init failed\n");
        return 1;
    }
    if (plan.weight_compression == TIGRIS_COMPRESSION_LZ4 && plan.num_weight_blocks > 0) {
        block_raws = (void **)xmalloc(sizeof(void *) * plan.num_weight_blocks);
        for (i = 0; i < plan.num_weight_blocks; ++i) {
            const tigris_weight_block_t *b = &plan.weight_blocks[i];
            block_raws[i] = xmalloc(b->raw_size);
            if (tigris_lz4_decompress(plan.weight_blocks_data + b->offset, b->size, align_ptr(block_raws[i]),
                                      b->raw_size) != (int32_t)b->raw_size) {
                fprintf(stderr, "run_ops: weight block %u does not decompress\n", (unsigned)i);
                return 2;
            }
        }
    }
    for (t = 0; t < num_tensors; ++t) {
        const tigris_tensor_t *tensor = &plan.tensors[t];
        raws[t] = NULL;
        if (tensor->weight != TIGRIS_NONE16) {
            const tigris_weight_entry_t *e = &plan.weight_entries[tensor->weight];
            const void *w = tigris_tensor_weight(&plan, t);
            if (w == NULL && block_raws != NULL) w = align_ptr(block_raws[e->block]) + e->offset;
            tensor_ptrs[t] = (void *)(uintptr_t)w;
        } else if (resident_of(&plan, argc, argv, t, &r)) {
            if (!set_resident(mem, &plan, t, &r)) {
                fprintf(stderr, "run_ops: bad band [%d, %d) x [%d, %d) for tensor %u\n", (int)r.h0, (int)r.h1,
                        (int)r.w0, (int)r.w1, (unsigned)t);
                return 1;
            }
            raws[t] = xmalloc(resident_bytes(&plan, t, &r));
            tensor_ptrs[t] = align_ptr(raws[t]);
            banded = 1;
        } else {
            raws[t] = xmalloc(tensor->size);
            tensor_ptrs[t] = align_ptr(raws[t]);
        }
    }
    mem->tile.active = (uint16_t)banded;
    for (i = 0; i < plan.num_model_inputs; ++i) {
        uint16_t m = plan.model_inputs[i];
        uint32_t size = plan.tensors[m].size;
        if (in_used + size > (size_t)in_len) {
            fprintf(stderr, "run_ops: %s holds %ld bytes, the inputs need more\n", argv[2], in_len);
            return 1;
        }
        if (resident_of(&plan, argc, argv, m, &r))
            copy_window(&plan, m, in_buf + in_used, (uint8_t *)tensor_ptrs[m], &r);
        else memcpy(tensor_ptrs[m], in_buf + in_used, size);
        in_used += size;
    }
    if (in_used != (size_t)in_len) {
        fprintf(stderr, "run_ops: %s holds %ld bytes, the inputs %lu\n", argv[2], in_len, (unsigned long)in_used);
        return 1;
    }
    for (s = 0; s < plan.header->num_stages; ++s) {
        const tigris_stage_t *stage = &plan.stages[s];
        const uint16_t *ops = tigris_stage_ops(&plan, stage);
        for (i = 0; i < stage->num_ops; ++i) {
            const tigris_op_t *op = &plan.ops[ops[i]];
            err = tigris_ref_kernel(&plan, op, ops[i], mem, NULL);
            if (err != TIGRIS_KERNEL_OK) {
                fprintf(stderr, "run_ops: op %u '%s' (type %u): %s\n", (unsigned)ops[i], tigris_op_name(&plan, op),
                        (unsigned)op->op_type, tigris_kernel_error_str(err));
                status = 3;
                goto done; /* freeing everything: LeakSanitizer would turn 3 into 1 */
            }
        }
    }
    out = fopen(argv[3], "wb");
    if (out == NULL) {
        fprintf(stderr, "run_ops: cannot write %s\n", argv[3]);
        return 1;
    }
    for (i = 0; i < plan.num_model_outputs; ++i) {
        uint16_t m = plan.model_outputs[i];
        size_t size = resident_of(&plan, argc, argv, m, &r) ? resident_bytes(&plan, m, &r) : plan.tensors[m].size;
        if (fwrite(tensor_ptrs[m], 1, size, out) != size) {
            fprintf(stderr, "run_ops: short write of %s\n", argv[3]);
            return 1;
        }
    }
    fclose(out);
done:
    for (t = 0; t < num_tensors; ++t) free(raws[t]);
    if (block_raws != NULL) {
        for (i = 0; i < plan.num_weight_blocks; ++i) free(block_raws[i]);
        free(block_raws);
    }
    free(raws);
    free(tensor_ptrs);
    free(mem);
    free(in_raw);
    free(plan_raw);
    return status;
}
