#pragma once
// The frozen-schema summary CSV (loop-contract section 4, shared formats): header line + one row
// per shape, LF line ends, no BOM, numbers as %.6g, "nan"/"inf" for non-finite values.
#include <string>
#include <vector>

namespace kopt::hipbench {

enum class Schema { Gemm, Memory };

extern const char* const kGemmHeader;
extern const char* const kMemoryHeader;

struct SummaryRow {
  std::string label;
  long long b = 1, m = 0, n = 0, k = 0;  // k unused by the memory schema
  bool pass = false;
  double fwdMetric, fwdStddev, bwdMetric, bwdStddev, fwdMs, bwdMs;  // TFLOPS or GB/s
  std::vector<double> checkValues;  // gemm: out_snr, da_snr, db_snr; memory: max_abs_err
  SummaryRow();
};

std::string formatNumber(double value);  // %.6g, nan, inf, -inf
std::string summaryCsvText(Schema schema, const std::vector<SummaryRow>& rows);

}  // namespace kopt::hipbench
