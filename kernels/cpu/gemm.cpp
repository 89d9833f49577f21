// A blocked CPU GEMM whose shape of loops is chosen by the knobs in gemm_config.h.
// Structure: C is zeroed, then tiles are visited j0 -> k0 -> i0 so one B tile (TILE_K x TILE_N)
// is reused by every row of A before moving on; inside a tile a micro loop nest (ijk or ikj)
// accumulates GEMM_K_UNROLL depth steps per pass over GEMM_UNROLL columns of C.
// The backward pass is two forward GEMMs on explicit transposes (O(n^2) extra work, O(n^3) reuse).
#include "gemm.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "gemm_config.h"

#if GEMM_TILE_M < 1 || GEMM_TILE_N < 1 || GEMM_TILE_K < 1
#error "GEMM_TILE_M/N/K must be positive"
#endif
#if GEMM_UNROLL != 1 && GEMM_UNROLL != 2 && GEMM_UNROLL != 4 && GEMM_UNROLL != 8 && GEMM_UNROLL != 16
#error "GEMM_UNROLL must be 1, 2, 4, 8 or 16"
#endif
#if GEMM_K_UNROLL != 1 && GEMM_K_UNROLL != 2 && GEMM_K_UNROLL != 4 && GEMM_K_UNROLL != 8
#error "GEMM_K_UNROLL must be 1, 2, 4 or 8"
#endif
#if GEMM_LOOP_ORDER != 0 && GEMM_LOOP_ORDER != 1
#error "GEMM_LOOP_ORDER must be 0 (ijk) or 1 (ikj)"
#endif

