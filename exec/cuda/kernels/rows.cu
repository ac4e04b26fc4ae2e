// rows.cu: one thread per row of a [Rows, Cols] view: softmax, log-softmax,
// layer norm, RMS norm and reductions. Element (r, c) of X is logical flat
// index r*Cols+c; launch.Plan permutes X's descriptor so the row is
// contiguous in the logical order. CPU twins: Softmax, LayerNorm, RMSNorm,
// Reduce* of exec/cpu.

extern "C" __global__ void rows_f32(RowParams p, const float* x, const float* scale, const float* bias, float* y) {
    int r = flat_index();
    if (r >= p.Rows) return;
    int base = r * p.Cols;
    switch (p.Op) {
    case 0:
    case 1: { // Softmax, LogSoftmax
        float m = -INF_F;
        for (int c = 0; c < p.Cols; c++) m = fmaxf(m, x[tensor_offset(p.X, base + c)]);
        float s = 0.0f;
        for (int c = 0; c < p.Cols; c++) s += expf(x[tensor_offset(p.X, base + c)] - m);
        float ls = logf(s);
        for (int c = 0; c < p.Cols; c++) {
            float v = x[tensor_offset(p.X, base + c)] - m;
            y[tensor_offset(p.Out, base + c)] = p.Op == 0 ? expf(v) / s : v - ls;
        }
        break;
    }
    case 2:
    case 3: { // LayerNorm, RMSNorm
        float mean = 0.0f;
        if (p.Op == 2) {
            for (int c = 0; c < p.Cols; c++) mean += x[tensor_offset(p.X, base + c)];
            mean /= float(p.Cols);
        }
        float ss = 0.0f;
        for (int c = 0; c < p.Cols; c++) {
            float d = x[tensor_offset(p.X, base + c)] - mean;
            ss += d * d;
        }
        float inv = 1.0f / sqrtf(ss / float(p.Cols) + p.Eps);
        for (int c = 0; c < p.Cols; c++) {
            int e = base + c;
            float v = (x[tensor_offset(p.X, e)] - mean) * inv * scale[tensor_offset(p.Scale, e)];
            if (p.HasBias != 0) v += bias[tensor_offset(p.Bias, e)];
            y[tensor_offset(p.Out, e)] = v;
        }
        break;
    }
    default: { // 4 ReduceSum, 5 ReduceMean, 6 ReduceMax
        float acc = p.Op == 6 ? -INF_F : 0.0f;
        for (int c = 0; c < p.Cols; c++) {
            float v = x[tensor_offset(p.X, base + c)];
            acc = p.Op == 6 ? fmaxf(acc, v) : acc + v;
        }
        if (p.Op == 5) acc /= float(p.Cols);
        y[tensor_offset(p.Out, r)] = acc;
        break;
    }
    }
}

// rows_warp_f32: rows_f32 with one warp per row, the lanes striding the
// columns and combining through warp_sum/warp_max (the backend picks it for
// rows of at least 2 columns, geometry.go). Same parameters and operands.
extern "C" __global__ void rows_warp_f32(RowParams p, const float* x, const float* scale, const float* bias, float* y) {
    int r = warp_index();
    int lane = int(threadIdx.x & 31);
    if (r >= p.Rows) return; // whole warps leave together
    int base = r * p.Cols;
    switch (p.Op) {
    case 0:
    case 1: { // Softmax, LogSoftmax
        float m = -INF_F;
        for (int c = lane; c < p.Cols; c += 32) m = fmaxf(m, x[tensor_offset(p.X, base + c)]);
        m = warp_max(m);
        float s = 0.0f;
        for (int c = lane; c < p.Cols; c += 32) s += expf(x[tensor_offset(p.X, base + c)] - m);
        s = warp_sum(s);
        float ls = logf(s);
        for (int c = lane; c < p.Cols; c += 32) {
            float v = x[tensor_offset(p.X, base + c)] - m;
            y[tensor_offset(p.Out, base + c)] = p.Op == 0 ? expf(v) / s : v - ls;
        }
        break;
    }
    case 2:
    case 3: { // LayerNorm, RMSNorm
        float mean = 0.0f;
        if (p.Op == 2) {
            for (int c = lane; c < p.Cols; c += 32) mean += x[tensor_offset(p.X, base + c)];
            mean = warp_sum(mean) / float(p.Cols);
        }
        float ss = 0.0f;
        for (int c = lane; c < p.Cols; c += 32) {
            float d = x[tensor_offset(p.X, base + c)] - mean;
            ss += d * d;
        }
        ss = warp_sum(ss);
        float inv = 1.0f / sqrtf(ss / float(p.Cols) + p.Eps);
        for (int c = lane; c < p.Cols; c += 32) {
            int e = base + c;
            float v = (x[tensor_offset(p.X, e)] - mean) * inv * scale[tensor_offset(p.Scale, e)];
            if (p.HasBias != 0) v += bias[tensor_offset(p.Bias, e)];
            y[tensor_offset(p.Out, e)] = v;
        }
        break;
    }
    default: { // 4 ReduceSum, 5 ReduceMean, 6 ReduceMax
        float acc = p.Op == 6 ? -INF_F : 0.0f;
        for (int c = lane; c < p.Cols; c += 32) {
            float v = x[tensor_offset(p.X, base + c)];
            acc = p.Op == 6 ? fmaxf(acc, v) : acc + v;
        }
        acc = p.Op == 6 ? warp_max(acc) : warp_sum(acc);
        if (p.Op == 5) acc /= float(p.Cols);
        if (lane == 0) y[tensor_offset(p.Out, r)] = acc;
        break;
    }
    }
}
