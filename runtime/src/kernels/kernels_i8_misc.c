/* kernels_i8_misc.c - the int8 kernel table, shared checks, and the ops that move stored values
 * (concat, pad, resize, reshape-like copies, transpose), each value requantized,
 * quantize(dequantize(v)), when its input's quantization differs from the result's
 * (tgr_int8.py `_moved`); and reduce_mean. */
#include <string.h>

#include "i8_math.h"
#include "kernels_i8.h"

tigris_kernel_fn tigris_i8_kernel_for(uint8_t op_type) {
    switch (op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_CONV1D: return tigris_i8_conv;
    case TIGRIS_OP_CONV_TRANSPOSE: return tigris_i8_conv_transpose;
    case TIGRIS_OP_FULLY_CONN: return tigris_i8_fully_conn;
    case TIGRIS_OP_MATMUL: return tigris_i8_matmul;
    case TIGRIS_OP_MAX_POOL:
    case TIGRIS_OP_AVG_POOL: return tigris_i8_pool;
    case TIGRIS_OP_GLOBAL_AVG:
    case TIGRIS_OP_GLOBAL_MAX: return tigris_i8_global_pool;
    case TIGRIS_OP_REDUCE_MEAN: return tigris_i8_reduce_mean;
    case TIGRIS_OP_ADD:
    case TIGRIS_OP_SUB:
    case TIGRIS_OP_MUL:
    case TIGRIS_OP_DIV:
    case TIGRIS_OP_MAX:
    case TIGRIS_OP_MIN:
    case TIGRIS_OP_PRELU: return tigris_i8_binary;
    case TIGRIS_OP_SOFTMAX: return tigris_i8_softmax;
    case TIGRIS_OP_RELU:
    case TIGRIS_OP_RELU6:
    case TIGRIS_OP_CLIP:
    case TIGRIS_OP_LEAKY_RELU:
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH:
    TK_CASES_UNARY_MATH: return tigris_i8_table;
    case TIGRIS_OP_QUANTIZE: return tigris_i8_quantize;
    case TIGRIS_OP_DEQUANTIZE: return tigris_i8_dequantize;
    case TIGRIS_OP_CONCAT: return tigris_i8_concat;
    case TIGRIS_OP_PAD: return tigris_i8_pad;
    case TIGRIS_OP_RESIZE: return tigris_i8_resize;
    case TIGRIS_OP_RESHAPE:
    case TIGRIS_OP_FLATTEN:
    case TIGRIS_OP_SQUEEZE:
    case TIGRIS_OP_UNSQUEEZE: return tigris_i8_copy;
    case TIGRIS_OP_TRANSPOSE: return tigris_i8_transpose;
    case TIGRIS_OP_SLICE: return tigris_i8_slice;
    case TIGRIS_OP_GATHER: return tigris_i8_gather;
    case TIGRIS_OP_TILE: return tigris_i8_tile;
    default: return NULL; /* BATCH_NORM, INST_NORM: the compiler runs them in float */
    }
}

/* -- shared checks ----------------------------------------------------------------------------- */

int tigris_i8_storage(uint8_t dtype, tigris_i8_storage_t *out) {
    if (dtype == TIGRIS_DTYPE_I8) {
        out->flip = 0x80u;
        out->bias = 128;
        out->qmin = -128;
        out->qmax = 127;
        return TIGRIS_KERNEL_OK;
    }
    if (dtype == TIGRIS_DTYPE_U8) {
        out->flip = 0;
        out->bias = 0;
        out->qmin = 0;
        out->qmax = 255;
        return TIGRIS_KERNEL_OK;
    }
    return TIGRIS_KERNEL_ERR_UNSUPPORTED;
}

int tigris_i8_scales(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t count, tigris_i8_scales_t *out) {
    uint32_t i;
    out->bits = NULL;
    out->count = op->num_scales;
    if (op->num_scales != count) return TIGRIS_KERNEL_ERR_PARAMS;
    if (count == 0) return TIGRIS_KERNEL_OK;
    if (plan->quant_data == NULL || (uint64_t)op->scales + (uint64_t)count > plan->quant_data_len)
        return TIGRIS_KERNEL_ERR_PARAMS;
    out->bits = tigris_op_scale_bits(plan, op);
    for (i = 0; i < count; ++i)
        if (!tigris_i8_scale_ok(tigris_i8_f32(out->bits[i]))) return TIGRIS_KERNEL_ERR_PARAMS;
    return TIGRIS_KERNEL_OK;
}

