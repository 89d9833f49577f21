#pragma once
// Host (float64) reference of the sample GEMM, computed from the input generator rather than from
// device buffers: the reference sees the true inputs even if a kernel wrote into them. Large
// shapes are checked on a sampled block of rows x columns (plus the last row and column, where
// tile edges live), which costs (rows + cols) x depth generator calls instead of a full product.
#include <cstdint>
#include <vector>

#include "harness/hip/input_generator.h"

namespace kopt::kernels {

enum class GemmOutput { Out, Da, Dw };

struct GemmProblem {
  int batch = 1, m = 0, n = 0, k = 0;
  hipbench::InputStream a, w, g;  // the generator streams of the three inputs
};

// Rows and columns of the output `which` (Out: M x N, Da: M x K, Dw: N x K).
int outputRows(const GemmProblem& p, GemmOutput which);
int outputCols(const GemmProblem& p, GemmOutput which);

struct ReferenceBlock {
  int batch = 0;
  std::vector<int> rows, cols;
  std::vector<double> value;  // rows.size() x cols.size(), row-major
  std::vector<double> scale;  // sqrt(sum of squared products): the natural size of the rounding error
};

ReferenceBlock gemmReference(const GemmProblem& p, GemmOutput which, int batch, const std::vector<int>& rows,
                             const std::vector<int>& cols);

// `count` distinct indices in [0, extent): always 0 and extent - 1, the rest drawn from `seed`;
// every index when extent <= count.
std::vector<int> sampleIndices(int extent, int count, std::uint64_t seed);

}  // namespace kopt::kernels
