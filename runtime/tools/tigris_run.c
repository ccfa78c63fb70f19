/* tigris_run.c - the host runner.
 *
 *   tigris-run model.tgrs in.bin out.bin [--fast BYTES] [--slow BYTES] [--stats]
 *
 * in.bin holds the model inputs' bytes concatenated in model-input order, in the
 * runtime layout (channels-last, the plan's dtypes); out.bin receives the model
 * outputs likewise. The plan runs with the reference kernels in a fast arena and a
 * slow buffer of the given sizes (BYTES may end in K or M; by default what the plan
 * needs, see tigris_host.h). --stats prints the run's figures as key=value lines.
 * Errors are one line on stderr and exit status 1.
 *
 * This is an embedding application, not the runtime: it uses the heap and stdio.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_host.h"
#include "tigris_loader.h"

static const char *const STAT_NAMES[TIGRIS_HOST_NUM_FIGURES] = {
    "stages_normal", "stages_tiled", "stages_chain", "total_tiles", "slow_overflow_count", "slow_overflow_bytes",
    "loads_bytes", "spills_bytes", "compactions", "slow_peak", "fast_peak", "row_cache_bytes",
    "recomputed_rows"};

static int fail(const char *what, const char *detail) {
    fprintf(stderr, "tigris-run: %s%s%s\n", what, detail != NULL ? ": " : "", detail != NULL ? detail : "");
    return 1;
}

/* The whole file in a heap buffer (malloc'd memory is aligned for any type). */
static uint8_t *read_file(const char *path, uint32_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    if (f == NULL) return NULL;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *bigger;
            cap = cap == 0 ? 65536u : cap * 2u;
            if (cap > 0xFFFFFFFFu) break;
            bigger = (uint8_t *)realloc(buf, cap);
            if (bigger == NULL) break;
            buf = bigger;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f) || n > 0xFFFFFFFFu) break;
            fclose(f);
            *len = (uint32_t)n;
            if (buf == NULL) buf = (uint8_t *)malloc(1);
            return buf;
        }
    }
    fclose(f);
    free(buf);
    return NULL;
}

/* BYTES, BYTESK or BYTESM; returns 0 on success. */
static int parse_size(const char *s, uint32_t *out) {
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) return -1;
    if (*end == 'K' || *end == 'k') v *= 1024u, end++;
    else if (*end == 'M' || *end == 'm') v *= 1024u * 1024u, end++;
    if (*end != '\0' || v == 0 || v > 0xFFFFFFFFull) return -1;
    *out = (uint32_t)v;
    return 0;
}

static uint64_t io_bytes(const tigris_plan_t *plan, const uint16_t *list, uint16_t n) {
    uint64_t total = 0;
    uint16_t i;
    for (i = 0; i < n; i++) total += plan->tensors[list[i]].size;
    return total;
}

int main(int argc, char **argv) {
    uint8_t *model = NULL, *inputs = NULL, *outputs = NULL;
    uint32_t model_len = 0, inputs_len = 0, outputs_len, fast = 0, slow = 0, stats[TIGRIS_HOST_NUM_STATS];
    uint64_t out_bytes;
    int show_stats = 0, i, rc = 1;
    char err[256];
    tigris_plan_t plan;
    tigris_error_t lerr;
    FILE *f;

    if (argc < 4) return fail("usage", "tigris-run model.tgrs in.bin out.bin [--fast BYTES] [--slow BYTES] [--stats]");
    for (i = 4; i < argc; i++) {
        if (strcmp(argv[i], "--stats") == 0) {
            show_stats = 1;
        } else if ((strcmp(argv[i], "--fast") == 0 || strcmp(argv[i], "--slow") == 0) && i + 1 < argc) {
            if (parse_size(argv[i + 1], argv[i][2] == 'f' ? &fast : &slow) != 0) return fail("bad size", argv[i + 1]);
            i++;
        } else {
            return fail("unknown option", argv[i]);
        }
    }
    model = read_file(argv[1], &model_len);
    if (model == NULL) return fail(argv[1], strerror(errno != 0 ? errno : EIO));
    inputs = read_file(argv[2], &inputs_len);
    if (inputs == NULL) {
        fail(argv[2], strerror(errno != 0 ? errno : EIO));
        goto done;
    }
    /* the output size comes from the plan (tigris_host_run loads it again, in its own copy) */
    lerr = tigris_plan_load(model, model_len, &plan);
    if (lerr != TIGRIS_OK) {
        fail("cannot load the plan", tigris_error_str(lerr));
        goto done;
    }
    out_bytes = io_bytes(&plan, plan.model_outputs, plan.num_model_outputs);
    if (out_bytes > UINT32_MAX) {
        fail("cannot run the plan", "its outputs take more than 4 GiB");
        goto done;
    }
    outputs_len = (uint32_t)out_bytes;
    outputs = (uint8_t *)malloc(outputs_len > 0 ? outputs_len : 1u);
    if (outputs == NULL) {
        fail("host", "out of memory");
        goto done;
    }
    if (tigris_host_run(model, model_len, inputs, inputs_len, outputs, outputs_len, fast, slow, stats, err,
                        (uint32_t)sizeof(err)) != 0) {
        fail(err, NULL);
        goto done;
    }
    f = fopen(argv[3], "wb");
    if (f == NULL || fwrite(outputs, 1, outputs_len, f) != outputs_len) {
        if (f != NULL) fclose(f);
        fail(argv[3], "cannot write");
        goto done;
    }
    if (fclose(f) != 0) {
        fail(argv[3], "cannot write");
        goto done;
    }
    if (show_stats) {
        for (i = 0; i < TIGRIS_HOST_NUM_FIGURES; i++) printf("%s=%lu\n", STAT_NAMES[i], (unsigned long)stats[i]);
    }
    rc = 0;
done:
    free(model);
    free(inputs);
    free(outputs);
    return rc;
}
