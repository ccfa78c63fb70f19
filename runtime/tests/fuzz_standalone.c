/* fuzz_standalone - drive the libFuzzer entry points of fuzz_plan.c without libFuzzer.
 *
 *     fuzz_standalone [-m MUTANTS] FILE...
 *
 * Linked with fuzz_plan.c built with -DTIGRIS_LIBFUZZER (any C compiler: gcc in CI, where
 * clang's libFuzzer is not installed), this calls LLVMFuzzerInitialize, then for each FILE
 * LLVMFuzzerTestOneInput on its bytes and on MUTANTS copies mutated by
 * LLVMFuzzerCustomMutator (seeds 1..MUTANTS), as libFuzzer would. LLVMFuzzerMutate, libFuzzer's
 * own byte-level mutator, is a stub that leaves the input as it is. The target prints its
 * counts at exit. Exits 0, or 2 on a usage or I/O error (the target aborts on a failure).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    (void)data;
    (void)max_size;
    return size;
}

#define SLACK 4096u /* room the custom mutator may grow an input into */

int main(int argc, char **argv) {
    unsigned long mutants = 0, k;
    int i, first = 1;
    if (argc > 2 && strcmp(argv[1], "-m") == 0) {
        mutants = strtoul(argv[2], NULL, 10);
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: fuzz_standalone [-m MUTANTS] FILE...\n");
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    for (i = first; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *data, *copy;
        long n;
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
            fprintf(stderr, "fuzz_standalone: cannot read %s\n", argv[i]);
            return 2;
        }
        data = (uint8_t *)malloc((size_t)n + 1u);
        copy = (uint8_t *)malloc((size_t)n + SLACK);
        if (data == NULL || copy == NULL || fread(data, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "fuzz_standalone: cannot read %s\n", argv[i]);
            return 2;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(data, (size_t)n);
        for (k = 1; k <= mutants; k++) {
            size_t len;
            memcpy(copy, data, (size_t)n);
            len = LLVMFuzzerCustomMutator(copy, (size_t)n, (size_t)n + SLACK, (unsigned int)k);
            LLVMFuzzerTestOneInput(copy, len);
        }
        free(data);
        free(copy);
    }
    return 0;
}
