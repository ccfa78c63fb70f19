/* kernel_view.c - how kernels see tensors: tigris_view_of and the tk_nd_t / tk_iter_t helpers
 * of kernels_internal.h (strides per storage layout, bands, ONNX broadcasting). */
#include <string.h>

#include "kernels_internal.h"

uint8_t tigris_k_layout(const tigris_plan_t *plan, uint16_t tensor_idx) {
    const tigris_tensor_t *t;
    if (tensor_idx >= plan->header->num_tensors) return TK_NO_LAYOUT;
    t = &plan->tensors[tensor_idx];
    if (t->weight == TIGRIS_NONE16 || plan->weight_entries == NULL || t->weight >= plan->header->num_weights)
        return TK_NO_LAYOUT;
    return plan->weight_entries[t->weight].layout;
}

/* Whether a tensor's bytes are channels-last: activations, and CHANNELS_LAST constants. */
static int stored_channels_last(const tigris_plan_t *plan, uint16_t tensor_idx) {
    uint8_t layout = tigris_k_layout(plan, tensor_idx);
    return layout == TK_NO_LAYOUT || layout == TIGRIS_LAYOUT_CHANNELS_LAST;
}

/* The recorded shape, NULL if it lies outside the shape pool. */
static const int32_t *recorded_shape(const tigris_plan_t *plan, const tigris_tensor_t *t) {
    if (t->ndim > TIGRIS_MAX_RANK || (size_t)t->shape + t->ndim > plan->shape_pool_len) return NULL;
    return tigris_tensor_shape(plan, t);
}

/* The product of dims [first, last) of s, or -1 beyond int32 (a view's n, h, w, c are int32). */
static int32_t dims_product(const int32_t *s, int32_t first, int32_t last) {
    int64_t p = 1;
    int32_t i;
    for (i = first; i < last; ++i) {
        p *= s[i];
        if (p > INT32_MAX) return -1;
    }
    return (int32_t)p;
}

int tigris_view_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tigris_view_t *out) {
    int err = tigris_view_of_window(plan, mem, tensor_idx, out);
    if (err == TIGRIS_KERNEL_OK && (out->w_start != 0 || out->w_end != out->w)) return TIGRIS_KERNEL_ERR_BAND;
    return err;
}

int tigris_view_of_window(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx,
                          tigris_view_t *out) {
    const tigris_tensor_t *t;
    const int32_t *s;
    const void *data = NULL;
    int32_t nd, i, h_start, h_end;
    int channels_last;

    if (out == NULL) return TIGRIS_KERNEL_ERR_PARAMS;
    memset(out, 0, sizeof(*out));
    if (plan == NULL || tensor_idx >= plan->header->num_tensors) return TIGRIS_KERNEL_ERR_PARAMS;
    t = &plan->tensors[tensor_idx];
    s = recorded_shape(plan, t);
    if (s == NULL) return TIGRIS_KERNEL_ERR_SHAPE;
    for (i = 0; i < t->ndim; ++i)
        if (s[i] < 1) return TIGRIS_KERNEL_ERR_SHAPE;
    out->elem = tigris_dtype_size(t->dtype);
    out->dtype = t->dtype;
    if (out->elem == 0) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (t->weight != TIGRIS_NONE16) data = tigris_tensor_weight(plan, tensor_idx);
    if (data == NULL && mem != NULL && tensor_idx < mem->num_tensors && mem->tensor_ptrs != NULL)
        data = mem->tensor_ptrs[tensor_idx];
    if (data == NULL) return TIGRIS_KERNEL_ERR_PARAMS;
    out->data = (uint8_t *)(uintptr_t)data; /* kernels write only to their outputs */

    nd = t->ndim;
    channels_last = stored_channels_last(plan, tensor_idx);
    out->n = out->h = out->w = out->c = 1;
    if (nd <= 2) {
        if (nd >= 1) out->c = s[nd - 1];
        if (nd == 2) out->n = s[0];
    } else if (channels_last) { /* [N, C, d1, ..., dk] stored [N, d1, ..., dk, C] */
        out->n = s[0];
        out->c = s[1];
        out->h = s[2];
        out->w = dims_product(s, 3, nd);
    } else { /* a weight layout: row-major [..., h, w, c] */
        out->c = s[nd - 1];
        out->w = s[nd - 2];
        out->h = s[nd - 3];
        out->n = dims_product(s, 0, nd - 3);
    }
    if (out->n < 0 || out->w < 0) return TIGRIS_KERNEL_ERR_RANGE;
    h_start = 0;
    h_end = out->h;
    if (t->weight == TIGRIS_NONE16 && mem != NULL && nd >= 3) {
        tigris_mem_rows(mem, plan, tensor_idx, &h_start, &h_end);
        if (h_start < 0 || h_end > out->h || h_start > h_end) return TIGRIS_KERNEL_ERR_BAND;
    }
    out->h_start = h_start;
    out->h_end = h_end;
    out->w_start = 0;
    out->w_end = out->w;
    if (t->weight == TIGRIS_NONE16 && mem != NULL && nd >= 3) {
        int32_t w_start, w_end;
        tigris_mem_cols(mem, plan, tensor_idx, &w_start, &w_end);
        if (w_start < 0 || w_end > out->w || w_start >= w_end) return TIGRIS_KERNEL_ERR_BAND;
        out->w_start = w_start;
        out->w_end = w_end;
    }
    return TIGRIS_KERNEL_OK;
}

