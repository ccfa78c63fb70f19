/* kernels_f32_dense.c - float32 fully_conn and matmul.
 *
 * fully_conn: y[n, m] = sum_k x[n, k] w[m, k] + b[m] with W [M, K] (NK_HWC, whose columns
 * already follow the runtime's (h, w, c) flattening, or PLAIN); the operands are whole, but in
 * blocks of output features the kernel computes features [c0, c1) only, into rows of c1 - c0
 * values (tk_feature_block), and in reduction blocks it takes K features [k0, k1) of x at a time
 * (rows of k1 - k0 values), carrying each sum in the accumulator: the same additions in the same
 * order as the untiled loop, so the same bits; the bias and activation come after the last block.
 * matmul: numpy.matmul in model order over tk_nd_t strides, so an activation operand of
 * rank >= 3 (stored channels-last) and a PLAIN constant read the same; batch axes broadcast.
 */
#include "kernels_f32.h"

int tigris_f32_fully_conn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx) {
    tigris_view_t x, w, y, b;
    const float *xd, *wd, *bias = NULL;
    float *yd;
    int32_t rows, k, m, n, j, i, c0, c1, k0, k1;
    float *sums;
    void *state;
    uint16_t tx = tk_input(plan, op, 0), tw = tk_input(plan, op, 1), ty = tk_output(plan, op, 0);
    uint8_t layout;
    int err;
    (void)user_ctx;

    if (tx == TIGRIS_NONE16 || tw == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_view(plan, mem, tx, &x);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_view(plan, mem, tw, &w);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_view(plan, mem, ty, &y);
    if (err != TIGRIS_KERNEL_OK) return err;
    layout = tigris_k_layout(plan, tw);
    if ((layout != TIGRIS_LAYOUT_NK_HWC && layout != TIGRIS_LAYOUT_PLAIN) || plan->tensors[tw].ndim != 2 ||
        plan->tensors[tx].ndim > 2 || plan->tensors[ty].ndim > 2)
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    rows = x.n;
    k = x.c;
    m = w.n;
    if (w.c != k || y.n != rows || y.c != m) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tk_feature_block(mem, op_index, m, &c0, &c1)) != TIGRIS_KERNEL_OK) return err;
    err = tk_dense_blocks(plan, mem, op_index, tx, k, (uint64_t)rows * (uint64_t)(c1 - c0), &k0, &k1, &state);
    if (err != TIGRIS_KERNEL_OK) return err;
    sums = (float *)state;
    if (op->num_inputs >= 3) {
        uint16_t tb = tk_input(plan, op, 2);
        if (tb == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
        err = tk_f32_view(plan, mem, tb, &b);
        if (err != TIGRIS_KERNEL_OK) return err;
        if ((size_t)b.n * (size_t)b.h * (size_t)b.w * (size_t)b.c != (size_t)m) return TIGRIS_KERNEL_ERR_SHAPE;
        bias = (const float *)(const void *)b.data;
    }
    xd = (const float *)(const void *)x.data;
    wd = (const float *)(const void *)w.data;
    yd = (float *)(void *)y.data;
    for (n = 0; n < rows; ++n) {
        const float *xr = xd + (size_t)n * (size_t)(k1 - k0); /* x[n, k0 + i] for i in [0, k1 - k0) */
        for (j = c0; j < c1; ++j) {
            const float *wr = wd + (size_t)j * (size_t)k + (size_t)k0;
            float *sum = sums != NULL ? sums + (size_t)n * (size_t)(c1 - c0) + (size_t)(j - c0) : NULL;
            float acc = sum != NULL && k0 > 0 ? *sum : 0.0f;
            for (i = 0; i < k1 - k0; ++i) acc += xr[i] * wr[i];
            if (k1 < k) { /* an earlier reduction block: keep the partial sum */
                *sum = acc;
                continue;
            }
            if (bias != NULL) acc += bias[j];
            yd[(size_t)n * (size_t)(c1 - c0) + (size_t)(j - c0)] = tk_activate(acc, op->activation);
        }
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_f32_matmul(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                      void *user_ctx) {
    tk_nd_t a, b, y;
    tk_iter_t it;
    ptrdiff_t sa[TK_MAX_RANK], sb[TK_MAX_RANK];
    int32_t batch, j, rows, cols, inner;
    uint16_t ta = tk_input(plan, op, 0), tb = tk_input(plan, op, 1), ty = tk_output(plan, op, 0);
    int err;
    (void)op_index;
    (void)user_ctx;

    if (ta == TIGRIS_NONE16 || tb == TIGRIS_NONE16 || ty == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = tk_f32_nd(plan, mem, ta, &a);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_nd(plan, mem, tb, &b);
    if (err == TIGRIS_KERNEL_OK) err = tk_f32_nd(plan, mem, ty, &y);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(&a);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(&b);
    if (err == TIGRIS_KERNEL_OK) err = tigris_k_require_full(&y);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (a.rank < 2 || b.rank < 2 || y.rank < 2 || a.rank > y.rank || b.rank > y.rank) return TIGRIS_KERNEL_ERR_SHAPE;
    rows = a.dims[a.rank - 2];
    inner = a.dims[a.rank - 1];
    cols = b.dims[b.rank - 1];
    if (b.dims[b.rank - 2] != inner || y.dims[y.rank - 2] != rows || y.dims[y.rank - 1] != cols)
        return TIGRIS_KERNEL_ERR_SHAPE;

    /* Walk the batch axes of y and the row axis; the inner loop runs over the columns. */
    tigris_k_iter_output(&it, &y, NULL);
    batch = y.rank - 2;
    for (j = 0; j < y.rank; ++j) sa[j] = sb[j] = 0;
    for (j = 0; j < batch; ++j) {
        int32_t ja = j - (y.rank - a.rank), jb = j - (y.rank - b.rank);
        if (ja >= 0 && a.dims[ja] != 1) {
            if (a.dims[ja] != y.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
            sa[j] = a.strides[ja];
        }
        if (jb >= 0 && b.dims[jb] != 1) {
            if (b.dims[jb] != y.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
            sb[j] = b.strides[jb];
        }
    }
    sa[batch] = a.strides[a.rank - 2]; /* row of a */
    sb[batch + 1] = b.strides[b.rank - 1]; /* column of b */
    tigris_k_iter_add(&it, sa, 0);
    tigris_k_iter_add(&it, sb, 0);
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const float *ap = (const float *)(const void *)a.data + it.off[1];
        const ptrdiff_t ak = a.strides[a.rank - 1], bk = b.strides[b.rank - 2];
        float *yp = (float *)(void *)y.data + it.off[0];
        int32_t col, i;
        for (col = 0; col < cols; ++col) {
            const float *bp = (const float *)(const void *)b.data + it.off[2] + (ptrdiff_t)col * sb[batch + 1];
            float acc = 0.0f;
            for (i = 0; i < inner; ++i) acc += ap[(ptrdiff_t)i * ak] * bp[(ptrdiff_t)i * bk];
            yp[(ptrdiff_t)col * it.stride[0][batch + 1]] = acc;
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}
