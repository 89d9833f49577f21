// The grouped CPU GEMM (see grouped_gemm.h). Knobs in grouped_config.h; every value is correct for
// every group size, including empty groups and sizes that are not a multiple of any block.
#include "grouped_gemm.h"

#include <cstddef>

#include "grouped_config.h"

#define KOPT_GG_STR2(x) #x
#define KOPT_GG_STR(x) KOPT_GG_STR2(x)

namespace cpu_gemm {
namespace grouped {
namespace {

constexpr int kChunk = GG_N_CHUNK;
constexpr int kRows = GG_ROW_BLOCK;
static_assert(kChunk >= 1 && kChunk <= 64, "GG_N_CHUNK must be 1..64");
static_assert(kRows >= 1 && kRows <= 8, "GG_ROW_BLOCK must be 1..8");

// R consecutive rows of one group: c[r][:] = a[r][:] * b for r < R (a: R x K, b: K x N, c: R x N).
// Columns go in chunks of kChunk held in a local accumulator the compiler can keep in registers;
// the N % kChunk columns left over are plain dot products.
template <int R>
void rows_times_b(const float* a, const float* b, float* c, int N, int K) {
  const std::size_t n = static_cast<std::size_t>(N), k_len = static_cast<std::size_t>(K);
  int j = 0;
  for (; j + kChunk <= N; j += kChunk) {
    float acc[R][kChunk] = {};
    for (int k = 0; k < K; ++k) {
      const float* b_row = b + static_cast<std::size_t>(k) * n + j;
      for (int r = 0; r < R; ++r) {
        const float av = a[r * k_len + k];
        for (int jj = 0; jj < kChunk; ++jj) acc[r][jj] += av * b_row[jj];
      }
    }
    for (int r = 0; r < R; ++r)
      for (int jj = 0; jj < kChunk; ++jj) c[r * n + j + jj] = acc[r][jj];
  }
  for (; j < N; ++j) {
    for (int r = 0; r < R; ++r) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += a[r * k_len + k] * b[static_cast<std::size_t>(k) * n + j];
      c[r * n + j] = s;
    }
  }
}

}  // namespace

void forward(const float* A, const float* B, float* C, const int* group_m, int groups, int M, int N,
             int K) {
  (void)M;  // implied by the group sizes; kept in the signature so a kernel can bound its writes
  const std::size_t n = static_cast<std::size_t>(N), k_len = static_cast<std::size_t>(K);
  std::size_t row = 0;  // first row of the current group in A and C
  for (int g = 0; g < groups; ++g) {
    const int m = group_m[g];
    const float* b = B + static_cast<std::size_t>(g) * k_len * n;
    int i = 0;
    for (; i + kRows <= m; i += kRows) rows_times_b<kRows>(A + (row + i) * k_len, b, C + (row + i) * n, N, K);
    for (; i < m; ++i) rows_times_b<1>(A + (row + i) * k_len, b, C + (row + i) * n, N, K);
    row += static_cast<std::size_t>(m);
  }
}

const char* config_string() {
  return "GG_N_CHUNK=" KOPT_GG_STR(GG_N_CHUNK) " GG_ROW_BLOCK=" KOPT_GG_STR(GG_ROW_BLOCK);
}

}  // namespace grouped
}  // namespace cpu_gemm
