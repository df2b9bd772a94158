"""A GPU augmentation op written as a CuPy RawKernel (compiled by NVRTC at run time).

`jitter_copy` copies each row of a batch shifted by a per-row offset, clamping at the row's end.
With `planted_bug=True` the clamp uses the row length plus the offset, so the last rows write past
the end of the output: an out-of-bounds write inside a kernel whose source lives in this file.
"""
import cupy
import torch

KERNEL = r"""
extern "C" __global__
void jitter_copy(const float* src, float* dst, const int* offset, long long rows, long long cols, int bug) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    long long r = i / cols, c = i % cols;
    long long limit = bug ? cols + offset[r] : cols;
    long long to = c + offset[r];
    if (to < limit) {
        dst[r * cols + to] = src[i];
    }
}
"""
_kernel = cupy.RawKernel(KERNEL, "jitter_copy")


def jitter(x, offsets, planted_bug=False):
    """Returns a copy of the 2-D float tensor x with row r shifted right by offsets[r] (zeros before)."""
    rows, cols = x.shape
    out = torch.zeros_like(x)
    n = rows * cols
    _kernel(((n + 255) // 256,), (256,),
            (cupy.asarray(x), cupy.asarray(out), cupy.asarray(offsets), cupy.int64(rows), cupy.int64(cols),
             cupy.int32(1 if planted_bug else 0)))
    return out
