/* test_lz4 - drive tigris_lz4_decompress and tigris_crc32 from tests.
 *
 *     test_lz4 decode CAP SRC OUT [CAP SRC OUT]...
 *         Decodes the file SRC into a heap block of exactly CAP bytes (so AddressSanitizer
 *         catches any access outside it) and prints the return value; when it is >= 0,
 *         writes that many bytes to OUT. Also checks that the loader's dry run
 *         (tigris_lz4_decoded_size) agrees with the real decode, and exits 3 if not.
 *     test_lz4 crc SPLIT FILE...
 *         Prints the CRC-32 of each file as 8 hex digits, computed in two calls split at
 *         byte SPLIT (clamped to the length), which exercises the running CRC.
 *
 * Exits 0 on success, 2 on a usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tigris_loader.h"


static uint8_t *read_file(const char *path, uint32_t *size) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > 0x7FFFFFFFL || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = (uint8_t *)malloc(n > 0 ? (size_t)n : 1u);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (uint32_t)n;
    return buf;
}

static int decode(const char *cap_arg, const char *src_path, const char *out_path) {
    uint32_t src_len = 0, cap = (uint32_t)strtoul(cap_arg, NULL, 10);
    uint8_t *src = read_file(src_path, &src_len);
    uint8_t *dst;
    int32_t n, dry;
    FILE *f;
    if (src == NULL) return 2;
    /* The exact block, without the +1 of read_file: reading past src_len is caught. */
    if (src_len > 0) {
        uint8_t *exact = (uint8_t *)malloc(src_len);
        if (exact == NULL) return 2;
        memcpy(exact, src, src_len);
        free(src);
        src = exact;
    }
    dst = cap > 0 ? (uint8_t *)malloc(cap) : NULL;
    if (cap > 0 && dst == NULL) return 2;
    n = tigris_lz4_decompress(src, src_len, dst, cap);
    dry = tigris_lz4_decoded_size(src, src_len, cap);
    printf("%ld\n", (long)n);
    if (n != dry) {
        fprintf(stderr, "test_lz4: %s: decode gives %ld, the dry run %ld\n", src_path, (long)n, (long)dry);
        return 3;
    }
    if (n >= 0) {
        f = fopen(out_path, "wb");
        if (f == NULL || (n > 0 && fwrite(dst, 1, (size_t)n, f) != (size_t)n)) return 2;
        fclose(f);
    }
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv) {
    int i, rc;
    if (argc >= 5 && strcmp(argv[1], "decode") == 0 && (argc - 2) % 3 == 0) {
        for (i = 2; i < argc; i += 3)
            if ((rc = decode(argv[i], argv[i + 1], argv[i + 2])) != 0) return rc;
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "crc") == 0) {
        uint32_t split = (uint32_t)strtoul(argv[2], NULL, 10);
        for (i = 3; i < argc; i++) {
            uint32_t len = 0, crc, at;
            uint8_t *data = read_file(argv[i], &len);
            if (data == NULL) return 2;
            at = split < len ? split : len;
            crc = tigris_crc32(0, data, at);
            crc = tigris_crc32(crc, data + at, len - at);
            printf("%08lx\n", (unsigned long)crc);
            free(data);
        }
        return 0;
    }
    fprintf(stderr, "usage: test_lz4 decode CAP SRC OUT [CAP SRC OUT]... | test_lz4 crc SPLIT FILE...\n");
    return 2;
}
