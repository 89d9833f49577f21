// The plain starting point of the bf16 GEMM campaign: a shared-memory tiled kernel with register
// blocking and fp32 FMA accumulation. No tensor cores (MFMA on AMD, mma/wgmma on NVIDIA), no
// software pipelining: README.md lists those as the known next steps. Knobs: gemm_config.h.
#include <cstddef>

#include "common/bf16_vector.h"
#include "gemm/gemm.h"
#include "gemm/gemm_config.h"
#include "harness/hip/bf16_bits.h"

namespace kopt::kernels {

namespace {

using namespace gemm_config;
using hipbench::bf16BitsToFloat;
using hipbench::floatToBf16Bits;

// V values of one line of a tile, starting at `start` along the line; zeros past `limit` or when
// the whole line lies outside the matrix.
template <int V>
__device__ inline void loadLine(const std::uint16_t* base, std::size_t offset, bool lineValid, int start, int limit,
                                bool vecOk, float* out) {
  if (!lineValid) {
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = 0.0f;
    return;
  }
  if (vecOk && start + V <= limit) {
    loadBf16Vector<V>(base + offset, out);
    return;
  }
#pragma unroll
  for (int i = 0; i < V; ++i) out[i] = (start + i < limit) ? bf16BitsToFloat(base[offset + i]) : 0.0f;
}

// Stages a ROWS x COLS tile (rows: an M or N index, columns: the K index) into smem[col][row].
// Memory layout: when contiguousAlongK, element (r, c) is at base[r * ld + c]; otherwise at
// base[c * ld + r]. Loads run along the contiguous dimension so a warp's loads coalesce.
template <int ROWS, int COLS>
__device__ inline void loadTile(float (*smem)[ROWS + kSmemPad], const std::uint16_t* base, int ld, int r0, int c0,
                                int rLimit, int cLimit, bool contiguousAlongK, bool vecOk) {
  constexpr int V = kVec;
  float vals[V];
  if (contiguousAlongK) {
    constexpr int perRow = COLS / V;
    for (int v = threadIdx.x; v < ROWS * perRow; v += kThreads) {
      const int r = v / perRow;
      const int c = (v % perRow) * V;
      const int gr = r0 + r, gc = c0 + c;
      loadLine<V>(base, static_cast<std::size_t>(gr) * ld + gc, gr < rLimit, gc, cLimit, vecOk, vals);
#pragma unroll
      for (int i = 0; i < V; ++i) smem[c + i][r] = vals[i];
    }
  } else {
    constexpr int perCol = ROWS / V;
    for (int v = threadIdx.x; v < COLS * perCol; v += kThreads) {
      const int c = v / perCol;
      const int r = (v % perCol) * V;
      const int gr = r0 + r, gc = c0 + c;
      loadLine<V>(base, static_cast<std::size_t>(gc) * ld + gr, gc < cLimit, gr, rLimit, vecOk, vals);
#pragma unroll
      for (int i = 0; i < V; ++i) smem[c][r + i] = vals[i];
    }
  }
}

// C[b] (M x N, row-major, ldc) = opA(A[b]) (M x K) @ opB(B[b]) (K x N).
//   transA: A is stored K x M (element (m, k) at A[k * lda + m]); else M x K (A[m * lda + k]).
//   transB: B is stored N x K (element (k, n) at B[n * ldb + k]); else K x N (B[k * ldb + n]).
__global__ void __launch_bounds__(kThreads) gemmKernel(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B,
                                                       std::uint16_t* __restrict__ C, int M, int N, int K, int lda, int ldb,
                                                       int ldc, long long strideA, long long strideB, long long strideC,
                                                       bool transA, bool transB, bool vecA, bool vecB) {
  __shared__ float As[kBlockK][kBlockM + kSmemPad];
  __shared__ float Bs[kBlockK][kBlockN + kSmemPad];

  const int batch = blockIdx.z;
  A += batch * strideA;
  B += batch * strideB;
  C += batch * strideC;
  const int m0 = blockIdx.y * kBlockM;
  const int n0 = blockIdx.x * kBlockN;
  constexpr int threadsN = kBlockN / kThreadN;
  const int tx = threadIdx.x % threadsN;
  const int ty = threadIdx.x / threadsN;

  float acc[kThreadM][kThreadN];
#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < K; k0 += kBlockK) {
    loadTile<kBlockM, kBlockK>(As, A, lda, m0, k0, M, K, /*contiguousAlongK=*/!transA, vecA);
    loadTile<kBlockN, kBlockK>(Bs, B, ldb, n0, k0, N, K, /*contiguousAlongK=*/transB, vecB);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBlockK; ++kk) {
      float af[kThreadM], bf[kThreadN];
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) af[i] = As[kk][ty * kThreadM + i];
#pragma unroll
      for (int j = 0; j < kThreadN; ++j) bf[j] = Bs[kk][tx * kThreadN + j];
#pragma unroll
      for (int i = 0; i < kThreadM; ++i) {
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int m = m0 + ty * kThreadM + i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) {
      const int n = n0 + tx * kThreadN + j;
      if (n < N) C[static_cast<std::size_t>(m) * ldc + n] = floatToBf16Bits(acc[i][j]);
    }
  }
}