namespace cpu_gemm {
namespace {

constexpr int kTileM = GEMM_TILE_M;
constexpr int kTileN = GEMM_TILE_N;
constexpr int kTileK = GEMM_TILE_K;
constexpr int kJU = GEMM_UNROLL;
constexpr int kKU = GEMM_K_UNROLL;

// A view of a B tile: element (k, j) of the tile is at base[k * ld + j].
struct TileB {
  const float* base;
  std::size_t ld;
};

// c[0..tn) += sum_u av[u] * b_u[0..tn), with b_u = tile row `row + u`.
// The JU-wide chunk has a compile-time width, so the compiler can keep it in vector registers.
template <int KU>
inline void update_row(float* c, const float* av, TileB b, int row, int tn) {
  const float* brow[KU];
  for (int u = 0; u < KU; ++u) brow[u] = b.base + static_cast<std::size_t>(row + u) * b.ld;
  int j = 0;
  for (; j + kJU <= tn; j += kJU) {
    float acc[kJU];
    for (int v = 0; v < kJU; ++v) acc[v] = c[j + v];
    for (int u = 0; u < KU; ++u)
      for (int v = 0; v < kJU; ++v) acc[v] += av[u] * brow[u][j + v];
    for (int v = 0; v < kJU; ++v) c[j + v] = acc[v];
  }
  for (; j < tn; ++j) {
    float s = c[j];
    for (int u = 0; u < KU; ++u) s += av[u] * brow[u][j];
    c[j] = s;
  }
}

// i-k-j: for each row of C, stream the rows of the B tile.
[[maybe_unused]] void tile_ikj(const float* A, std::size_t lda, TileB b, float* C, std::size_t ldc, int i0, int i1,
              int k0, int k1, int j0, int tn) {
  for (int i = i0; i < i1; ++i) {
    const float* a = A + static_cast<std::size_t>(i) * lda;
    float* c = C + static_cast<std::size_t>(i) * ldc + j0;
    int k = k0;
    for (; k + kKU <= k1; k += kKU) update_row<kKU>(c, a + k, b, k - k0, tn);
#if GEMM_K_TAIL_FIX
    for (; k < k1; ++k) update_row<1>(c, a + k, b, k - k0, tn);
#endif
  }
}

// i-j-k: for each chunk of GEMM_UNROLL columns of C, a dot product down the B tile's columns.
[[maybe_unused]] void tile_ijk(const float* A, std::size_t lda, TileB b, float* C, std::size_t ldc, int i0, int i1,
              int k0, int k1, int j0, int tn) {
  for (int i = i0; i < i1; ++i) {
    const float* a = A + static_cast<std::size_t>(i) * lda;
    float* c = C + static_cast<std::size_t>(i) * ldc + j0;
    int j = 0;
    for (; j + kJU <= tn; j += kJU) {
      float acc[kJU];
      for (int v = 0; v < kJU; ++v) acc[v] = c[j + v];
      int k = k0;
      for (; k + kKU <= k1; k += kKU)
        for (int u = 0; u < kKU; ++u) {
          const float* brow = b.base + static_cast<std::size_t>(k + u - k0) * b.ld + j;
          for (int v = 0; v < kJU; ++v) acc[v] += a[k + u] * brow[v];
        }
#if GEMM_K_TAIL_FIX
      for (; k < k1; ++k) {
        const float* brow = b.base + static_cast<std::size_t>(k - k0) * b.ld + j;
        for (int v = 0; v < kJU; ++v) acc[v] += a[k] * brow[v];
      }
#endif
      for (int v = 0; v < kJU; ++v) c[j + v] = acc[v];
    }
    for (; j < tn; ++j) {
      float s = c[j];
      int k = k0;
      for (; k + kKU <= k1; k += kKU)
        for (int u = 0; u < kKU; ++u) s += a[k + u] * b.base[static_cast<std::size_t>(k + u - k0) * b.ld + j];
#if GEMM_K_TAIL_FIX
      for (; k < k1; ++k) s += a[k] * b.base[static_cast<std::size_t>(k - k0) * b.ld + j];
#endif
      c[j] = s;
    }
  }
}

// C[M x N] = A[M x K] * B[K x N] with leading dimensions lda, ldb, ldc.
void gemm_nn(int M, int N, int K, const float* A, std::size_t lda, const float* B, std::size_t ldb,
             float* C, std::size_t ldc) {
  for (int i = 0; i < M; ++i) std::memset(C + static_cast<std::size_t>(i) * ldc, 0, sizeof(float) * N);
#if GEMM_PACK_B
  std::vector<float> packed(static_cast<std::size_t>(kTileK) * kTileN);
#endif
  for (int j0 = 0; j0 < N; j0 += kTileN) {
    const int tn = std::min(kTileN, N - j0);
    for (int k0 = 0; k0 < K; k0 += kTileK) {
      const int k1 = std::min(K, k0 + kTileK);
#if GEMM_PACK_B
      for (int k = k0; k < k1; ++k)
        std::memcpy(packed.data() + static_cast<std::size_t>(k - k0) * tn,
                    B + static_cast<std::size_t>(k) * ldb + j0, sizeof(float) * tn);
      const TileB b{packed.data(), static_cast<std::size_t>(tn)};
#else
      const TileB b{B + static_cast<std::size_t>(k0) * ldb + j0, ldb};
#endif
      for (int i0 = 0; i0 < M; i0 += kTileM) {
        const int i1 = std::min(M, i0 + kTileM);
#if GEMM_LOOP_ORDER == 1
        tile_ikj(A, lda, b, C, ldc, i0, i1, k0, k1, j0, tn);
#else
        tile_ijk(A, lda, b, C, ldc, i0, i1, k0, k1, j0, tn);
#endif
      }
    }
  }
}

// out[cols x rows] = in[rows x cols]^T
void transpose(const float* in, int rows, int cols, float* out) {
  constexpr int kBlock = 32;  // keeps both the read and the write side within a few cache lines
  for (int r0 = 0; r0 < rows; r0 += kBlock)
    for (int c0 = 0; c0 < cols; c0 += kBlock)
      for (int r = r0; r < std::min(rows, r0 + kBlock); ++r)
        for (int c = c0; c < std::min(cols, c0 + kBlock); ++c)
          out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
}

#define KOPT_STR2(x) #x
#define KOPT_STR(x) KOPT_STR2(x)

}  // namespace

void forward(const float* A, const float* B, float* C, int M, int N, int K) {
  gemm_nn(M, N, K, A, K, B, N, C, N);
}

void backward(const float* dC, const float* A, const float* B, float* dA, float* dB, int M, int N,
              int K) {
  std::vector<float> bt(static_cast<std::size_t>(N) * K);  // B^T: N x K
  transpose(B, K, N, bt.data());
  gemm_nn(M, K, N, dC, N, bt.data(), K, dA, K);  // dA = dC * B^T
  std::vector<float> at(static_cast<std::size_t>(K) * M);  // A^T: K x M
  transpose(A, M, K, at.data());
  gemm_nn(K, N, M, at.data(), M, dC, N, dB, N);  // dB = A^T * dC
}

const char* config_string() {
  return "GEMM_LOOP_ORDER=" KOPT_STR(GEMM_LOOP_ORDER) " GEMM_TILE_M=" KOPT_STR(GEMM_TILE_M)
         " GEMM_TILE_N=" KOPT_STR(GEMM_TILE_N) " GEMM_TILE_K=" KOPT_STR(GEMM_TILE_K)
         " GEMM_PACK_B=" KOPT_STR(GEMM_PACK_B) " GEMM_UNROLL=" KOPT_STR(GEMM_UNROLL)
         " GEMM_K_UNROLL=" KOPT_STR(GEMM_K_UNROLL) " GEMM_K_TAIL_FIX=" KOPT_STR(GEMM_K_TAIL_FIX);
}

}  // namespace cpu_gemm
