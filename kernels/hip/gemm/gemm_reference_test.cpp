#include "gemm/gemm_reference.h"

#include <cmath>
#include <set>

#include <doctest/doctest.h>

using namespace kopt::kernels;
using kopt::hipbench::inputValue;

namespace {
GemmProblem tiny() {
  GemmProblem p;
  p.batch = 2;
  p.m = 3;
  p.n = 4;
  p.k = 5;
  p.a = {1, 0, 0, 1.0f, 0.0f};
  p.w = {1, 1, 0, 1.0f, 0.0f};
  p.g = {1, 2, 0, 1.0f, 0.0f};
  return p;
}
}  // namespace

TEST_CASE("the reference equals a direct triple loop for out, da and dw") {
  const GemmProblem p = tiny();
  auto A = [&](int b, int i, int k) { return (double)inputValue(p.a, ((std::uint64_t)b * p.m + i) * p.k + k); };
  auto W = [&](int b, int j, int k) { return (double)inputValue(p.w, ((std::uint64_t)b * p.n + j) * p.k + k); };
  auto G = [&](int b, int i, int j) { return (double)inputValue(p.g, ((std::uint64_t)b * p.m + i) * p.n + j); };
  for (int b = 0; b < p.batch; ++b) {
    const std::vector<int> mRows{0, 1, 2}, nAll{0, 1, 2, 3}, kAll{0, 1, 2, 3, 4};
    auto out = gemmReference(p, GemmOutput::Out, b, mRows, nAll);
    auto da = gemmReference(p, GemmOutput::Da, b, mRows, kAll);
    auto dw = gemmReference(p, GemmOutput::Dw, b, nAll, kAll);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double s = 0;
        for (int k = 0; k < p.k; ++k) s += A(b, i, k) * W(b, j, k);
        CHECK(out.value[i * p.n + j] == doctest::Approx(s));
      }
    for (int i = 0; i < p.m; ++i)
      for (int k = 0; k < p.k; ++k) {
        double s = 0;
        for (int j = 0; j < p.n; ++j) s += G(b, i, j) * W(b, j, k);
        CHECK(da.value[i * p.k + k] == doctest::Approx(s));
      }
    for (int j = 0; j < p.n; ++j)
      for (int k = 0; k < p.k; ++k) {
        double s = 0;
        for (int i = 0; i < p.m; ++i) s += G(b, i, j) * A(b, i, k);
        CHECK(dw.value[j * p.k + k] == doctest::Approx(s));
      }
  }
}

TEST_CASE("the error scale is the root of the summed squared products") {
  GemmProblem p = tiny();
  auto out = gemmReference(p, GemmOutput::Out, 0, {0}, {0});
  double sq = 0;
  for (int k = 0; k < p.k; ++k) {
    const double prod = inputValue(p.a, k) * (double)inputValue(p.w, k);
    sq += prod * prod;
  }
  CHECK(out.scale[0] == doctest::Approx(std::sqrt(sq)));
  CHECK(outputRows(p, GemmOutput::Dw) == p.n);
  CHECK(outputCols(p, GemmOutput::Out) == p.n);
  CHECK(outputCols(p, GemmOutput::Da) == p.k);
}

TEST_CASE("sampled indices include both edges, are distinct and reproducible") {
  auto a = sampleIndices(10000, 48, 5);
  auto b = sampleIndices(10000, 48, 5);
  CHECK(a == b);
  CHECK(a.size() == 48);
  CHECK(std::set<int>(a.begin(), a.end()).size() == 48);
  CHECK(a.front() == 0);
  CHECK(a.back() == 9999);
  CHECK(sampleIndices(5, 48, 1) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(sampleIndices(0, 48, 1).empty());
}
