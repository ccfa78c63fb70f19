/* i8_math.h - the arithmetic of the int8 kernels (not public API).
 *
 * onnxruntime's QDQ meaning, bit for bit the definitions of tigris_dialects/quant/arith.py
 * (docs/int8.md says why these formulas):
 *
 *   dequantize(v)    (float)(v - zp) * scale
 *   quantize(y)      clamp(rint(y / scale) + zp, lo, hi), ties to even, NaN -> lo
 *   requant(acc)     clamp(rint((float)acc * S) + zp, lo, hi): a dense op's int32 accumulator,
 *                    S = float32(sx * sw[c] / sy) from the plan
 *   mean(total)      quantize(((float)total * sx) / (float)count)
 *   expf             the softmax's exp (tigris_i8_expf), ours so every libm agrees
 *
 * Bit-exactness with the interpreter needs binary32 arithmetic rounded once per operation:
 * every intermediate is assigned to a float (which also removes any excess precision,
 * C99 5.1.2.3), and the runtime is built with -ffp-contract=off so no compiler fuses a
 * multiply and an add. rintf rounds in the default mode (to nearest, ties to even); the
 * integer <-> float conversions used here are exact (|values| < 2^24) except (float)acc of an
 * accumulator beyond 2^24, which rounds to nearest as numpy's does. Values converted to int32
 * are clamped first, so no conversion overflows.
 */
#ifndef TIGRIS_I8_MATH_H
#define TIGRIS_I8_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Most elements a mean (or average pool window) may sum: |x - zx| <= 255 each, the sum in int32
 * (quant/arith.py MEAN_MAX_COUNT). */
#define TIGRIS_I8_MAX_MEAN_COUNT (INT32_MAX / 255)