/* The tk_nd_t of a tensor whose view is v: its recorded shape, with a channels-last tensor's
 * strides over the resident rows (and, rank 4, columns) of v. A window of columns of a tensor
 * of another rank (the view's w then spans several axes) is TIGRIS_KERNEL_ERR_BAND. */
static int nd_from_view(const tigris_plan_t *plan, uint16_t tensor_idx, const tigris_view_t *v, tk_nd_t *out) {
    const int32_t *s = tigris_tensor_shape(plan, &plan->tensors[tensor_idx]); /* the view checked it */
    int32_t r = plan->tensors[tensor_idx].ndim, a;

    if (dims_product(s, 0, r) < 0) return TIGRIS_KERNEL_ERR_RANGE; /* the strides below are int32 */
    out->data = v->data;
    out->elem = v->elem;
    out->dtype = v->dtype;
    out->tensor = tensor_idx;
    out->rank = r;
    for (a = 0; a < r; ++a) out->dims[a] = s[a];
    out->row_axis = out->col_axis = -1;
    out->h_start = out->w_start = 0;
    out->h_end = r >= 3 ? s[2] : 1;
    out->w_end = r >= 4 ? s[3] : 1;
    if (r >= 3 && stored_channels_last(plan, tensor_idx)) {
        int32_t rows = v->h_end - v->h_start, cols = v->w_end - v->w_start;
        out->channels_last = 1;
        out->row_axis = 2;
        out->h_start = v->h_start;
        out->h_end = v->h_end;
        if (r == 4) {
            out->col_axis = 3;
            out->w_start = v->w_start;
            out->w_end = v->w_end;
        } else if (cols != v->w) {
            return TIGRIS_KERNEL_ERR_BAND;
        }
        out->strides[1] = 1;
        out->strides[r - 1] = s[1];
        for (a = r - 2; a >= 2; --a) /* the resident columns, not W, are an H row apart */
            out->strides[a] = out->strides[a + 1] * (a + 1 == out->col_axis ? cols : s[a + 1]);
        out->strides[0] = out->strides[2] * rows;
    } else if (r > 0) {
        out->strides[r - 1] = 1;
        for (a = r - 2; a >= 0; --a) out->strides[a] = out->strides[a + 1] * s[a + 1];
    }
    return TIGRIS_KERNEL_OK;
}

int tigris_k_nd_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tk_nd_t *out) {
    tigris_view_t v;
    int err;
    memset(out, 0, sizeof(*out));
    err = tigris_view_of(plan, mem, tensor_idx, &v);
    return err != TIGRIS_KERNEL_OK ? err : nd_from_view(plan, tensor_idx, &v, out);
}

int tigris_k_nd_of_window(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t tensor_idx, tk_nd_t *out) {
    tigris_view_t v;
    int err;
    memset(out, 0, sizeof(*out));
    err = tigris_view_of_window(plan, mem, tensor_idx, &v);
    return err != TIGRIS_KERNEL_OK ? err : nd_from_view(plan, tensor_idx, &v, out);
}

/* The runtime axis of model axis `a` (-1 stays -1) for rank r >= 3: [0, 2, ..., r-1, 1]. */
static int32_t runtime_axis(int32_t a, int32_t r) {
    if (a == 1) return r - 1;
    return a >= 2 ? a - 1 : a;
}

void tigris_k_nd_to_runtime(tk_nd_t *nd) {
    int32_t dims[TK_MAX_RANK], strides[TK_MAX_RANK];
    int32_t r = nd->rank, a;
    if (r < 3) return;
    for (a = 0; a < r; ++a) {
        int32_t m = tigris_k_model_axis(a, r);
        dims[a] = nd->dims[m];
        strides[a] = nd->strides[m];
    }
    memcpy(nd->dims, dims, sizeof(dims));
    memcpy(nd->strides, strides, sizeof(strides));
    nd->row_axis = runtime_axis(nd->row_axis, r);
    nd->col_axis = runtime_axis(nd->col_axis, r);
}

int32_t tigris_k_model_axis(int32_t axis, int32_t rank) {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return -1;
    if (rank < 3 || axis == 0) return axis;
    return axis == rank - 1 ? 1 : axis + 1;
}

