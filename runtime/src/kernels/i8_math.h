/* i8_math.h - the integer-only requantization arithmetic of the int8 kernels (not public API).
 *
 * TFLite's reference semantics (gemmlowp's fixed-point primitives), bit for bit the
 * definitions of tigris_dialects/interpreter/quant_math.py:
 *
 *   srdhm(a, b)      SaturatingRoundingDoublingHighMul: a * b / 2^31 rounded to nearest, ties
 *                    toward +inf; INT32_MIN * INT32_MIN saturates to INT32_MAX
 *   rdbp(x, e)       RoundingDivideByPOT: x / 2^e rounded half away from zero, e in [0, 31]
 *   mbqm(x, m, s)    MultiplyByQuantizedMultiplier: x * m * 2^s / 2^31; a left shift (s > 0) is
 *                    applied to x first and wraps like two's-complement int32 arithmetic
 *   requant(...)     clamp(zp + mbqm(acc, m, s), lo, hi)
 *
 * Only int32 arithmetic, except the 64-bit product inside srdhm (as gemmlowp). Nothing here
 * relies on implementation-defined behaviour: right shifts of negative values and
 * unsigned-to-signed conversions are spelled out, so UBSan and any C99 compiler agree.
 */
#ifndef TIGRIS_I8_MATH_H
#define TIGRIS_I8_MATH_H

#include <stdint.h>

/* Shifts a multiplier may carry: positive shifts left, negative right. */
#define TIGRIS_I8_SHIFT_MIN (-31)
#define TIGRIS_I8_SHIFT_MAX 31

/* floor(x / 2^n), n in [0, 31] (an arithmetic right shift, spelled portably). */
static inline int32_t tigris_i8_asr(int32_t x, int32_t n) {
    return x >= 0 ? (int32_t)(x >> n) : (int32_t)~(~x >> n);
}

/* The int32 with the bits of u (two's complement). */
static inline int32_t tigris_i8_wrap(uint32_t u) {
    return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* gemmlowp SaturatingRoundingDoublingHighMul. */
static inline int32_t tigris_i8_srdhm(int32_t a, int32_t b) {
    int64_t ab, nudge;
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    ab = (int64_t)a * (int64_t)b;
    nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31)); /* C division truncates, as gemmlowp's */
}

/* gemmlowp RoundingDivideByPOT, exponent in [0, 31]. */
static inline int32_t tigris_i8_rdbp(int32_t x, int32_t exponent) {
    const uint32_t mask = (exponent >= 31) ? 0x7FFFFFFFu : ((1u << exponent) - 1u);
    const uint32_t remainder = (uint32_t)x & mask;
    const uint32_t threshold = (mask >> 1) + (x < 0 ? 1u : 0u);
    return tigris_i8_asr(x, exponent) + (remainder > threshold ? 1 : 0);
}

/* TFLite MultiplyByQuantizedMultiplier; shift in [TIGRIS_I8_SHIFT_MIN, TIGRIS_I8_SHIFT_MAX]. */
static inline int32_t tigris_i8_mbqm(int32_t x, int32_t multiplier, int32_t shift) {
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    const int32_t shifted = tigris_i8_wrap((uint32_t)x << left);
    return tigris_i8_rdbp(tigris_i8_srdhm(shifted, multiplier), right);
}

/* a + b saturated to int32 (the same as adding in 64 bits, then clamping to [lo, hi] in int32). */
static inline int32_t tigris_i8_sat_add(int32_t a, int32_t b) {
    if (b > 0 && a > INT32_MAX - b) return INT32_MAX;
    if (b < 0 && a < INT32_MIN - b) return INT32_MIN;
    return a + b;
}

static inline int32_t tigris_i8_clamp(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

/* clamp(zero_point + mbqm(acc, multiplier, shift), lo, hi). */
static inline int32_t tigris_i8_requant(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point,
                                        int32_t lo, int32_t hi) {
    return tigris_i8_clamp(tigris_i8_sat_add(tigris_i8_mbqm(acc, multiplier, shift), zero_point), lo, hi);
}

/* TFLite's average rounding: (total +- count / 2) / count, C's truncating division, count > 0.
 * The caller keeps |total| + count / 2 within int32. */
static inline int32_t tigris_i8_rounded_div(int32_t total, int32_t count) {
    const int32_t half = count / 2;
    return (total > 0 ? total + half : total - half) / count;
}

/* Stored 8-bit values as integers: value = (byte ^ flip) - bias; flip 0x80 and bias 128 for
 * int8, 0 and 0 for uint8. byte ^ flip orders the values as unsigned bytes (max, min). */
static inline int32_t tigris_i8_value(uint8_t byte, uint8_t flip, int32_t bias) {
    return (int32_t)(uint8_t)(byte ^ flip) - bias;
}

/* The stored byte of a value in the storage range. */
static inline uint8_t tigris_i8_byte(int32_t value) {
    return (uint8_t)((uint32_t)value & 0xFFu);
}

#endif /* TIGRIS_I8_MATH_H */
