/* tigris_bands.h - internal: which rows of every tensor one tile needs.
 *
 * The runtime twin of the compiler's transforms/plan/bands.py: output rows of the
 * last stage are propagated backwards through the ops of a tiled stage or chain,
 * each op mapping its output rows to input rows (window ops by kernel, stride,
 * dilation and top padding; pad by its top pad; resize by its integer scale), and
 * a tensor read by several ops gets the union of their ranges.
 */
#ifndef TIGRIS_BANDS_H
#define TIGRIS_BANDS_H

#include "tigris.h"
#include "tigris_mem.h"

/* Rows of input tensor `in` that rows [start, end) of op's output read, as
 * bands.py's _input_range (clamped to the tensor; never empty). */
void tigris_band_input_range(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t in, int32_t start,
                             int32_t end, int32_t *lo, int32_t *hi);

/* Fill mem->tile.bands (slow pointers NULL) with the row range of every tensor that
 * stages first..last touch for output rows [h_start, h_end) of the last stage.
 * Indices must have been validated. Returns 0, or -1 if the band table is full. */
int tigris_bands_compute(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t first, uint16_t last,
                         int32_t h_start, int32_t h_end);

/* 0 for ops the compiler never tiles (structural and dense ops, concat along H):
 * a band of their output is not computable from bands of their inputs. */
int tigris_band_op_tileable(const tigris_plan_t *plan, const tigris_op_t *op);

/* The band of a tensor in mem->tile, or NULL. */
tigris_band_t *tigris_band_find(tigris_mem_t *mem, uint16_t tensor);

#endif /* TIGRIS_BANDS_H */