void tigris_k_storage_order(const tk_nd_t *t, int32_t *order) {
    int32_t a, r = t->rank;
    if (t->channels_last && r >= 3) {
        order[0] = 0;
        for (a = 2; a < r; ++a) order[a - 1] = a;
        order[r - 1] = 1;
    } else {
        for (a = 0; a < r; ++a) order[a] = a;
    }
}

int tigris_k_accumulator(const tigris_mem_t *mem, uint64_t need, const tigris_view_t *x, const tigris_view_t *y,
                         void **acc) {
    *acc = NULL;
    if (x->h_start < 0 || x->h_start >= x->h_end || x->h_end > x->h || y->h_start != 0 || y->h_end != y->h)
        return TIGRIS_KERNEL_ERR_BAND;
    if (mem->tile.acc == NULL || (uintptr_t)mem->tile.acc % sizeof(int32_t) != 0 || need > mem->tile.acc_bytes)
        return TIGRIS_KERNEL_ERR_PARAMS;
    *acc = mem->tile.acc;
    return TIGRIS_KERNEL_OK;
}

int tigris_k_check_rows(const tk_nd_t *t, int32_t axis, int32_t lo, int32_t hi) {
    if (lo >= hi) return TIGRIS_KERNEL_OK;
    if (axis == t->row_axis && (lo < t->h_start || hi > t->h_end)) return TIGRIS_KERNEL_ERR_BAND;
    if (axis == t->col_axis && (lo < t->w_start || hi > t->w_end)) return TIGRIS_KERNEL_ERR_BAND;
    return TIGRIS_KERNEL_OK;
}

int tigris_k_require_full(const tk_nd_t *t) {
    int err = t->row_axis < 0 ? TIGRIS_KERNEL_OK : tigris_k_check_rows(t, t->row_axis, 0, t->dims[t->row_axis]);
    if (err == TIGRIS_KERNEL_OK && t->col_axis >= 0) err = tigris_k_check_rows(t, t->col_axis, 0, t->dims[t->col_axis]);
    return err;
}

/* Offset of index 0 of every axis relative to the first resident element: a walk's origin. */
static ptrdiff_t resident_origin(const tk_nd_t *t) {
    ptrdiff_t origin = 0;
    if (t->row_axis >= 0) origin -= (ptrdiff_t)t->h_start * t->strides[t->row_axis];
    if (t->col_axis >= 0) origin -= (ptrdiff_t)t->w_start * t->strides[t->col_axis];
    return origin;
}

void tigris_k_iter_output(tk_iter_t *it, const tk_nd_t *out, const int32_t *order) {
    int32_t j;
    memset(it, 0, sizeof(*it));
    it->num_operands = 1;
    if (out->rank == 0) { /* a scalar: one position */
        it->rank = 1;
        it->hi[0] = 1;
        return;
    }
    it->rank = out->rank;
    for (j = 0; j < out->rank; ++j) {
        int32_t a = order != NULL ? order[j] : j;
        it->lo[j] = a == out->row_axis ? out->h_start : a == out->col_axis ? out->w_start : 0;
        it->hi[j] = a == out->row_axis ? out->h_end : a == out->col_axis ? out->w_end : out->dims[a];
        it->stride[0][j] = out->strides[a];
    }
    it->origin[0] = resident_origin(out);
}

int tigris_k_iter_broadcast(tk_iter_t *it, const tk_nd_t *out, const int32_t *order, const tk_nd_t *in) {
    ptrdiff_t strides[TK_MAX_RANK];
    int32_t j, big = out->rank, small = in->rank;
    int err;

    if (it->num_operands >= TK_MAX_OPERANDS || small > big) return TIGRIS_KERNEL_ERR_SHAPE;
    memset(strides, 0, sizeof(strides));
    for (j = 0; j < big; ++j) {
        int32_t a = order != NULL ? order[j] : j;
        int32_t b = a - (big - small);
        if (b < 0) continue;
        if (in->dims[b] == 1) {
            err = tigris_k_check_rows(in, b, 0, 1);
        } else if (in->dims[b] != out->dims[a]) {
            return TIGRIS_KERNEL_ERR_SHAPE;
        } else {
            strides[j] = in->strides[b];
            err = tigris_k_check_rows(in, b, it->lo[j], it->hi[j]);
        }
        if (err != TIGRIS_KERNEL_OK) return err;
    }
    tigris_k_iter_add(it, strides, resident_origin(in));
    return TIGRIS_KERNEL_OK;
}

void tigris_k_iter_add(tk_iter_t *it, const ptrdiff_t *strides, ptrdiff_t origin) {
    int32_t j, k = it->num_operands;
    if (k >= TK_MAX_OPERANDS) return;
    for (j = 0; j < it->rank; ++j) it->stride[k][j] = strides[j];
    it->origin[k] = origin;
    it->num_operands = k + 1;
}
