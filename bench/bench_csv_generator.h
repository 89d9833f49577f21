#pragma once
// A synthetic frozen-schema GEMM table of any size, printed the way harnesses print (%.6g), for
// the parse/gate benchmarks.
#include <cstdio>
#include <string>

namespace kopt::bench {

inline std::string generateGemmCsv(std::size_t rows) {
  std::string out =
      "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
      "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr\n";
  out.reserve(rows * 130);
  char line[512];
  for (std::size_t i = 0; i < rows; ++i) {
    const long m = 256 * static_cast<long>(1 + i % 32), n = 512 * static_cast<long>(1 + (i / 32) % 16), k = 1024;
    const double fwd = 100.0 + static_cast<double>(i % 997) * 0.37, bwd = fwd * 0.52;
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * k;
    std::snprintf(line, sizeof line, "shape_%07zu,1,%ld,%ld,%ld,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", i, m, n, k,
                  i % 1000 == 999 ? "FAIL" : "PASS", fwd, fwd * 0.01, bwd, bwd * 0.012, flops / (fwd * 1e9),
                  2 * flops / (bwd * 1e9), 45.0 + static_cast<double>(i % 7), 40.5, 41.25);
    out += line;
  }
  return out;
}

}  // namespace kopt::bench
