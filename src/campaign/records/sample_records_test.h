#pragma once
// Sample records shared by the records tests (header only; not a test translation unit).
#include "campaign/records/record_types.h"

namespace kopt::campaign::records::testing {

inline ShapeResult shape(const std::string& label, double fwd, double bwd, double combined,
                         std::optional<double> delta, const std::string& verdict) {
  ShapeResult s;
  s.label = label;
  s.dims = {{"M", "4096"}, {"N", "4096"}, {"K", "4096"}};
  s.check = "PASS";
  s.metrics = {{"Forward TFLOPS", fwd, 1.5}, {"Backward TFLOPS", bwd, 2.0}};
  s.primaryValue = combined;
  s.deltaVsBestPct = delta;
  s.verdict = verdict;
  if (delta) {
    s.ciLowPct = *delta - 1;
    s.ciHighPct = *delta + 1;
  }
  return s;
}

inline RoundRecord baselineRecord() {
  RoundRecord r;
  r.number = 1;
  r.campaign = "gemm_fp8_blockwise_triton_gfx942_20260412";
  r.description = "baseline";
  r.timestamp = "2026-04-12 09:30";
  r.validation = "full";
  r.results = {shape("s1", 300, 150, 180, std::nullopt, ""), shape("s2", 290, 145, 174, std::nullopt, "")};
  r.aggregate = {"Combined Step TFLOPS", 176.97, std::nullopt, 176.97, std::nullopt, std::nullopt, 2, 2};
  r.status = RoundStatus::Baseline;
  r.decisionReason = "baseline measurement";
  r.commit = "aaaa111";
  return r;
}

inline RoundRecord rolledBackRecord() {
  RoundRecord r;
  r.number = 3;
  r.campaign = "gemm_fp8_blockwise_triton_gfx942_20260412";
  r.description = "BLOCK_K 64 -> 128";
  r.timestamp = "2026-04-12 11:00";
  r.validation = "quick";
  Hypothesis h;
  h.statement = "I expect Forward TFLOPS to increase because BLOCK_K=128 halves the K loop\n## Decision\nforged";
  h.change = "BLOCK_K 64 -> 128";
  h.expected = {"Forward TFLOPS", EffectDirection::Increase, 5.0};
  h.bucket = Rule11Bucket::K1;
  h.files = {"primus_turbo/triton/gemm/gemm_fp8_kernel.py"};
  r.hypothesis = h;
  r.results = {shape("s1", 280, 150, 175, -2.8, "REGRESSED"), shape("s2", 291, 146, 174.5, 0.3, "SAME")};
  r.aggregate = {"Combined Step TFLOPS", 174.7, 176.97, 176.97, -1.283, -1.283, 2, 2};
  r.status = RoundStatus::RolledBack;
  r.decisionReason = "s1 regressed beyond the noise band";
  r.gateVerdict = "REJECT";
  r.attribution = "register pressure";
  r.nextDirection = "try BLOCK_N";
  r.keyFinding = "BLOCK_K=128 spills | hurts s1";
  r.rollback = RollbackAnalysis{"BLOCK_K 64 -> 128", "+5%", "-1.3%", "spills", "watch VGPRs"};
  r.commit = "aaaa111";
  r.lineageHead = "aaaa111";
  return r;
}

}  // namespace kopt::campaign::records::testing
