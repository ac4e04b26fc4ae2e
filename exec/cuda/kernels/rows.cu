// rows.cu: one thread per row of a [Rows, Cols] view: softmax, log-softmax,
// layer norm, RMS norm and reductions. Element (r, c) of X is logical flat
// index r*Cols+c; launch.Plan permutes X's descriptor so the row is
// contiguous in the logical order. CPU twins: Softmax, LayerNorm, RMSNorm,
// Reduce* of exec/cpu.

// rows_body computes row r, lane lane of step lanes (1: one thread per
// row; 32: one warp per row, the lanes striding the columns).
__device__ __forceinline__ void rows_body(const RowParams& p, const float* x, const float* scale, const float* bias, float* y, int r, int lane, int step) {
    int base = r * p.Cols;
    switch (p.Op) {
    case 0:
    case 1: { // Softmax, LogSoftmax
        float m = -INF_F;
        for (int c = lane; c < p.Cols; c += step) m = fmaxf(m, x[tensor_offset(p.X, base + c)]);
        m = lanes_max(m, step);
        float s = 0.0f;
        for (int c = lane; c < p.Cols; c += step) s += expf(x[tensor_offset(p.X, base + c)] - m);
        s = lanes_sum(s, step);
        float ls = logf(s);
        for (int c = lane; c < p.Cols; c += step) {
            float v = x[tensor_offset(p.X, base + c)] - m;
            y[tensor_offset(p.Out, base + c)] = p.Op == 0 ? expf(v) / s : v - ls;
        }
        break;
    }
    case 2:
    case 3: { // LayerNorm, RMSNorm
        float mean = 0.0f;
        if (p.Op == 2) {
            for (int c = lane; c < p.Cols; c += step) mean += x[tensor_offset(p.X, base + c)];
            mean = lanes_sum(mean, step) / float(p.Cols);
        }
        float ss = 0.0f;
        for (int c = lane; c < p.Cols; c += step) {
            float d = x[tensor_offset(p.X, base + c)] - mean;
            ss += d * d;
        }
        ss = lanes_sum(ss, step);
        float inv = 1.0f / sqrtf(ss / float(p.Cols) + p.Eps);
        for (int c = lane; c < p.Cols; c += step) {
            int e = base + c;
            float v = (x[tensor_offset(p.X, e)] - mean) * inv * scale[tensor_offset(p.Scale, e)];
            if (p.HasBias != 0) v += bias[tensor_offset(p.Bias, e)];
            y[tensor_offset(p.Out, e)] = v;
        }
        break;
    }
    default: { // 4 ReduceSum, 5 ReduceMean, 6 ReduceMax
        float acc = p.Op == 6 ? -INF_F : 0.0f;
        for (int c = lane; c < p.Cols; c += step) {
            float v = x[tensor_offset(p.X, base + c)];
            acc = p.Op == 6 ? fmaxf(acc, v) : acc + v;
        }
        acc = p.Op == 6 ? lanes_max(acc, step) : lanes_sum(acc, step);
        if (p.Op == 5) acc /= float(p.Cols);
        if (lane == 0) y[tensor_offset(p.Out, r)] = acc;
        break;
    }
    }
}

extern "C" __global__ void rows_f32(RowParams p, const float* x, const float* scale, const float* bias, float* y) {
    int r = flat_index();
    if (r >= p.Rows) return;
    rows_body(p, x, scale, bias, y, r, 0, 1);
}

// rows_warp_f32: rows_f32 with one warp per row, the lanes striding the
// columns and combining through warp_sum/warp_max (the backend picks it for
// rows of at least 2 columns, geometry.go). Same parameters and operands.
extern "C" __global__ void rows_warp_f32(RowParams p, const float* x, const float* scale, const float* bias, float* y) {
    int r = warp_index();
    if (r >= p.Rows) return; // whole warps leave together
    rows_body(p, x, scale, bias, y, r, int(threadIdx.x & 31), 32);
}
