/* tigris_bands.h - internal: which rows (and, in 2-D tiles, columns) of every tensor one
 * tile needs.
 *
 * The runtime twin of the compiler's transforms/plan/bands.py and geometry.py: output rows
 * of the last stage are propagated backwards through the ops of a tiled stage or chain,
 * each op mapping its output rows to input rows by its record's band geometry (geometry_h,
 * tigris_band_geometry_t, written by the emitter from the op's traits: WINDOW by kernel_h,
 * stride_h, dilation_h and pad_top; PAD and RESIZE by their rules on params and modes; GLOBAL
 * and NONE the whole input; SAME the same rows), never by its op type, so a plugin op is
 * banded by the geometry it declares; a tensor read by several ops gets the union of their
 * ranges. A 2-D tile propagates its output columns the same way by geometry_w (WINDOW by
 * kernel_w, stride_w, dilation_w and pad_left); a tensor without a W axis to cut (rank other
 * than 4, or W == 1) keeps whole rows (w_end 0).
 */
#ifndef TIGRIS_BANDS_H
#define TIGRIS_BANDS_H

#include "tigris.h"
#include "tigris_mem.h"

/* Rows of input tensor `in` that rows [start, end) of op's output read, as
 * bands.py's _input_range (clamped to the tensor; never empty). */
void tigris_band_input_range(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                             int32_t end, int32_t *lo, int32_t *hi);

/* Columns of input tensor `in` that columns [start, end) of op's output read, as
 * geometry.input_range along W (clamped to the tensor; never empty); [0, 0) (whole rows)
 * if `in` has no W axis to cut: rank other than 4, or one column (geometry.has_axis). */
void tigris_band_input_cols(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                            int32_t end, int32_t *lo, int32_t *hi);

/* Fill mem->tile.bands (slow pointers NULL) with the row range of every tensor that
 * stages first..last touch for output rows [h_start, h_end) of the last stage and, in a
 * 2-D tile (w_end != 0), output columns [w_start, w_end): then every tensor with a W axis
 * gets its column window too. Indices must have been validated. Returns 0, or -1 if the
 * band table is full. */
int tigris_bands_compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                         int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end);

/* tigris_bands_compute for full-width tile rows [h_start, h_end) of a group run with row
 * caches (mem->tile.caches, docs/tgrs-format.md "Row caches", transforms/plan/row_cache.py):
 * an op whose output is cached computes only the rows of its band from the cache's `done` on,
 * and widens its inputs by what those rows read; if it computes none it widens nothing. The
 * bands are still the rows each tensor must hold for the tile (a cached one's: in its slot). */
int tigris_bands_compute_cached(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                                int32_t h_start, int32_t h_end);

/* The same for tile rows [h_start, h_end) (and, with w_end != 0, columns [w_start, w_end)) of
 * stage `stage` run in reduction tiles: that window of input 0 of its accumulating op
 * `reduce_op` (the stage's last op), whose outputs are whole, and what the stage's earlier ops
 * need for it (reduce_op itself is not propagated: as a window it would ask for its whole
 * input). */
int tigris_bands_compute_reduce(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t stage, uint16_t reduce_op,
                                int32_t h_start, int32_t h_end, int32_t w_start, int32_t w_end);

/* tigris_band_op_accumulates and tigris_band_op_tileable_2d, the op types reduction tiles and
 * 2-D tiles may hold, are generated into tigris_format.h from emit/tgrs/enums.py (C_OP_SETS). */

/* 0 for ops the compiler never cuts along H (geometry_h NONE: structural and dense ops, a
 * concat along H, a slice or gather that is not a channel pick): a band of their output is
 * not computable from bands of their inputs. */
int tigris_band_op_tileable(const tigris_plan_t *plan, const tigris_op_t *op);

/* The band of a tensor in mem->tile, or NULL. */
tigris_band_t *tigris_band_find(tigris_mem_t *mem, uint16_t tensor);

/* The row cache of a tensor in mem->tile (a group run with row caches), or NULL. */
tigris_row_cache_t *tigris_band_cache_find(tigris_mem_t *mem, uint16_t tensor);

#endif /* TIGRIS_BANDS_H */
