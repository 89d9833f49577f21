// The plain starting point of the RMSNorm campaign. Forward: one block per row, two passes over
// the row (sum of squares, then normalize; the second pass mostly hits L2). Backward: a grid of
// CUs x BLOCKS_PER_CU blocks walking rows, two passes per row, dw partials kept in registers and
// reduced by a second kernel. Block reductions go through shared memory (no warp shuffles, so
// the code is the same for 32-wide NVIDIA warps and 64-wide AMD wavefronts). Knobs:
// rmsnorm_config.h; known next steps: README.md.
#include <cstddef>

#include "common/bf16_vector.h"
#include "rmsnorm/rmsnorm.h"
#include "rmsnorm/rmsnorm_config.h"

namespace kopt::kernels {

namespace {

using namespace rmsnorm_config;

// Sum of (a, b) over the block. Every thread gets the totals.
template <int THREADS>
__device__ inline void blockSum2(float& a, float& b) {
  __shared__ float sa[THREADS];
  __shared__ float sb[THREADS];
  sa[threadIdx.x] = a;
  sb[threadIdx.x] = b;
  __syncthreads();
#pragma unroll
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (static_cast<int>(threadIdx.x) < s) {
      sa[threadIdx.x] += sa[threadIdx.x + s];
      sb[threadIdx.x] += sb[threadIdx.x + s];
    }
    __syncthreads();
  }
  a = sa[0];
  b = sb[0];
  __syncthreads();  // the next call may overwrite sa/sb only after everyone read the totals
}

template <int THREADS, int V>
__global__ void __launch_bounds__(THREADS)
    rmsnormForwardKernel(const std::uint16_t* __restrict__ x, const std::uint16_t* __restrict__ w,
                         std::uint16_t* __restrict__ y, int n, float eps) {
  const std::size_t rowOffset = static_cast<std::size_t>(blockIdx.x) * n;
  const std::uint16_t* xr = x + rowOffset;
  std::uint16_t* yr = y + rowOffset;
  const int vectors = n / V;

  float sumSquares = 0.0f, unused = 0.0f;
  for (int v = threadIdx.x; v < vectors; v += THREADS) {
    float xv[V];
    loadBf16Vector<V>(xr + static_cast<std::size_t>(v) * V, xv);
#pragma unroll
    for (int i = 0; i < V; ++i) sumSquares = fmaf(xv[i], xv[i], sumSquares);
  }
  blockSum2<THREADS>(sumSquares, unused);
  const float r = rsqrtf(sumSquares / static_cast<float>(n) + eps);

  for (int v = threadIdx.x; v < vectors; v += THREADS) {
    float xv[V], wv[V], yv[V];
    loadBf16Vector<V>(xr + static_cast<std::size_t>(v) * V, xv);
    loadBf16Vector<V>(w + static_cast<std::size_t>(v) * V, wv);
#pragma unroll
    for (int i = 0; i < V; ++i) yv[i] = xv[i] * r * wv[i];
    storeBf16Vector<V>(yr + static_cast<std::size_t>(v) * V, yv);
  }
}

template <int THREADS, int V>
__global__ void __launch_bounds__(THREADS)
    rmsnormBackwardKernel(const std::uint16_t* __restrict__ dy, const std::uint16_t* __restrict__ x,
                          const std::uint16_t* __restrict__ w, std::uint16_t* __restrict__ dx,
                          float* __restrict__ partial, int m, int n, float eps) {
  constexpr int kMaxVectors = kMaxColsPerThread / V;  // vectors per thread per row, at most
  const int vectors = n / V;
  float dwAcc[kMaxVectors][V];
#pragma unroll
  for (int t = 0; t < kMaxVectors; ++t) {
#pragma unroll
    for (int i = 0; i < V; ++i) dwAcc[t][i] = 0.0f;
  }

  for (int row = blockIdx.x; row < m; row += gridDim.x) {
    const std::size_t rowOffset = static_cast<std::size_t>(row) * n;
    float sumSquares = 0.0f, dot = 0.0f;
#pragma unroll
    for (int t = 0; t < kMaxVectors; ++t) {
      const int v = threadIdx.x + t * THREADS;
      if (v < vectors) {
        float xv[V], gv[V], wv[V];
        loadBf16Vector<V>(x + rowOffset + static_cast<std::size_t>(v) * V, xv);
        loadBf16Vector<V>(dy + rowOffset + static_cast<std::size_t>(v) * V, gv);
        loadBf16Vector<V>(w + static_cast<std::size_t>(v) * V, wv);
#pragma unroll
        for (int i = 0; i < V; ++i) {
          sumSquares = fmaf(xv[i], xv[i], sumSquares);
          dot = fmaf(gv[i] * wv[i], xv[i], dot);
        }
      }
    }
    blockSum2<THREADS>(sumSquares, dot);
    const float r = rsqrtf(sumSquares / static_cast<float>(n) + eps);
    const float c = r * r * r * dot / static_cast<float>(n);
#pragma unroll
    for (int t = 0; t < kMaxVectors; ++t) {
      const int v = threadIdx.x + t * THREADS;
      if (v < vectors) {
        float xv[V], gv[V], wv[V], out[V];
        loadBf16Vector<V>(x + rowOffset + static_cast<std::size_t>(v) * V, xv);
        loadBf16Vector<V>(dy + rowOffset + static_cast<std::size_t>(v) * V, gv);
        loadBf16Vector<V>(w + static_cast<std::size_t>(v) * V, wv);
#pragma unroll
        for (int i = 0; i < V; ++i) {
          out[i] = r * gv[i] * wv[i] - xv[i] * c;
          dwAcc[t][i] = fmaf(gv[i], xv[i] * r, dwAcc[t][i]);
        }
        storeBf16Vector<V>(dx + rowOffset + static_cast<std::size_t>(v) * V, out);
      }
    }
  }

  float* mine = partial + static_cast<std::size_t>(blockIdx.x) * n;
#pragma unroll
  for (int t = 0; t < kMaxVectors; ++t) {
    const int v = threadIdx.x + t * THREADS;
    if (v < vectors) {
#pragma unroll
      for (int i = 0; i < V; ++i) mine[static_cast<std::size_t>(v) * V + i] = dwAcc[t][i];
    }
  }
}

__global__ void dwReduceKernel(const float* __restrict__ partial, std::uint16_t* __restrict__ dw, int blocks, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  float sum = 0.0f;
  for (int b = 0; b < blocks; ++b) sum += partial[static_cast<std::size_t>(b) * n + j];
  dw[j] = hipbench::floatToBf16Bits(sum);
}

bool aligned16(const void* p, int vec) { return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::uintptr_t>(vec) * 2) == 0; }