int tigris_i8_check_zp(const tigris_i8_storage_t *s, int32_t zero_point) {
    return (zero_point < s->qmin || zero_point > s->qmax) ? TIGRIS_KERNEL_ERR_PARAMS : TIGRIS_KERNEL_OK;
}

int tigris_i8_act_range(const tigris_op_t *op, const tigris_i8_storage_t *out, int32_t *lo, int32_t *hi) {
    *lo = op->act_min;
    *hi = op->act_max;
    if (*lo > *hi || *lo < out->qmin || *hi > out->qmax) return TIGRIS_KERNEL_ERR_PARAMS;
    return TIGRIS_KERNEL_OK;
}

static const tigris_quant_param_t *quant_of(const tigris_plan_t *plan, uint16_t tensor_idx) {
    const tigris_tensor_t *t = &plan->tensors[tensor_idx];
    if (t->quant == TIGRIS_NONE16 || plan->quant_params == NULL || t->quant >= plan->num_quant_params) return NULL;
    return &plan->quant_params[t->quant];
}

int tigris_i8_tensor_q(const tigris_plan_t *plan, uint16_t tensor_idx, tigris_i8_q_t *out) {
    const tigris_quant_param_t *q;
    int err;
    if (tensor_idx >= plan->header->num_tensors) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_i8_storage(plan->tensors[tensor_idx].dtype, &out->s)) != TIGRIS_KERNEL_OK) return err;
    q = quant_of(plan, tensor_idx);
    if (q == NULL || q->axis >= 0 || !tigris_i8_scale_ok(q->scale)) return TIGRIS_KERNEL_ERR_PARAMS;
    out->scale = q->scale;
    out->zp = q->zero_point;
    return tigris_i8_check_zp(&out->s, out->zp);
}

int tigris_i8_move_setup(const tigris_plan_t *plan, uint16_t in, uint16_t out, tigris_i8_move_t *mv) {
    int err;
    memset(mv, 0, sizeof(*mv));
    if ((err = tigris_i8_tensor_q(plan, in, &mv->in)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, out, &mv->out)) != TIGRIS_KERNEL_OK) return err;
    mv->requant = mv->in.s.flip != mv->out.s.flip || mv->in.zp != mv->out.zp ||
                  memcmp(&mv->in.scale, &mv->out.scale, sizeof mv->in.scale) != 0;
    return TIGRIS_KERNEL_OK;
}

int tigris_i8_channel_zps(const tigris_plan_t *plan, uint16_t tensor_idx, int32_t axis, int32_t channels,
                          const int32_t **per_channel, int32_t *scalar) {
    const tigris_quant_param_t *q;
    *per_channel = NULL;
    *scalar = 0;
    if (tensor_idx >= plan->header->num_tensors) return TIGRIS_KERNEL_ERR_PARAMS;
    q = quant_of(plan, tensor_idx);
    if (q == NULL) return TIGRIS_KERNEL_OK;
    if (q->axis < 0) {
        *scalar = q->zero_point;
        return TIGRIS_KERNEL_OK;
    }
    if (q->axis != axis || (int32_t)q->num_channels != channels || q->data == TIGRIS_NONE32 ||
        plan->quant_data == NULL || (uint64_t)q->data + 2u * (uint64_t)q->num_channels > plan->quant_data_len)
        return TIGRIS_KERNEL_ERR_PARAMS;
    *per_channel = plan->quant_data + q->data + q->num_channels;
    return TIGRIS_KERNEL_OK;
}

/* -- moving stored values ------------------------------------------------------------------- */

/* `count` values from src (stride ss) to dst (stride ds); memmove when nothing changes. */
static void move_run(const tigris_i8_move_t *mv, uint8_t *dst, ptrdiff_t ds, const uint8_t *src, ptrdiff_t ss,
                     int32_t count) {
    int32_t i;
    if (!mv->requant && ds == 1 && ss == 1) {
        memmove(dst, src, (size_t)count);
        return;
    }
    for (i = 0; i < count; ++i) dst[(ptrdiff_t)i * ds] = tigris_i8_move_byte(mv, src[(ptrdiff_t)i * ss]);
}

/* An 8-bit operand as a tk_nd_t in runtime (channels-last) axis order; `window`: a 2-D tile's
 * window of columns is accepted (only a kernel that computes exactly its output's window asks). */
