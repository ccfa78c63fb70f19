/* run_ops.c - run every op of a plan with the reference kernels, without the executor.
 *
 *     run_ops plan.tgrs in.bin out.bin [--band TENSOR H0 H1]...
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
 * bands. Exit status: 0 ok, 1 usage or I/O error, 2 load error, 3 kernel error.
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

/* The band given for a tensor: 1 and its rows, or 0. */
static int band_of(int argc, char **argv, uint16_t tensor, int32_t *h0, int32_t *h1) {
    int i;
    for (i = 4; i + 3 < argc; i += 4) {
        if (strcmp(argv[i], "--band") != 0) continue;
        if (atoi(argv[i + 1]) == (int)tensor) {
            *h0 = atoi(argv[i + 2]);
            *h1 = atoi(argv[i + 3]);
            return 1;
        }
    }
    return 0;
}

/* Bytes of a tensor held as rows [h0, h1) of each batch item. */
static size_t band_bytes(const tigris_plan_t *plan, uint16_t t, int32_t h0, int32_t h1) {
    const tigris_tensor_t *tensor = &plan->tensors[t];
    return (size_t)tigris_tensor_shape(plan, tensor)[0] * (size_t)(h1 - h0) * tigris_tensor_row_bytes(plan, tensor);
}

/* Copy rows [h0, h1) of every batch item between a full tensor and its band (to_band: full -> band). */
static void copy_band(const tigris_plan_t *plan, uint16_t t, uint8_t *full, uint8_t *band, int32_t h0, int32_t h1,
                      int to_band) {
    const tigris_tensor_t *tensor = &plan->tensors[t];
    const int32_t *shape = tigris_tensor_shape(plan, tensor);
    const size_t row = tigris_tensor_row_bytes(plan, tensor), rows = (size_t)shape[2], count = (size_t)(h1 - h0);
    int32_t n;
    for (n = 0; n < shape[0]; ++n) {
        uint8_t *f = full + ((size_t)n * rows + (size_t)h0) * row, *b = band + (size_t)n * count * row;
        if (to_band) memcpy(b, f, count * row);
        else memcpy(f, b, count * row);
    }
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
    FILE *out;

    if (argc < 4 || (argc - 4) % 4 != 0) {
        fprintf(stderr, "usage: run_ops plan.tgrs in.bin out.bin [--band TENSOR H0 H1]...\n");
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
        int32_t h0 = 0, h1 = 0;
        raws[t] = NULL;
        if (tensor->weight != TIGRIS_NONE16) {
            const tigris_weight_entry_t *e = &plan.weight_entries[tensor->weight];
            const void *w = tigris_tensor_weight(&plan, t);
            if (w == NULL && block_raws != NULL) w = align_ptr(block_raws[e->block]) + e->offset;
            tensor_ptrs[t] = (void *)(uintptr_t)w;
        } else if (band_of(argc, argv, t, &h0, &h1)) {
            if (tensor->ndim < 3 || h0 < 0 || h1 <= h0 || h1 > tigris_tensor_rows(&plan, tensor) ||
                tigris_mem_set_band(mem, t, h0, h1, NULL) != TIGRIS_MEM_OK) {
                fprintf(stderr, "run_ops: bad band [%d, %d) for tensor %u\n", (int)h0, (int)h1, (unsigned)t);
                return 1;
            }
            raws[t] = xmalloc(band_bytes(&plan, t, h0, h1));
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
        int32_t h0, h1;
        uint32_t size = plan.tensors[m].size;
        if (in_used + size > (size_t)in_len) {
            fprintf(stderr, "run_ops: %s holds %ld bytes, the inputs need more\n", argv[2], in_len);
            return 1;
        }
        if (band_of(argc, argv, m, &h0, &h1)) copy_band(&plan, m, in_buf + in_used, (uint8_t *)tensor_ptrs[m], h0, h1, 1);
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
        int32_t h0, h1;
        size_t size = band_of(argc, argv, m, &h0, &h1) ? band_bytes(&plan, m, h0, h1) : plan.tensors[m].size;
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
