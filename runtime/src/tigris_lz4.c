/* tigris_lz4.c - LZ4 block-format decoder (no frame, no size prefix).
 *
 * Written from the LZ4 block format description. A block is a series of sequences:
 *
 *   token        1 byte: high nibble = literal length, low nibble = match length - 4
 *   [lit ext]    if the literal nibble is 15: bytes added to it, each 255 meaning "more"
 *   literals     that many bytes copied to the output
 *   offset       2 bytes little-endian: the match starts `offset` bytes back (1..produced)
 *   [match ext]  if the match nibble is 15: bytes added to it, as for literals
 *
 * The last sequence is literals only: the block ends right after its literals (its
 * token's match nibble is ignored). An empty output is the single byte 0x00.
 *
 * Besides bounds, offsets and a complete last sequence, the decoder enforces the
 * format's end-of-block rules, which every LZ4 compressor respects and LZ4's
 * reference LZ4_decompress_safe enforces against its output capacity: when a block
 * has matches, its last 5 bytes are literals (the last match ends at least 5 bytes
 * before the end) and the last match starts at least 12 bytes before the end. Here
 * "the end" is the size actually produced, so the result does not depend on dst_cap
 * (any capacity >= that size gives the same bytes).
 *
 * An offset of 0 is an error (the reference decoder would copy unwritten bytes).
 * Nothing outside src[0, src_len) is read and nothing outside dst[0, dst_cap) is
 * written; overlapping matches (offset < length) repeat the last `offset` bytes.
 */
#include <string.h>

#include "tigris_loader.h"

#define LZ4_MIN_MATCH 4u
#define LZ4_LAST_LITERALS 5u /* bytes after the last match */
#define LZ4_MATCH_LIMIT 12u  /* bytes from the last match's start to the end */
#define LZ4_MAX_OUTPUT 0x7FFFFFFFu

/* Adds the 255-extension bytes of a length whose nibble was 15. Fails (returns 0)
 * when the input ends inside the extension or the length exceeds `limit` (the room
 * left in the output), which also keeps the sum far from overflowing. */
static int lz4_ext_length(const uint8_t *src, uint32_t src_len, uint32_t *ip, uint32_t *len, uint32_t limit) {
    uint32_t b;
    do {
        if (*ip >= src_len) return 0;
        b = src[(*ip)++];
        *len += b;
        if (*len > limit) return 0;
    } while (b == 255u);
    return 1;
}

/* The decoder; dst == NULL is a dry run that only tracks positions. */
static int32_t lz4_run(const uint8_t *src, uint32_t src_len, uint8_t *dst, uint32_t dst_cap) {
    uint32_t ip = 0, op = 0;
    uint32_t last_start = 0, last_end = 0;
    int matched = 0;

    if (src == NULL || src_len == 0) return -1;
    if (dst_cap > LZ4_MAX_OUTPUT) dst_cap = LZ4_MAX_OUTPUT; /* the result is an int32_t */

    for (;;) {
        uint32_t token, len, offset;

        if (ip >= src_len) return -1; /* the previous sequence had a match: no last literals */
        token = src[ip++];

        len = token >> 4;
        if (len == 15u && !lz4_ext_length(src, src_len, &ip, &len, dst_cap - op)) return -1;
        if (len > src_len - ip || len > dst_cap - op) return -1;
        if (dst != NULL && len != 0) memcpy(dst + op, src + ip, len);
        ip += len;
        op += len;
        if (ip == src_len) break; /* the last sequence: literals only */

        if (src_len - ip < 2u) return -1;
        offset = (uint32_t)src[ip] | ((uint32_t)src[ip + 1] << 8);
        ip += 2;
        if (offset == 0 || offset > op) return -1;

        len = token & 15u;
        if (len == 15u && !lz4_ext_length(src, src_len, &ip, &len, dst_cap - op)) return -1;
        len += LZ4_MIN_MATCH;
        if (len > dst_cap - op) return -1;

        if (dst != NULL) {
            uint8_t *d = dst + op;
            const uint8_t *m = d - offset;
            if (offset >= len) {
                memcpy(d, m, len);
            } else {
                uint32_t k;
                for (k = 0; k < len; k++) d[k] = m[k]; /* overlapping: byte by byte, in order */
            }
        }
        last_start = op;
        op += len;
        last_end = op;
        matched = 1;
    }

    if (matched && (op - last_end < LZ4_LAST_LITERALS || op - last_start < LZ4_MATCH_LIMIT)) return -1;
    return (int32_t)op;
}

int32_t tigris_lz4_decompress(const uint8_t *src, uint32_t src_len, uint8_t *dst, uint32_t dst_cap) {
    if (dst == NULL) {
        if (dst_cap != 0) return -1;
        return lz4_run(src, src_len, NULL, 0); /* only the empty block fits nowhere */
    }
    return lz4_run(src, src_len, dst, dst_cap);
}

int32_t tigris_lz4_decoded_size(const uint8_t *src, uint32_t src_len, uint32_t max_size) {
    return lz4_run(src, src_len, NULL, max_size);
}
