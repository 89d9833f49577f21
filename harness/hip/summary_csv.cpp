#include "harness/hip/summary_csv.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace kopt::hipbench {

const char* const kGemmHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
    "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";
const char* const kMemoryHeader =
    "label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,"
    "Forward Time (ms),Backward Time (ms),max_abs_err";

SummaryRow::SummaryRow() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  fwdMetric = fwdStddev = bwdMetric = bwdStddev = fwdMs = bwdMs = nan;
}

std::string formatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string summaryCsvText(Schema schema, const std::vector<SummaryRow>& rows) {
  const std::size_t checkColumns = schema == Schema::Gemm ? 3 : 1;
  std::string out = schema == Schema::Gemm ? kGemmHeader : kMemoryHeader;
  out += '\n';
  for (const auto& r : rows) {
    out += r.label + ',' + std::to_string(r.b) + ',' + std::to_string(r.m) + ',' + std::to_string(r.n) + ',';
    if (schema == Schema::Gemm) out += std::to_string(r.k) + ',';
    out += r.pass ? "PASS" : "FAIL";
    for (double v : {r.fwdMetric, r.fwdStddev, r.bwdMetric, r.bwdStddev, r.fwdMs, r.bwdMs}) out += ',' + formatNumber(v);
    for (std::size_t i = 0; i < checkColumns; ++i) {
      out += ',' + formatNumber(i < r.checkValues.size() ? r.checkValues[i] : std::numeric_limits<double>::quiet_NaN());
    }
    out += '\n';
  }
  return out;
}

}  // namespace kopt::hipbench
