#pragma once
// The sample bf16 GEMM: bf16 inputs and outputs, fp32 accumulation, row-major tensors, a batch
// dimension. Forward and backward of a linear layer without bias (torch.nn.functional.linear):
//   forward   out[b] = a[b] @ w[b]^T         a: [B, M, K]  w: [B, N, K]  out: [B, M, N]
//   backward  da[b]  = g[b] @ w[b]           g: [B, M, N]                da: [B, M, K]
//             dw[b]  = g[b]^T @ a[b]                                     dw: [B, N, K]
// Backward is two launches of the same kernel with transposed operand layouts. Tensors hold raw
// bf16 bits (uint16_t) so host code needs no vendor bf16 type. Every call is asynchronous on
// `stream` and returns the launch status.
#include <cstdint>

#include "device/hip_portability.h"

namespace kopt::kernels {

hipError_t gemmForward(const std::uint16_t* a, const std::uint16_t* w, std::uint16_t* out, int batch, int m, int n, int k,
                       hipStream_t stream);

hipError_t gemmBackward(const std::uint16_t* g, const std::uint16_t* a, const std::uint16_t* w, std::uint16_t* da,
                        std::uint16_t* dw, int batch, int m, int n, int k, hipStream_t stream);

}  // namespace kopt::kernels