static int nd_runtime_of(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, int window, tk_nd_t *nd) {
    int err;
    if (t == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    err = window ? tigris_k_nd_of_window(plan, mem, t, nd) : tigris_k_nd_of(plan, mem, t, nd);
    if (err != TIGRIS_KERNEL_OK) return err;
    if (nd->elem != 1) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    tigris_k_nd_to_runtime(nd);
    return TIGRIS_KERNEL_OK;
}

/* An 8-bit operand as a tk_nd_t in runtime axis order, held in whole rows. */
static int nd_runtime(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t t, tk_nd_t *nd) {
    return nd_runtime_of(plan, mem, t, 0, nd);
}

/* Walk `out` (runtime order) and move operand 1 of the walk into it. */
static void move_walk(const tigris_i8_move_t *mv, tk_iter_t *it, uint8_t *out, const uint8_t *in) {
    const int32_t last = it->rank - 1;
    if (!tk_iter_start(it)) return;
    do {
        move_run(mv, out + it->off[0], it->stride[0][last], in + it->off[1], it->stride[1][last], tk_iter_inner(it));
    } while (tk_iter_next(it));
}

/* An operand whose axis a of the walk reads its axis b (or nothing when b < 0): its strides and
 * origin, the band checked along the rows the walk visits. */
static int walk_operand(tk_iter_t *it, const tk_nd_t *in, const int32_t *axis_of) {
    ptrdiff_t strides[TK_MAX_RANK];
    ptrdiff_t origin = 0;
    int32_t j;
    int err;
    memset(strides, 0, sizeof(strides));
    for (j = 0; j < it->rank; ++j) {
        int32_t b = axis_of[j];
        if (b < 0) continue;
        strides[j] = in->strides[b];
        if ((err = tigris_k_check_rows(in, b, it->lo[j], it->hi[j])) != TIGRIS_KERNEL_OK) return err;
    }
    if (in->row_axis >= 0) origin -= (ptrdiff_t)in->h_start * in->strides[in->row_axis];
    tigris_k_iter_add(it, strides, origin);
    return TIGRIS_KERNEL_OK;
}

/* Input i of a concat along `axis` (runtime order, a window accepted), checked against the
 * result out: the same rank and dims off the axis, not beyond the result along it from
 * `offset`, whole rows if the axis is spatial (tk_spatial_axis); and how its values move. */
static int concat_input(const tigris_plan_t *plan, const tigris_mem_t *mem, const tigris_op_t *op, uint32_t i,
                        const tk_nd_t *out, int32_t axis, int32_t offset, tk_nd_t *in, tigris_i8_move_t *mv) {
    uint16_t t = tk_input(plan, op, i);
    int32_t j;
    int err;
    if ((err = nd_runtime_of(plan, mem, t, 1, in)) != TIGRIS_KERNEL_OK) return err;
    if (in->rank != out->rank) return TIGRIS_KERNEL_ERR_SHAPE;
    for (j = 0; j < out->rank; ++j)
        if (j != axis && in->dims[j] != out->dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
    if (in->dims[axis] > out->dims[axis] - offset) return TIGRIS_KERNEL_ERR_SHAPE;
    if (tk_spatial_axis(axis, out->rank) && tk_col_window(in)) return TIGRIS_KERNEL_ERR_BAND;
    return tigris_i8_move_setup(plan, t, out->tensor, mv);
}

/* CONCAT: each input into its part of the result along `axis` (runtime order), requantized
 * if its quantization differs, only where the result is resident: its band of rows, and in a
 * 2-D tile its window of columns (a channel or batch concat; along a spatial axis a window is
 * TIGRIS_KERNEL_ERR_BAND). */
int tigris_i8_concat(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t out, in, part;
    tk_iter_t it;
    tigris_i8_move_t mv;
    int32_t axis, offset;
    uint32_t i;
    int pass, err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd_runtime_of(plan, mem, tk_output(plan, op, 0), 1, &out)) != TIGRIS_KERNEL_OK) return err;
    if (out.rank < 1) return TIGRIS_KERNEL_ERR_SHAPE;
    axis = op->axis < 0 ? op->axis + out.rank : op->axis;
    if (axis < 0 || axis >= out.rank) return TIGRIS_KERNEL_ERR_PARAMS;
    if (tk_spatial_axis(axis, out.rank) && tk_col_window(&out)) return TIGRIS_KERNEL_ERR_BAND;
    /* pass 0 checks every input (shapes, parameters, what it holds), pass 1 writes */
    for (pass = 0; pass < 2; ++pass) {
        offset = 0;
        for (i = 0; i < op->num_inputs; ++i) {
            if ((err = concat_input(plan, mem, op, i, &out, axis, offset, &in, &mv)) != TIGRIS_KERNEL_OK) return err;
            if (tk_concat_part(&out, axis, offset, in.dims[axis], &part)) {
                tigris_k_iter_output(&it, &part, NULL);
                if ((err = tigris_k_iter_broadcast(&it, &part, NULL, &in)) != TIGRIS_KERNEL_OK) return err;
                if (pass == 1) move_walk(&mv, &it, part.data, in.data);
            }
            offset += in.dims[axis];
        }
        if (offset != out.dims[axis]) return TIGRIS_KERNEL_ERR_SHAPE;
    }
    return TIGRIS_KERNEL_OK;
}

