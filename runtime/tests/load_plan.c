/* load_plan - run tigris_plan_load on .tgrs files and print the result.
 *
 *     load_plan [--offset N] [--fields] FILE...
 *     load_plan --error-strings
 *
 * Prints one line per file: the tigris_error_t name (TIGRIS_OK, TIGRIS_ERR_BAD_CRC, ...).
 * Each file is loaded from a heap block of exactly its size (so AddressSanitizer
 * catches any read past its end), starting N bytes into the block with --offset N
 * (a misaligned buffer for N % 4 != 0). With --fields, an accepted plan is followed by
 * one "  field value" line per tigris_plan_t field, pointers as byte offsets from the
 * buffer (-1 for NULL). --error-strings prints "code name text" for every error code
 * (and one unknown code). Exits 0 once every file was loaded, 2 on a usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_loader.h"

static const char *error_name(tigris_error_t err) {
    switch (err) {
    case TIGRIS_OK: return "TIGRIS_OK";
    case TIGRIS_ERR_NULL: return "TIGRIS_ERR_NULL";
    case TIGRIS_ERR_TOO_SMALL: return "TIGRIS_ERR_TOO_SMALL";
    case TIGRIS_ERR_BAD_MAGIC: return "TIGRIS_ERR_BAD_MAGIC";
    case TIGRIS_ERR_BAD_VERSION: return "TIGRIS_ERR_BAD_VERSION";
    case TIGRIS_ERR_BAD_SIZE: return "TIGRIS_ERR_BAD_SIZE";
    case TIGRIS_ERR_BAD_SECTION: return "TIGRIS_ERR_BAD_SECTION";
    case TIGRIS_ERR_MISSING_SEC: return "TIGRIS_ERR_MISSING_SEC";
    case TIGRIS_ERR_ENDIAN: return "TIGRIS_ERR_ENDIAN";
    case TIGRIS_ERR_PLAN_LIMITS: return "TIGRIS_ERR_PLAN_LIMITS";
    case TIGRIS_ERR_BAD_CRC: return "TIGRIS_ERR_BAD_CRC";
    case TIGRIS_ERR_BAD_RECORD: return "TIGRIS_ERR_BAD_RECORD";
    case TIGRIS_ERR_BAD_ALIGN: return "TIGRIS_ERR_BAD_ALIGN";
    }
    return "TIGRIS_ERR_UNKNOWN";
}

/* The whole file in a heap block of offset + size bytes, the data at block + offset. */
static uint8_t *read_file(const char *path, size_t offset, uint32_t *size) {
    FILE *f = fopen(path, "rb");
    uint8_t *block;
    long n;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > 0x7FFFFFFFL || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    block = (uint8_t *)malloc(offset + (size_t)n + (offset + (size_t)n == 0));
    if (block != NULL && fread(block + offset, 1, (size_t)n, f) != (size_t)n) {
        free(block);
        block = NULL;
    }
    fclose(f);
    *size = (uint32_t)n;
    return block;
}

static long where(const void *p, const uint8_t *buf) {
    return p == NULL ? -1L : (long)((const uint8_t *)p - buf);
}

static void print_fields(const tigris_plan_t *p, const uint8_t *buf) {
    printf("  header %ld\n", where(p->header, buf));
    printf("  tensors %ld\n", where(p->tensors, buf));
    printf("  ops %ld\n", where(p->ops, buf));
    printf("  stages %ld\n", where(p->stages, buf));
    printf("  tile_plans %ld\n", where(p->tile_plans, buf));
    printf("  index_pool %ld\n", where(p->index_pool, buf));
    printf("  shape_pool %ld\n", where(p->shape_pool, buf));
    printf("  strings %ld\n", where(p->strings, buf));
    printf("  weight_entries %ld\n", where(p->weight_entries, buf));
    printf("  weight_blob %ld\n", where(p->weight_blob, buf));
    printf("  weight_blocks %ld\n", where(p->weight_blocks, buf));
    printf("  weight_blocks_data %ld\n", where(p->weight_blocks_data, buf));
    printf("  num_weight_blocks %u\n", (unsigned)p->num_weight_blocks);
    printf("  weight_compression %u\n", (unsigned)p->weight_compression);
    printf("  quant_params %ld\n", where(p->quant_params, buf));
    printf("  quant_data %ld\n", where(p->quant_data, buf));
    printf("  num_quant_params %u\n", (unsigned)p->num_quant_params);
    printf("  model_inputs %ld\n", where(p->model_inputs, buf));
    printf("  model_outputs %ld\n", where(p->model_outputs, buf));
    printf("  tables %ld\n", where(p->tables, buf));
    printf("  num_model_inputs %u\n", (unsigned)p->num_model_inputs);
    printf("  num_model_outputs %u\n", (unsigned)p->num_model_outputs);
    printf("  index_pool_len %lu\n", (unsigned long)p->index_pool_len);
    printf("  shape_pool_len %lu\n", (unsigned long)p->shape_pool_len);
    printf("  quant_data_len %lu\n", (unsigned long)p->quant_data_len);
    printf("  model_name %s\n", tigris_model_name(p));
    printf("  decompression_overhead %lu\n", (unsigned long)tigris_weight_decompression_overhead(p));
}

int main(int argc, char **argv) {
    size_t offset = 0;
    int i = 1, fields = 0;
    if (argc == 2 && strcmp(argv[1], "--error-strings") == 0) {
        int code;
        for (code = 0; code >= -13; code--)
            printf("%d %s %s\n", code, error_name((tigris_error_t)code), tigris_error_str((tigris_error_t)code));
        return 0;
    }
    for (;;) {
        if (i + 1 < argc && strcmp(argv[i], "--offset") == 0) {
            offset = (size_t)strtoul(argv[i + 1], NULL, 10);
            i += 2;
        } else if (i < argc && strcmp(argv[i], "--fields") == 0) {
            fields = 1;
            i++;
        } else {
            break;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: load_plan [--offset N] [--fields] FILE... | load_plan --error-strings\n");
        return 2;
    }
    for (; i < argc; i++) {
        uint32_t size = 0;
        tigris_plan_t plan;
        tigris_error_t err;
        uint8_t *block = read_file(argv[i], offset, &size);
        if (block == NULL) {
            fprintf(stderr, "load_plan: cannot read %s\n", argv[i]);
            return 2;
        }
        err = tigris_plan_load(block + offset, size, &plan);
        printf("%s\n", error_name(err));
        if (fields && err == TIGRIS_OK) print_fields(&plan, block + offset);
        free(block);
    }
    return 0;
}
