#include "gemm/gemm_reference.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "harness/hip/parallel_for.h"

namespace kopt::kernels {

using hipbench::inputValue;

int outputRows(const GemmProblem& p, GemmOutput which) { return which == GemmOutput::Dw ? p.n : p.m; }
int outputCols(const GemmProblem& p, GemmOutput which) { return which == GemmOutput::Out ? p.n : p.k; }

namespace {
// The element of each input, with the batch offset.
float aAt(const GemmProblem& p, int b, int i, int kk) {
  return inputValue(p.a, (static_cast<std::uint64_t>(b) * p.m + i) * p.k + kk);
}
float wAt(const GemmProblem& p, int b, int j, int kk) {
  return inputValue(p.w, (static_cast<std::uint64_t>(b) * p.n + j) * p.k + kk);
}
float gAt(const GemmProblem& p, int b, int i, int j) {
  return inputValue(p.g, (static_cast<std::uint64_t>(b) * p.m + i) * p.n + j);
}
}  // namespace

ReferenceBlock gemmReference(const GemmProblem& p, GemmOutput which, int batch, const std::vector<int>& rows,
                             const std::vector<int>& cols) {
  // Every output is O[r][c] = sum_t L(r, t) * R(c, t); gather the needed L rows and R columns once.
  int depth = 0;
  switch (which) {
    case GemmOutput::Out: depth = p.k; break;  // out[i][j] = sum_k a[i][k] w[j][k]
    case GemmOutput::Da: depth = p.n; break;   // da[i][kk] = sum_n g[i][n] w[n][kk]
    case GemmOutput::Dw: depth = p.m; break;   // dw[n][kk] = sum_m g[m][n] a[m][kk]
  }
  std::vector<std::vector<double>> left(rows.size(), std::vector<double>(depth));
  std::vector<std::vector<double>> right(cols.size(), std::vector<double>(depth));
  hipbench::parallelFor(rows.size(), [&](std::size_t r) {
    for (int t = 0; t < depth; ++t) {
      switch (which) {
        case GemmOutput::Out: left[r][t] = aAt(p, batch, rows[r], t); break;
        case GemmOutput::Da: left[r][t] = gAt(p, batch, rows[r], t); break;
        case GemmOutput::Dw: left[r][t] = gAt(p, batch, t, rows[r]); break;
      }
    }
  }, /*grain=*/4);
  hipbench::parallelFor(cols.size(), [&](std::size_t c) {
    for (int t = 0; t < depth; ++t) {
      switch (which) {
        case GemmOutput::Out: right[c][t] = wAt(p, batch, cols[c], t); break;
        case GemmOutput::Da: right[c][t] = wAt(p, batch, t, cols[c]); break;
        case GemmOutput::Dw: right[c][t] = aAt(p, batch, t, cols[c]); break;
      }
    }
  }, /*grain=*/4);
  ReferenceBlock block;
  block.batch = batch;
  block.rows = rows;
  block.cols = cols;
  block.value.assign(rows.size() * cols.size(), 0.0);
  block.scale.assign(rows.size() * cols.size(), 0.0);
  hipbench::parallelFor(rows.size(), [&](std::size_t r) {
    for (std::size_t c = 0; c < cols.size(); ++c) {
      double sum = 0, sq = 0;
      for (int t = 0; t < depth; ++t) {
        const double prod = left[r][t] * right[c][t];
        sum += prod;
        sq += prod * prod;
      }
      block.value[r * cols.size() + c] = sum;
      block.scale[r * cols.size() + c] = std::sqrt(sq);
    }
  }, /*grain=*/4);
  return block;
}

std::vector<int> sampleIndices(int extent, int count, std::uint64_t seed) {
  std::vector<int> out;
  if (extent <= 0) return out;
  if (extent <= count) {
    for (int i = 0; i < extent; ++i) out.push_back(i);
    return out;
  }
  std::set<int> chosen{0, extent - 1};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, extent - 1);
  while (static_cast<int>(chosen.size()) < count) chosen.insert(pick(rng));
  return std::vector<int>(chosen.begin(), chosen.end());
}

}  // namespace kopt::kernels