/* TRANSPOSE: result axis j (runtime order) is input axis perm[j]. */
int tigris_i8_transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                        void *user_ctx) {
    tk_nd_t out, in;
    tk_iter_t it;
    tigris_i8_move_t mv;
    int32_t axis_of[TK_MAX_RANK];
    const int32_t *perm = tk_params(plan, op);
    uint32_t seen = 0;
    int32_t j;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = nd_runtime(plan, mem, tk_output(plan, op, 0), &out)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd_runtime(plan, mem, tk_input(plan, op, 0), &in)) != TIGRIS_KERNEL_OK) return err;
    if (perm == NULL || in.rank != out.rank || out.rank < 1 || op->num_params != (uint32_t)out.rank)
        return TIGRIS_KERNEL_ERR_PARAMS;
    for (j = 0; j < out.rank; ++j) {
        if (perm[j] < 0 || perm[j] >= in.rank || (seen & (1u << perm[j]))) return TIGRIS_KERNEL_ERR_PARAMS;
        seen |= 1u << perm[j];
        if (in.dims[perm[j]] != out.dims[j]) return TIGRIS_KERNEL_ERR_SHAPE;
        axis_of[j] = perm[j];
    }
    if ((err = tigris_i8_move_setup(plan, in.tensor, out.tensor, &mv)) != TIGRIS_KERNEL_OK) return err;
    tigris_k_iter_output(&it, &out, NULL);
    if ((err = walk_operand(&it, &in, axis_of)) != TIGRIS_KERNEL_OK) return err;
    move_walk(&mv, &it, out.data, in.data);
    return TIGRIS_KERNEL_OK;
}

/* Element i of `in` in model order to element i of `out` in model order (both whole). */
static int move_model_order(const tigris_i8_move_t *mv, const tk_nd_t *out, const tk_nd_t *in) {
    tk_flat_t f;
    int err;
    if ((err = tigris_k_require_full(in)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(out)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_flat_start(&f, out, in)) return TIGRIS_KERNEL_OK;
    do {
        move_run(mv, out->data + f.off[0], f.stride[0], in->data + f.off[1], f.stride[1], f.count);
    } while (tk_flat_next(&f));
    return TIGRIS_KERNEL_OK;
}

/* RESHAPE, FLATTEN, SQUEEZE, UNSQUEEZE: element i of the input in model order is element i of
 * the result in model order, each at its stored position; with TIGRIS_OPF_STORED_ORDER (or when
 * both are stored in model order) that is the same bytes under the result's shape, which a band
 * may hold: result and input must then have the same rows (same batch, row count and row size). */
int tigris_i8_copy(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                   void *user_ctx) {
    tigris_view_t in, out;
    tk_nd_t in_nd, out_nd;
    tigris_i8_move_t mv;
    uint16_t ti = tk_input(plan, op, 0), to = tk_output(plan, op, 0);
    int32_t n;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (ti == TIGRIS_NONE16 || to == TIGRIS_NONE16) return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_view_of(plan, mem, ti, &in)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_view_of(plan, mem, to, &out)) != TIGRIS_KERNEL_OK) return err;
    if (in.elem != 1 || out.elem != 1) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (plan->tensors[ti].size != plan->tensors[to].size) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tigris_i8_move_setup(plan, ti, to, &mv)) != TIGRIS_KERNEL_OK) return err;
    if (!tk_reshape_copies_bytes(plan, op)) {
        if ((err = tigris_k_nd_of(plan, mem, ti, &in_nd)) != TIGRIS_KERNEL_OK) return err;
        if ((err = tigris_k_nd_of(plan, mem, to, &out_nd)) != TIGRIS_KERNEL_OK) return err;
        if (!tk_row_major(&in_nd) || !tk_row_major(&out_nd)) return move_model_order(&mv, &out_nd, &in_nd);
    }
    if (out.h_start == 0 && out.h_end == out.h) {
        if (in.h_start != 0 || in.h_end != in.h) return TIGRIS_KERNEL_ERR_BAND;
        move_run(&mv, out.data, 1, in.data, 1, (int32_t)plan->tensors[to].size);
        return TIGRIS_KERNEL_OK;
    }
    /* a band: the rows must be the same rows */
    if (in.n != out.n || in.h != out.h || (int64_t)in.w * in.c != (int64_t)out.w * out.c)
        return TIGRIS_KERNEL_ERR_BAND;
    if (out.h_start < in.h_start || out.h_end > in.h_end) return TIGRIS_KERNEL_ERR_BAND;
    if (out.h_start == out.h_end) return TIGRIS_KERNEL_OK;
    for (n = 0; n < out.n; ++n)
        move_run(&mv, tigris_view_row(&out, n, out.h_start), 1, tigris_view_row(&in, n, out.h_start), 1,
                 (out.h_end - out.h_start) * out.w * out.c);
    return TIGRIS_KERNEL_OK;
}

