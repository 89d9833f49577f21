#pragma once
// Host (float64) reference of the sample RMSNorm from the input generator (see gemm_reference.h
// for why not from device buffers).
#include <vector>

#include "harness/hip/input_generator.h"

namespace kopt::kernels {

struct RmsnormProblem {
  int m = 0, n = 0;
  double eps = 1e-6;
  hipbench::InputStream x, w, dy;
};

// One row of y and dx.
struct RmsnormRow {
  std::vector<double> y, dx;
  double r = 0;  // 1 / sqrt(mean(x^2) + eps)
};
RmsnormRow rmsnormReferenceRow(const RmsnormProblem& p, int row);

// dw over all rows (parallel over column chunks of rows).
std::vector<double> rmsnormReferenceDw(const RmsnormProblem& p);

}  // namespace kopt::kernels
