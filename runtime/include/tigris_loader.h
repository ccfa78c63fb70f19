/* tigris_loader.h - parse a .tgrs plan in place (zero copy, zero allocation). */
#ifndef TIGRIS_LOADER_H
#define TIGRIS_LOADER_H

#include "tigris.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse and validate a plan. Every offset, count and index is bounds-checked and
 * the CRC is verified before out_plan is filled; on error *out_plan is zeroed.
 * buf must stay alive (and unchanged) while out_plan is used, and be 4-byte
 * aligned (16 for weights to be aligned for any element type). */
tigris_error_t tigris_plan_load(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan);

/* Human-readable text of a loader error code (never NULL). */
const char *tigris_error_str(tigris_error_t err);

/* CRC-32 (zlib polynomial) of len bytes, continuing from crc (start with 0). */
uint32_t tigris_crc32(uint32_t crc, const uint8_t *data, uint32_t len);

/* LZ4 block decoder. Decodes src[0..src_len) into dst[0..dst_cap); returns the
 * number of bytes written, or -1 if the stream is malformed (a match offset of 0
 * or before the output start, LZ4's end-of-block rules broken: the last 5 bytes
 * must be literals) or would read or write out of bounds. Never touches memory
 * outside the two ranges. */
int32_t tigris_lz4_decompress(const uint8_t *src, uint32_t src_len, uint8_t *dst, uint32_t dst_cap);

/* The same decode without writing: the size the stream decodes to (at most
 * max_size), or -1 where tigris_lz4_decompress would fail. The loader validates
 * LZ4 blocks with it, since it has nowhere to decode them to. */
int32_t tigris_lz4_decoded_size(const uint8_t *src, uint32_t src_len, uint32_t max_size);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_LOADER_H */