/* -- gathers: pad and resize ---------------------------------------------------------------- */

/* Where output index o of one axis reads: an input index, or -1 (the pad value). */
typedef struct {
    uint8_t kind;   /* GATHER_* */
    int32_t in_len; /* resize: input length; pad: the length kept after cropping */
    int32_t begin;  /* pad: output index of the first kept input element */
    int32_t first;  /* pad: input index of the first kept element */
    int32_t scale;  /* resize */
} i8_axis_map_t;

enum { GATHER_PAD_CONSTANT, GATHER_PAD_REFLECT, GATHER_PAD_EDGE, GATHER_REPEAT };

static int32_t map_index(const i8_axis_map_t *m, int32_t o) {
    int32_t i, period;
    if (m->kind == GATHER_REPEAT) return o / m->scale; /* o = q * scale + r reads q */
    i = o - m->begin; /* index into the kept input */
    if (i >= 0 && i < m->in_len) return m->first + i;
    if (m->kind == GATHER_PAD_CONSTANT) return -1;
    if (m->kind == GATHER_PAD_EDGE) return m->first + (i < 0 ? 0 : m->in_len - 1);
    /* numpy's reflect (ONNX's, repeated for pads wider than the input): period 2 (n - 1) */
    if (m->in_len == 1) return m->first;
    period = 2 * (m->in_len - 1);
    i %= period;
    if (i < 0) i += period;
    if (i >= m->in_len) i = period - i;
    return m->first + i;
}

/* out[o] = in[map(o)] per axis (runtime order), moved by mv; the pad byte (already at the
 * result's parameters) where any axis maps to -1. */
