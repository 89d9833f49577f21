#include "rmsnorm/rmsnorm_reference.h"

#include <cmath>
#include <mutex>

#include "harness/hip/parallel_for.h"

namespace kopt::kernels {

using hipbench::inputValue;

RmsnormRow rmsnormReferenceRow(const RmsnormProblem& p, int row) {
  RmsnormRow out;
  out.y.resize(p.n);
  out.dx.resize(p.n);
  std::vector<double> x(p.n), w(p.n), g(p.n);
  const std::uint64_t base = static_cast<std::uint64_t>(row) * p.n;
  double sumSquares = 0, dot = 0;
  for (int j = 0; j < p.n; ++j) {
    x[j] = inputValue(p.x, base + j);
    w[j] = inputValue(p.w, j);
    g[j] = inputValue(p.dy, base + j);
    sumSquares += x[j] * x[j];
    dot += g[j] * w[j] * x[j];
  }
  const double r = 1.0 / std::sqrt(sumSquares / p.n + p.eps);
  const double c = r * r * r * dot / p.n;
  for (int j = 0; j < p.n; ++j) {
    out.y[j] = x[j] * r * w[j];
    out.dx[j] = r * g[j] * w[j] - x[j] * c;
  }
  out.r = r;
  return out;
}

std::vector<double> rmsnormReferenceDw(const RmsnormProblem& p) {
  std::vector<double> dw(p.n, 0.0);
  std::mutex merge;
  const std::size_t chunks = 64;
  const std::size_t rowsPerChunk = (static_cast<std::size_t>(p.m) + chunks - 1) / chunks;
  hipbench::parallelFor(chunks, [&](std::size_t chunk) {
    const std::size_t begin = chunk * rowsPerChunk;
    const std::size_t end = std::min<std::size_t>(p.m, begin + rowsPerChunk);
    if (begin >= end) return;
    std::vector<double> local(p.n, 0.0);
    for (std::size_t row = begin; row < end; ++row) {
      const std::uint64_t base = row * p.n;
      double sumSquares = 0;
      for (int j = 0; j < p.n; ++j) {
        const double x = inputValue(p.x, base + j);
        sumSquares += x * x;
      }
      const double r = 1.0 / std::sqrt(sumSquares / p.n + p.eps);
      for (int j = 0; j < p.n; ++j) local[j] += inputValue(p.dy, base + j) * inputValue(p.x, base + j) * r;
    }
    std::lock_guard<std::mutex> lock(merge);
    for (int j = 0; j < p.n; ++j) dw[j] += local[j];
  });
  return dw;
}

}  // namespace kopt::kernels