bool aligned(const void* p, int vec) { return reinterpret_cast<std::uintptr_t>(p) % (static_cast<std::uintptr_t>(vec) * 2) == 0; }

// Vector loads need the pointer, the leading dimension and the batch stride all on a vector boundary.
bool vectorizable(const void* p, int ld, long long stride) {
  return kVec > 1 && aligned(p, kVec) && ld % kVec == 0 && stride % kVec == 0;
}

hipError_t launch(const std::uint16_t* A, const std::uint16_t* B, std::uint16_t* C, int batch, int M, int N, int K, int lda,
                  int ldb, int ldc, long long strideA, long long strideB, long long strideC, bool transA, bool transB,
                  hipStream_t stream) {
  if (batch <= 0 || M <= 0 || N <= 0 || K <= 0 || batch > 65535) return hipErrorInvalidValue;
  if ((M + kBlockM - 1) / kBlockM > 65535) return hipErrorInvalidValue;  // grid.y limit
  const dim3 grid((N + kBlockN - 1) / kBlockN, (M + kBlockM - 1) / kBlockM, batch);
  const dim3 block(kThreads);
  gemmKernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K, lda, ldb, ldc, strideA, strideB, strideC, transA, transB,
                                          vectorizable(A, lda, strideA), vectorizable(B, ldb, strideB));
  return hipGetLastError();
}

}  // namespace

hipError_t gemmForward(const std::uint16_t* a, const std::uint16_t* w, std::uint16_t* out, int batch, int m, int n, int k,
                       hipStream_t stream) {
  // out[M,N] = a[M,K] @ w[N,K]^T: A = a (M x K), B = w stored N x K (transB).
  return launch(a, w, out, batch, m, n, k, /*lda=*/k, /*ldb=*/k, /*ldc=*/n, 1LL * m * k, 1LL * n * k, 1LL * m * n,
                /*transA=*/false, /*transB=*/true, stream);
}

hipError_t gemmBackward(const std::uint16_t* g, const std::uint16_t* a, const std::uint16_t* w, std::uint16_t* da,
                        std::uint16_t* dw, int batch, int m, int n, int k, hipStream_t stream) {
  // da[M,K] = g[M,N] @ w[N,K]: A = g (M x N), B = w (N x K, row-major, no transpose).
  hipError_t rc = launch(g, w, da, batch, /*M=*/m, /*N=*/k, /*K=*/n, /*lda=*/n, /*ldb=*/k, /*ldc=*/k, 1LL * m * n,
                         1LL * n * k, 1LL * m * k, /*transA=*/false, /*transB=*/false, stream);
  if (rc != hipSuccess) return rc;
  // dw[N,K] = g[M,N]^T @ a[M,K]: A = g stored M x N read transposed, B = a (M x K, row-major).
  return launch(g, a, dw, batch, /*M=*/n, /*N=*/k, /*K=*/m, /*lda=*/n, /*ldb=*/k, /*ldc=*/k, 1LL * m * n, 1LL * m * k,
                1LL * n * k, /*transA=*/true, /*transB=*/false, stream);
}

}  // namespace kopt::kernels