static int gather(const tk_nd_t *out, const tk_nd_t *in, const i8_axis_map_t *maps, const tigris_i8_move_t *mv,
                  uint8_t pad_byte, int write) {
    int32_t idx[TK_MAX_RANK], lo[TK_MAX_RANK], hi[TK_MAX_RANK];
    const int32_t r = out->rank, last = out->rank - 1;
    int32_t a, o;
    int err;
    for (a = 0; a < r; ++a) { /* the output's resident pixels: a band of rows, a window of columns */
        lo[a] = tk_resident_lo(out, a);
        hi[a] = tk_resident_hi(out, a);
        if (lo[a] >= hi[a]) return TIGRIS_KERNEL_OK;
        idx[a] = lo[a];
    }
    if (!write) { /* every in-image row and column the output's pixels read must be resident */
        for (a = 0; a < r; ++a) {
            if (a != in->row_axis && a != in->col_axis) continue;
            for (o = lo[a]; o < hi[a]; ++o) {
                int32_t src = map_index(&maps[a], o);
                if (src >= 0 && (err = tigris_k_check_rows(in, a, src, src + 1)) != TIGRIS_KERNEL_OK) return err;
            }
        }
        return TIGRIS_KERNEL_OK;
    }
    for (;;) {
        ptrdiff_t out_off = 0, in_off = 0;
        int outside = 0;
        for (a = 0; a < last; ++a) { /* resident offsets: the checks above hold every source */
            int32_t src = map_index(&maps[a], idx[a]);
            out_off += (ptrdiff_t)(idx[a] - lo[a]) * out->strides[a];
            if (src < 0) outside = 1;
            else in_off += (ptrdiff_t)(src - tk_resident_lo(in, a)) * in->strides[a];
        }
        out_off -= (ptrdiff_t)lo[last] * out->strides[last]; /* the last axis by full index */
        in_off -= (ptrdiff_t)tk_resident_lo(in, last) * in->strides[last];
        for (o = lo[last]; o < hi[last]; ++o) {
            int32_t src = outside ? -1 : map_index(&maps[last], o);
            out->data[out_off + (ptrdiff_t)o * out->strides[last]] =
                src < 0 ? pad_byte : tigris_i8_move_byte(mv, in->data[in_off + (ptrdiff_t)src * in->strides[last]]);
        }
        for (a = last - 1; a >= 0; --a) {
            if (++idx[a] < hi[a]) break;
            idx[a] = lo[a];
        }
        if (a < 0) return TIGRIS_KERNEL_OK;
    }
}

/* PAD: params [begin_0..begin_{r-1}, end_0..end_{r-1}] (runtime order, negative crops), mode
 * constant (pad_value_q, the stored value of the constant at the result's parameters), reflect or
 * edge; the input's values are moved to the result's parameters. */