/* The float32 of binary32 bits (a quant data word). */
static inline float tigris_i8_f32(int32_t bits) {
    const uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A positive finite float32 (a usable scale). */
static inline int tigris_i8_scale_ok(float s) {
    return s > 0.0f && s <= 3.40282347e+38f;
}

/* The output range of a rounding: [lo, hi] with zero point zp, and the float bounds the rounded
 * value is compared with. zp, lo, hi lie in [-255, 255], so lo - zp and hi - zp are exact floats
 * and (int32_t)r never overflows. A kernel builds one per op, outside its loops. */
typedef struct {
    float r_lo, r_hi;
    int32_t zp, lo, hi;
} tigris_i8_range_t;

static inline tigris_i8_range_t tigris_i8_range(int32_t zp, int32_t lo, int32_t hi) {
    tigris_i8_range_t r;
    r.r_lo = (float)(lo - zp);
    r.r_hi = (float)(hi - zp);
    r.zp = zp;
    r.lo = lo;
    r.hi = hi;
    return r;
}

/* clamp(rint(v) + zp, lo, hi) over a range, NaN -> lo. */
static inline int32_t tigris_i8_round_to(const tigris_i8_range_t *range, float v) {
    const float r = rintf(v);
    if (!(r > range->r_lo)) return range->lo; /* below the range, or NaN */
    if (r >= range->r_hi) return range->hi;
    return (int32_t)r + range->zp;
}

/* 1.5 * 2^23: for |c| <= 2^22, (c + M) - M is rint(c) (see tigris_i8_round_fast). */
#define TIGRIS_I8_ROUND_MAGIC 12582912.0f

/* tigris_i8_round_to without rintf, in operations compilers vectorize (max, min, add, sub,
 * truncation): clamp v to [r_lo, r_hi] first (NaN -> r_lo), then round by the magic constant.
 * The same value for every float v:
 *   - NaN, or v <= r_lo: rint(v) <= r_lo (rint is monotone, r_lo an integer), so round_to gives
 *     lo; here c = r_lo, which rounds to itself: r_lo + zp = lo.
 *   - v > r_hi: rint(v) >= r_hi, round_to gives hi; here c = r_hi: hi.
 *   - r_lo < v <= r_hi: c = v and rint(v) lies in [r_lo, r_hi]; round_to gives rint(v) + zp
 *     (its two clamps give r_lo + zp = lo and r_hi + zp = hi at the ends), and so does this.
 * The rounding: |c| <= 510 < 2^22, so c + M lies in [2^23, 2^24), where floats are the integers;
 * the addition rounds the exact sum once, to nearest with ties to even, and M is an even
 * integer, so the sum is M + rint(c) (a tie goes to the even sum, the even rint(c)); the
 * subtraction of two integers below 2^24 is exact. Each step is assigned to a float (no excess
 * precision, C99 5.1.2.3) and is not reassociated (no -ffast-math), as everywhere in this file;
 * rintf's ties-to-even is the default rounding mode's, which this shares. -0 and +0 both
 * truncate to 0. test_runtime_kernels_fast.py checks it against tigris_i8_round_to on every
 * float of magnitude in [2^-2, 2^10), both signs, and on the special values. */
static inline int32_t tigris_i8_round_fast(const tigris_i8_range_t *range, float v) {
    float c = v > range->r_lo ? v : range->r_lo; /* NaN -> r_lo */
    c = c < range->r_hi ? c : range->r_hi;
    c = c + TIGRIS_I8_ROUND_MAGIC;
    c = c - TIGRIS_I8_ROUND_MAGIC;
    return (int32_t)c + range->zp;
}

/* clamp(rint(v) + zp, lo, hi), NaN -> lo. */
static inline int32_t tigris_i8_round_clamp(float v, int32_t zp, int32_t lo, int32_t hi) {
    const tigris_i8_range_t range = tigris_i8_range(zp, lo, hi);
    return tigris_i8_round_to(&range, v);
}

/* onnxruntime's QuantizeLinear of one value. */
static inline int32_t tigris_i8_quantize_to(const tigris_i8_range_t *range, float y, float scale) {
    const float r = y / scale;
    return tigris_i8_round_to(range, r);
}

static inline int32_t tigris_i8_quantize_value(float y, float scale, int32_t zp, int32_t lo, int32_t hi) {
    const tigris_i8_range_t range = tigris_i8_range(zp, lo, hi);
    return tigris_i8_quantize_to(&range, y, scale);
}

/* onnxruntime's DequantizeLinear of one value (an integer in the storage range). */
static inline float tigris_i8_dequantize_value(int32_t value, int32_t zp, float scale) {
    const float d = (float)(value - zp);
    const float y = d * scale;
    return y;
}

/* A dense op's int32 accumulator to its output: clamp(rint((float)acc * scale) + zp, lo, hi). */
static inline int32_t tigris_i8_requant_to(const tigris_i8_range_t *range, int32_t acc, float scale) {
    const float a = (float)acc;
    const float v = a * scale;
    return tigris_i8_round_to(range, v);
}

static inline int32_t tigris_i8_requant(int32_t acc, float scale, int32_t zp, int32_t lo, int32_t hi) {
    const tigris_i8_range_t range = tigris_i8_range(zp, lo, hi);
    return tigris_i8_requant_to(&range, acc, scale);
}

/* An average from the exact sum of (x - zx) over count > 0 elements. */
static inline int32_t tigris_i8_mean(int32_t total, int32_t count, float in_scale, float out_scale, int32_t zp,
                                     int32_t lo, int32_t hi) {
    const float t = (float)total;
    const float sum = t * in_scale;
    const float n = (float)count;
    const float m = sum / n;
    return tigris_i8_quantize_value(m, out_scale, zp, lo, hi);
}

/* exp in float32 operations, the definition of quant/arith.py exp_f32 (the constants are the
 * same binary32 values, written exactly): n = rint(x log2 e), r = (x - n ln2_hi) - n ln2_lo,
 * the degree-7 Taylor polynomial of e^r by Horner, times 2^n. 0 below -87, +inf above 88. */
static inline float tigris_i8_expf(float x) {
    const float log2e = 0x1.715476p+0f, ln2_hi = 0x1.62e4p-1f, ln2_lo = 0x1.7f7d1cp-20f;
    const float c[8] = {1.0f,           1.0f,           0.5f,           0x1.555556p-3f,
                        0x1.555556p-5f, 0x1.111112p-7f, 0x1.6c16c2p-10f, 0x1.a01a02p-13f};
    float t, n, hi, r, lo, p;
    int k;
    if (x != x) return x;
    if (x < -87.0f) return 0.0f;
    if (x > 88.0f) return HUGE_VALF;
    t = x * log2e;
    n = rintf(t);
    hi = n * ln2_hi;
    r = x - hi;
    lo = n * ln2_lo;
    r = r - lo;
    p = c[7];
    for (k = 6; k >= 0; --k) {
        p = p * r;
        p = p + c[k];
    }
    return ldexpf(p, (int)n);
}

static inline int32_t tigris_i8_clamp(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
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
