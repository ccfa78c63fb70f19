/* test_i8_math.c - evaluates the int8 fixed-point helpers (i8_math.h) on a stream of cases.
 *
 * stdin: records of 8 little-endian int32 {kind, p0, ..., p6}; stdout: one int32 per record.
 * test/python/test_runtime_kernels_i8.py generates the cases and compares every result with
 * tigris_dialects/interpreter/quant_math.py bit for bit. Exit status 2 on a malformed stream.
 *
 *   kind 0  srdhm(p0, p1)            kind 3  requant(p0, m = p1, s = p2, zp = p3, lo = p4, hi = p5)
 *   kind 1  rdbp(p0, exponent = p1)  kind 4  rounded_div(p0, count = p1)
 *   kind 2  mbqm(p0, m = p1, s = p2) kind 5  asr(p0, p1)      kind 6  sat_add(p0, p1)
 */
#include <stdint.h>
#include <stdio.h>

#include "i8_math.h"

#define RECORD_WORDS 8
#define BATCH 256

int main(void) {
    int32_t in[BATCH * RECORD_WORDS];
    int32_t out[BATCH];
    size_t got;
    while ((got = fread(in, sizeof(int32_t) * RECORD_WORDS, BATCH, stdin)) > 0) {
        size_t i;
        for (i = 0; i < got; ++i) {
            const int32_t *r = in + i * RECORD_WORDS;
            int32_t v;
            switch (r[0]) {
            case 0: v = tigris_i8_srdhm(r[1], r[2]); break;
            case 1:
                if (r[2] < 0 || r[2] > 31) return 2;
                v = tigris_i8_rdbp(r[1], r[2]);
                break;
            case 2:
                if (r[3] < TIGRIS_I8_SHIFT_MIN || r[3] > TIGRIS_I8_SHIFT_MAX) return 2;
                v = tigris_i8_mbqm(r[1], r[2], r[3]);
                break;
            case 3:
                if (r[3] < TIGRIS_I8_SHIFT_MIN || r[3] > TIGRIS_I8_SHIFT_MAX) return 2;
                v = tigris_i8_requant(r[1], r[2], r[3], r[4], r[5], r[6]);
                break;
            case 4:
                if (r[2] <= 0) return 2;
                v = tigris_i8_rounded_div(r[1], r[2]);
                break;
            case 5:
                if (r[2] < 0 || r[2] > 31) return 2;
                v = tigris_i8_asr(r[1], r[2]);
                break;
            case 6: v = tigris_i8_sat_add(r[1], r[2]); break;
            default: return 2;
            }
            out[i] = v;
        }
        if (fwrite(out, sizeof(int32_t), got, stdout) != got) return 2;
    }
    return ferror(stdin) ? 2 : 0;
}