int tigris_i8_pad(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                  void *user_ctx) {
    tk_nd_t out, in;
    tigris_i8_move_t mv;
    i8_axis_map_t maps[TK_MAX_RANK];
    const int32_t *pads = tk_params(plan, op);
    int32_t a;
    int err;
    (void)op_index;
    (void)user_ctx;
    /* windows accepted (a 2-D tile): gather walks the output's resident pixels, checking first
     * that the input holds every row and column they read */
    if ((err = nd_runtime_of(plan, mem, tk_output(plan, op, 0), 1, &out)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd_runtime_of(plan, mem, tk_input(plan, op, 0), 1, &in)) != TIGRIS_KERNEL_OK) return err;
    if (pads == NULL || in.rank != out.rank || out.rank < 1 || op->num_params != 2u * (uint32_t)out.rank)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if (op->mode > TIGRIS_PAD_EDGE) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if ((err = tigris_i8_move_setup(plan, in.tensor, out.tensor, &mv)) != TIGRIS_KERNEL_OK) return err;
    if (op->mode == TIGRIS_PAD_CONSTANT && (err = tigris_i8_check_zp(&mv.out.s, op->pad_value_q)) != TIGRIS_KERNEL_OK)
        return err;
    for (a = 0; a < out.rank; ++a) {
        int64_t b = pads[a], e = pads[out.rank + a];
        int64_t kept = (int64_t)in.dims[a] - (b < 0 ? -b : 0) - (e < 0 ? -e : 0);
        if (kept + (b > 0 ? b : 0) + (e > 0 ? e : 0) != out.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
        if (kept < 1 && (op->mode != TIGRIS_PAD_CONSTANT || kept < 0)) return TIGRIS_KERNEL_ERR_SHAPE;
        maps[a].kind = op->mode == TIGRIS_PAD_CONSTANT  ? GATHER_PAD_CONSTANT
                       : op->mode == TIGRIS_PAD_REFLECT ? GATHER_PAD_REFLECT
                                                        : GATHER_PAD_EDGE;
        maps[a].in_len = (int32_t)kept;
        maps[a].begin = b > 0 ? (int32_t)b : 0;
        maps[a].first = b < 0 ? (int32_t)-b : 0;
        maps[a].scale = 1;
    }
    if ((err = gather(&out, &in, maps, &mv, 0, 0)) != TIGRIS_KERNEL_OK) return err;
    return gather(&out, &in, maps, &mv, tigris_i8_byte(op->pad_value_q), 1);
}

/* RESIZE, nearest, integer scales (params, runtime order): pixel replication, output index o of
 * an axis reads input o / scale. That is what every coordinate mode computes with an integer scale
 * (the interpreter's float coordinates included), except align_corners, which repeats pixels only
 * where an axis keeps its size or has one pixel (the compiler's extract-resize-scales rejects the
 * rest; so does this kernel). */
int tigris_i8_resize(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                     void *user_ctx) {
    tk_nd_t out, in;
    tigris_i8_move_t mv;
    i8_axis_map_t maps[TK_MAX_RANK];
    const int32_t *scales = tk_params(plan, op);
    int32_t a;
    int err;
    (void)op_index;
    (void)user_ctx;
    if (op->mode != TIGRIS_RESIZE_NEAREST || op->coord_mode > TIGRIS_COORD_PYTORCH_HALF_PIXEL)
        return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    /* windows accepted, as tigris_i8_pad */
    if ((err = nd_runtime_of(plan, mem, tk_output(plan, op, 0), 1, &out)) != TIGRIS_KERNEL_OK) return err;
    if ((err = nd_runtime_of(plan, mem, tk_input(plan, op, 0), 1, &in)) != TIGRIS_KERNEL_OK) return err;
    if (scales == NULL || in.rank != out.rank || out.rank < 1 || op->num_params != (uint32_t)out.rank)
        return TIGRIS_KERNEL_ERR_PARAMS;
    if ((err = tigris_i8_move_setup(plan, in.tensor, out.tensor, &mv)) != TIGRIS_KERNEL_OK) return err;
    for (a = 0; a < out.rank; ++a) {
        if (scales[a] < 1) return TIGRIS_KERNEL_ERR_PARAMS;
        if ((int64_t)in.dims[a] * scales[a] != out.dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
        if (op->coord_mode == TIGRIS_COORD_ALIGN_CORNERS && scales[a] != 1 && in.dims[a] != 1)
            return TIGRIS_KERNEL_ERR_UNSUPPORTED;
        memset(&maps[a], 0, sizeof(maps[a]));
        maps[a].kind = GATHER_REPEAT;
        maps[a].scale = scales[a];
    }
    if ((err = gather(&out, &in, maps, &mv, 0, 0)) != TIGRIS_KERNEL_OK) return err;
    return gather(&out, &in, maps, &mv, 0, 1);
}

/* -- REDUCE_MEAN ---------------------------------------------------------------------------- */

/* The reduced axes of a mean: extents and input strides, walked by an odometer per result. */
typedef struct {
    int32_t num;
    int32_t dims[TK_MAX_RANK];
    ptrdiff_t strides[TK_MAX_RANK];
} i8_reduced_t;

/* No axis reduced: the interpreter's requantizing move, element for element. */
static int mean_move(const tigris_plan_t *plan, const tk_nd_t *in, const tk_nd_t *out) {
    tk_iter_t it;
    tigris_i8_move_t mv;
    int32_t order[TK_MAX_RANK];
    int32_t a;
    int err;
    if (in->rank != out->rank || out->rank < 1) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < out->rank; ++a)
        if (in->dims[a] != out->dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
    if ((err = tigris_i8_move_setup(plan, in->tensor, out->tensor, &mv)) != TIGRIS_KERNEL_OK) return err;
    tigris_k_storage_order(out, order);
    tigris_k_iter_output(&it, out, order);
    if ((err = walk_operand(&it, in, order)) != TIGRIS_KERNEL_OK) return err; /* same axes */
    move_walk(&mv, &it, out->data, in->data);
    return TIGRIS_KERNEL_OK;
}

/* The walk over the result (storage order) with the input's kept axes as operand 1, and the
 * reduced axes; checks the result's shape (the kept axes in order, 1s for reduced ones with
 * keepdims) and that the sum of |x - zp| <= 255 over them fits int32. */
static int mean_setup(const tk_nd_t *in, const tk_nd_t *out, uint32_t reduced, int keep, tk_iter_t *it,
                      i8_reduced_t *red) {
    int32_t order[TK_MAX_RANK], out_to_in[TK_MAX_RANK], axis_of[TK_MAX_RANK];
    int32_t a, j, k = 0, count = 1, kept = 0;
    red->num = 0;
    for (a = 0; a < in->rank; ++a) kept += (reduced >> a) & 1u ? 0 : 1;
    if (out->rank != (keep ? in->rank : kept)) return TIGRIS_KERNEL_ERR_SHAPE;
    for (a = 0; a < in->rank; ++a) {
        if (reduced & (1u << a)) {
            if (in->dims[a] < 1 || count > TIGRIS_I8_MAX_MEAN_COUNT / in->dims[a]) return TIGRIS_KERNEL_ERR_PARAMS;
            count *= in->dims[a];
            red->dims[red->num] = in->dims[a];
            red->strides[red->num++] = in->strides[a];
            if (keep) {
                if (out->dims[k] != 1) return TIGRIS_KERNEL_ERR_SHAPE;
                out_to_in[k++] = -1;
            }
        } else {
            if (out->dims[k] != in->dims[a]) return TIGRIS_KERNEL_ERR_SHAPE;
            out_to_in[k++] = a;
        }
    }
    for (j = 0; j < TK_MAX_RANK; ++j) axis_of[j] = -1; /* a rank-0 result walks one position */
    tigris_k_storage_order(out, order);
    tigris_k_iter_output(it, out, order);
    for (j = 0; j < out->rank; ++j) axis_of[j] = out_to_in[order[j]];
    return walk_operand(it, in, axis_of);
}

/* The mean as the interpreter: total = sum(x - zx) over the reduced axes, exactly in int32;
 * quantize(((float)total * sx) / count), params = reduced axes (runtime order), KEEPDIMS flag.
 * No axis: a requantizing copy. */
int tigris_i8_reduce_mean(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                          void *user_ctx) {
    tk_nd_t out, in;
    tk_iter_t it;
    i8_reduced_t red;
    tigris_i8_q_t xq, yq;
    const int32_t *axes = tk_params(plan, op);
    uint32_t reduced = 0;
    int32_t a, j, count = 1;
    int err;
    (void)op_index;
    (void)user_ctx;
    if ((err = tigris_k_nd_of(plan, mem, tk_output(plan, op, 0), &out)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_nd_of(plan, mem, tk_input(plan, op, 0), &in)) != TIGRIS_KERNEL_OK) return err;
    if (in.elem != 1 || out.elem != 1) return TIGRIS_KERNEL_ERR_UNSUPPORTED;
    if (axes == NULL && op->num_params != 0) return TIGRIS_KERNEL_ERR_PARAMS;
    for (j = 0; j < (int32_t)op->num_params; ++j) {
        a = tigris_k_model_axis(axes[j], in.rank);
        if (a < 0 || (reduced & (1u << a))) return TIGRIS_KERNEL_ERR_PARAMS;
        reduced |= 1u << a;
    }
    if ((err = tigris_k_require_full(&in)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_k_require_full(&out)) != TIGRIS_KERNEL_OK) return err;
    if (reduced == 0) return mean_move(plan, &in, &out);
    if ((err = tigris_i8_tensor_q(plan, in.tensor, &xq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = tigris_i8_tensor_q(plan, out.tensor, &yq)) != TIGRIS_KERNEL_OK) return err;
    if ((err = mean_setup(&in, &out, reduced, (op->flags & TIGRIS_OPF_KEEPDIMS) != 0, &it, &red)))
        return err;
    for (j = 0; j < red.num; ++j) count *= red.dims[j]; /* mean_setup kept it <= TIGRIS_I8_MAX_MEAN_COUNT */
    if (!tk_iter_start(&it)) return TIGRIS_KERNEL_OK;
    do {
        const int32_t last = it.rank - 1;
        int32_t e, idx[TK_MAX_RANK];
        for (e = 0; e < tk_iter_inner(&it); ++e) {
            const uint8_t *base = in.data + it.off[1] + (ptrdiff_t)e * it.stride[1][last];
            int32_t sum = 0;
            ptrdiff_t off = 0;
            for (j = 0; j < red.num; ++j) idx[j] = 0;
            for (;;) { /* odometer over the reduced axes */
                sum += tigris_i8_value(base[off], xq.s.flip, xq.s.bias) - xq.zp;
                for (j = red.num - 1; j >= 0; --j) {
                    off += red.strides[j];
                    if (++idx[j] < red.dims[j]) break;
                    off -= (ptrdiff_t)red.dims[j] * red.strides[j];
                    idx[j] = 0;
                }
                if (j < 0) break;
            }
            out.data[it.off[0] + (ptrdiff_t)e * it.stride[0][last]] = tigris_i8_byte(
                tigris_i8_mean(sum, count, xq.scale, yq.scale, yq.zp, yq.s.qmin, yq.s.qmax));
        }
    } while (tk_iter_next(&it));
    return TIGRIS_KERNEL_OK;
}
