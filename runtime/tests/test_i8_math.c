/* test_i8_math.c - evaluates the int8 arithmetic helpers (i8_math.h) on a stream of cases.
 *
 * stdin: records of 8 little-endian int32 {kind, p0, ..., p6}; stdout: one int32 per record.
 * Floats travel as their binary32 bits. test/python/test_runtime_kernels_i8.py generates the
 * cases and compares every result with tigris_dialects/quant/arith.py bit for bit. Exit status 2
 * on a malformed stream.
 *
 *   kind 0  round_clamp(f p0, zp = p1, lo = p2, hi = p3)
 *   kind 1  quantize_value(f p0, scale = f p1, zp = p2, lo = p3, hi = p4)
 *   kind 2  dequantize_value(p0, zp = p1, scale = f p2)                 -> float bits
 *   kind 3  requant(acc = p0, scale = f p1, zp = p2, lo = p3, hi = p4)
 *   kind 4  mean(total = p0, count = p1, sx = f p2, sy = f p3, zp = p4, lo = p5, hi = p6)
 *   kind 5  expf(f p0)                                                  -> float bits
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "i8_math.h"

#define RECORD_WORDS 8
#define BATCH 256

static int32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* zero point, lo and hi as the kernels guarantee them: in [-255, 255], lo <= hi */
static int storage_ok(int32_t zp, int32_t lo, int32_t hi) {
    return zp >= -255 && zp <= 255 && lo >= -255 && hi <= 255 && lo <= hi;
}

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
            case 0:
                if (!storage_ok(r[2], r[3], r[4])) return 2;
                v = tigris_i8_round_clamp(tigris_i8_f32(r[1]), r[2], r[3], r[4]);
                break;
            case 1:
                if (!storage_ok(r[3], r[4], r[5])) return 2;
                v = tigris_i8_quantize_value(tigris_i8_f32(r[1]), tigris_i8_f32(r[2]), r[3], r[4], r[5]);
                break;
            case 2:
                if (r[1] < -255 || r[1] > 255 || r[2] < -255 || r[2] > 255) return 2;
                v = bits_of(tigris_i8_dequantize_value(r[1], r[2], tigris_i8_f32(r[3])));
                break;
            case 3:
                if (!storage_ok(r[3], r[4], r[5])) return 2;
                v = tigris_i8_requant(r[1], tigris_i8_f32(r[2]), r[3], r[4], r[5]);
                break;
            case 4:
                if (r[2] < 1 || !storage_ok(r[5], r[6], r[7])) return 2;
                v = tigris_i8_mean(r[1], r[2], tigris_i8_f32(r[3]), tigris_i8_f32(r[4]), r[5], r[6], r[7]);
                break;
            case 5: v = bits_of(tigris_i8_expf(tigris_i8_f32(r[1]))); break;
            default: return 2;
            }
            out[i] = v;
        }
        if (fwrite(out, sizeof(int32_t), got, stdout) != got) return 2;
    }
    return ferror(stdin) ? 2 : 0;
}