// kVec when the row length and every pointer allow it, else single elements.
template <typename... Ptrs>
bool useVector(int n, Ptrs... ptrs) {
  return kVec > 1 && n % kVec == 0 && (aligned16(ptrs, kVec) && ...);
}

int computeUnits() {
  int device = 0;
  if (hipGetDevice(&device) != hipSuccess) return 1;
  int cus = 0;
  if (hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess || cus <= 0) return 1;
  return cus;
}

int backwardBlocks(int m) {
  static const int cus = computeUnits();
  const long long blocks = static_cast<long long>(cus) * kBwdBlocksPerCu;
  return static_cast<int>(blocks < m ? blocks : m);
}

// The fewest threads (from kThreads up to 1024) whose registers can hold a row's dw partials.
int backwardThreads(int n, int vec) {
  const int vectors = n / vec;
  const int perThread = kMaxColsPerThread / vec;
  for (int threads = kThreads; threads <= 1024; threads *= 2) {
    if (vectors <= threads * perThread) return threads;
  }
  return 0;
}

template <int THREADS>
hipError_t launchForward(bool vec, const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, int m, int n, float eps,
                         hipStream_t stream) {
  if (vec) rmsnormForwardKernel<THREADS, kVec><<<m, THREADS, 0, stream>>>(x, w, y, n, eps);
  else rmsnormForwardKernel<THREADS, 1><<<m, THREADS, 0, stream>>>(x, w, y, n, eps);
  return hipGetLastError();
}

template <int THREADS>
hipError_t launchBackward(bool vec, int blocks, const std::uint16_t* dy, const std::uint16_t* x, const std::uint16_t* w,
                          std::uint16_t* dx, float* partial, int m, int n, float eps, hipStream_t stream) {
  if (vec) rmsnormBackwardKernel<THREADS, kVec><<<blocks, THREADS, 0, stream>>>(dy, x, w, dx, partial, m, n, eps);
  else rmsnormBackwardKernel<THREADS, 1><<<blocks, THREADS, 0, stream>>>(dy, x, w, dx, partial, m, n, eps);
  return hipGetLastError();
}

}  // namespace

int rmsnormMaxColumns() { return 1024 * kMaxColsPerThread; }

hipError_t rmsnormForward(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, int m, int n, float eps,
                          hipStream_t stream) {
  if (m <= 0 || n <= 0) return hipErrorInvalidValue;
  return launchForward<kThreads>(useVector(n, x, w, y), x, w, y, m, n, eps, stream);
}

std::size_t rmsnormBackwardWorkspaceBytes(int m, int n) {
  if (m <= 0 || n <= 0) return 0;
  return static_cast<std::size_t>(backwardBlocks(m)) * static_cast<std::size_t>(n) * sizeof(float);
}

hipError_t rmsnormBackward(const std::uint16_t* dy, const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* dx,
                           std::uint16_t* dw, float* workspace, std::size_t workspaceBytes, int m, int n, float eps,
                           hipStream_t stream) {
  if (m <= 0 || n <= 0 || n > rmsnormMaxColumns()) return hipErrorInvalidValue;
  const int blocks = backwardBlocks(m);
  if (workspaceBytes < static_cast<std::size_t>(blocks) * n * sizeof(float)) return hipErrorInvalidValue;
  const bool vec = useVector(n, dy, x, w, dx);
  const int threads = backwardThreads(n, vec ? kVec : 1);
  hipError_t rc = hipErrorInvalidValue;
  switch (threads) {
    case 64: rc = launchBackward<64>(vec, blocks, dy, x, w, dx, workspace, m, n, eps, stream); break;
    case 128: rc = launchBackward<128>(vec, blocks, dy, x, w, dx, workspace, m, n, eps, stream); break;
    case 256: rc = launchBackward<256>(vec, blocks, dy, x, w, dx, workspace, m, n, eps, stream); break;
    case 512: rc = launchBackward<512>(vec, blocks, dy, x, w, dx, workspace, m, n, eps, stream); break;
    case 1024: rc = launchBackward<1024>(vec, blocks, dy, x, w, dx, workspace, m, n, eps, stream); break;
    default: return hipErrorInvalidValue;  // row too long for the register budget
  }
  if (rc != hipSuccess) return rc;
  constexpr int kReduceThreads = 256;
  dwReduceKernel<<<(n + kReduceThreads - 1) / kReduceThreads, kReduceThreads, 0, stream>>>(workspace, dw, blocks, n);
  return hipGetLastError();
}

}  // namespace kopt::kernels
