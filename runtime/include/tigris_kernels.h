/* tigris_kernels.h - reference kernels (float32 and int8, channels-last).
 *
 * tigris_ref_kernel is a tigris_kernel_fn: pass it to tigris_run, or call it from
 * your own callback for the ops you do not implement yourself. int8 kernels compute
 * onnxruntime's QDQ meaning (docs/int8.md): exact int32 accumulation, then float32
 * requantization, so they need an FPU (or soft-float) for binary32.
 */
#ifndef TIGRIS_KERNELS_H
#define TIGRIS_KERNELS_H

#include "tigris.h"
#include "tigris_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_KERNEL_OK = 0,
    TIGRIS_KERNEL_ERR_UNSUPPORTED = -1, /* op type or dtype combination not implemented */
    TIGRIS_KERNEL_ERR_SHAPE = -2,       /* operand shapes inconsistent with the op */
    TIGRIS_KERNEL_ERR_BAND = -3,        /* a row the op needs is not resident in its band */
    TIGRIS_KERNEL_ERR_PARAMS = -4,      /* missing table, scales, weights, or parameters out of range */
    TIGRIS_KERNEL_ERR_RANGE = -5        /* a size or parameter beyond the kernel's integer range */
} tigris_kernel_error_t;

/* A tensor as a kernel sees it: channels-last [n, h, w, c] (rank 3 [N, C, L]: h = L,
 * w = 1; rank <= 2: h = w = 1, c = the last dim, n = the product of the others),
 * with rows [h_start, h_end) and columns [w_start, w_end) resident at data, stored
 * [n][h_end - h_start][w_end - w_start][c]. n, h, w and c are the full extents. */
typedef struct {
    uint8_t *data;
    int32_t n, h, w, c;
    int32_t h_start, h_end;
    uint32_t elem;   /* bytes per element */
    uint8_t dtype;   /* tigris_dtype_t */
    int32_t w_start, w_end; /* resident columns: [0, w) except in a 2-D tile (tigris_view_of_window) */
} tigris_view_t;

/* Fill a view of tensor_idx from mem (constants: their weight pointer). Returns
 * TIGRIS_KERNEL_OK, TIGRIS_KERNEL_ERR_PARAMS if the tensor has no data, or
 * TIGRIS_KERNEL_ERR_BAND if only some of its columns are resident (a 2-D tile): a kernel
 * that walks whole rows can never misread a window. */
int tigris_view_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tigris_view_t *out);

/* tigris_view_of for kernels that handle 2-D tiles: a window of columns is accepted. */
int tigris_view_of_window(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                          tigris_view_t *out);

/* Address of element (n, row, w_start, 0) of a view (the row's first resident column;
 * (n, row, 0, 0) outside 2-D tiles), or NULL if the row is not resident. */
static inline uint8_t *tigris_view_row(const tigris_view_t *v, int32_t n, int32_t row) {
    if (row < v->h_start || row >= v->h_end) return NULL;
    return v->data + (((size_t)n * (size_t)(v->h_end - v->h_start) + (size_t)(row - v->h_start)) *
                      (size_t)(v->w_end - v->w_start) * (size_t)v->c) * v->elem;
}

/* Address of element (n, row, col, 0), or NULL if that pixel is not resident. */
static inline uint8_t *tigris_view_px(const tigris_view_t *v, int32_t n, int32_t row, int32_t col) {
    uint8_t *r = tigris_view_row(v, n, row);
    if (r == NULL || col < v->w_start || col >= v->w_end) return NULL;
    return r + (size_t)(col - v->w_start) * (size_t)v->c * v->elem;
}

/* The reference dispatcher (a tigris_kernel_fn). */
int tigris_ref_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx);

const char *tigris_kernel_error_str(int err);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_KERNELS_H */
