#include "rmsnorm/rmsnorm_reference.h"

#include <cmath>

#include <doctest/doctest.h>

using namespace kopt::kernels;
using kopt::hipbench::inputValue;

namespace {
RmsnormProblem tiny() {
  RmsnormProblem p;
  p.m = 5;
  p.n = 7;
  p.eps = 1e-6;
  p.x = {3, 10, 0, 1.0f, 0.0f};
  p.w = {3, 11, 0, 0.5f, 1.0f};
  p.dy = {3, 12, 0, 1.0f, 0.0f};
  return p;
}
}  // namespace

TEST_CASE("forward rows have unit RMS before the weight") {
  const RmsnormProblem p = tiny();
  for (int row = 0; row < p.m; ++row) {
    const RmsnormRow ref = rmsnormReferenceRow(p, row);
    double ss = 0;
    for (int j = 0; j < p.n; ++j) {
      const double xhat = ref.y[j] / inputValue(p.w, j);
      ss += xhat * xhat;
    }
    CHECK(ss / p.n == doctest::Approx(1.0).epsilon(1e-4));
  }
}

TEST_CASE("dx matches a finite-difference gradient of sum(dy * y)") {
  const RmsnormProblem p = tiny();
  const int row = 2;
  const RmsnormRow ref = rmsnormReferenceRow(p, row);
  std::vector<double> x(p.n), w(p.n), g(p.n);
  for (int j = 0; j < p.n; ++j) {
    x[j] = inputValue(p.x, (std::uint64_t)row * p.n + j);
    w[j] = inputValue(p.w, j);
    g[j] = inputValue(p.dy, (std::uint64_t)row * p.n + j);
  }
  auto loss = [&](const std::vector<double>& xs) {
    double ss = 0;
    for (double v : xs) ss += v * v;
    const double r = 1.0 / std::sqrt(ss / p.n + p.eps);
    double l = 0;
    for (int j = 0; j < p.n; ++j) l += g[j] * xs[j] * r * w[j];
    return l;
  };
  for (int j = 0; j < p.n; ++j) {
    auto plus = x, minus = x;
    plus[j] += 1e-6;
    minus[j] -= 1e-6;
    CHECK(ref.dx[j] == doctest::Approx((loss(plus) - loss(minus)) / 2e-6).epsilon(1e-5));
  }
}

TEST_CASE("dw sums dy * x * r over rows") {
  const RmsnormProblem p = tiny();
  std::vector<double> expected(p.n, 0.0);
  for (int row = 0; row < p.m; ++row) {
    const RmsnormRow ref = rmsnormReferenceRow(p, row);
    for (int j = 0; j < p.n; ++j) {
      expected[j] += inputValue(p.dy, (std::uint64_t)row * p.n + j) * inputValue(p.x, (std::uint64_t)row * p.n + j) * ref.r;
    }
  }
  const auto dw = rmsnormReferenceDw(p);
  for (int j = 0; j < p.n; ++j) CHECK(dw[j] == doctest::Approx(expected[j]));
}
