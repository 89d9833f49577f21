#pragma once
// The sample memory-bound kernel: RMSNorm over the last dimension, bf16 in and out, fp32 math.
//   forward   y[i, j]  = x[i, j] * r_i * w[j],  r_i = 1 / sqrt(mean_j x[i, j]^2 + eps)
//   backward  dx[i, j] = r_i * dy[i, j] * w[j] - x[i, j] * r_i^3 * (1/N) * sum_j dy[i, j] w[j] x[i, j]
//             dw[j]    = sum_i dy[i, j] * x[i, j] * r_i
// x, y, dy, dx: [M, N]; w, dw: [N]; row-major, raw bf16 bits. The backward recomputes r_i from x
// (nothing is saved by the forward) and needs an fp32 workspace for per-block partial dw sums
// (rmsnormBackwardWorkspaceBytes). Calls are asynchronous on `stream`.
#include <cstddef>
#include <cstdint>

#include "device/hip_portability.h"

namespace kopt::kernels {

hipError_t rmsnormForward(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, int m, int n, float eps,
                          hipStream_t stream);

std::size_t rmsnormBackwardWorkspaceBytes(int m, int n);

hipError_t rmsnormBackward(const std::uint16_t* dy, const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* dx,
                           std::uint16_t* dw, float* workspace, std::size_t workspaceBytes, int m, int n, float eps,
                           hipStream_t stream);

// Rows longer than this are refused (hipErrorInvalidValue): 1024 threads x MAX_COLS_PER_THREAD.
int rmsnormMaxColumns();

}  // namespace kopt::kernels
