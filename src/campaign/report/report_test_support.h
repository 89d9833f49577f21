#pragma once
// Shared by the report tests: a realistic history (baseline, accepted, accepted with note, a
// regression rolled back, a correctness failure with no aggregate, a W1 round) and a small XML
// well-formedness check, so escaping bugs show up as test failures rather than broken charts.
#include <cctype>
#include <string>
#include <vector>

#include "campaign/report/campaign_history.h"

namespace kopt::campaign::report::testing {

inline ShapeResult shape(std::string label, double value, double baseValue, Verdict verdict) {
  ShapeResult s;
  s.label = std::move(label);
  s.value = value;
  s.speedupVsBaseline = (verdict == Verdict::Fail) ? kNaN : value / baseValue;
  s.verdict = verdict;
  return s;
}

inline CampaignHistory sampleHistory() {
  CampaignHistory h;
  h.campaignName = "gemm_fp8_blockwise_triton_gfx942_20260412";
  h.op = "gemm_fp8_blockwise";
  h.backend = "TRITON";
  h.gpu = "gfx942";
  h.deviceName = "AMD Instinct MI300X";
  h.metricName = "Combined Step TFLOPS";
  h.metricUnit = "TFLOPS";
  h.devicePeak = 1307.4;
  h.generatedAt = "2026-04-12 18:30";
  const std::vector<std::string> labels = {"M4096_N4096_K4096", "M8192_N8192_K8192", "M1024_N4096_K512",
                                           "M16384_N2048_K7168"};
  const std::vector<double> base = {300, 420, 120, 380};
  auto roundWith = [&](int number, RoundStatus status, std::string description, std::vector<double> factors,
                       std::vector<Verdict> verdicts, double aggregate, double lo, double hi) {
    RoundRecord r;
    r.number = number;
    r.status = status;
    r.description = std::move(description);
    r.aggregate = aggregate;
    r.noiseLo = lo;
    r.noiseHi = hi;
    for (size_t i = 0; i < labels.size(); ++i) r.shapes.push_back(shape(labels[i], base[i] * factors[i], base[i], verdicts[i]));
    return r;
  };
  using V = Verdict;
  RoundRecord r1 = roundWith(1, RoundStatus::Baseline, "baseline", {1, 1, 1, 1}, {V::Same, V::Same, V::Same, V::Same}, 281.0,
                             278.2, 283.8);
  r1.decisionReason = "baseline: A/A noise 1.0%";
  RoundRecord r2 = roundWith(2, RoundStatus::Accepted, "BLOCK_K 64 -> 128", {1.06, 1.05, 1.02, 1.07},
                             {V::Improved, V::Improved, V::Same, V::Improved}, 295.9, 278.2, 283.8);
  r2.bucket = Rule11Bucket::K1;
  r2.decisionReason = "3 shapes IMPROVED, none REGRESSED";
  r2.prediction = Prediction{"Combined Step TFLOPS", true, 4.0};
  r2.transfer = TransferCheck{Rule11Bucket::K1, kNaN, TransferDecision::AcceptAsReal, ""};
  RoundRecord r3 = roundWith(3, RoundStatus::RolledBack, "num_stages 2 -> 3", {1.03, 0.97, 0.90, 1.06},
                             {V::Same, V::Regressed, V::Regressed, V::Same}, 291.0, 293.0, 298.8);
  r3.bucket = Rule11Bucket::K1;
  r3.decisionReason = "M1024_N4096_K512 REGRESSED -7.8%";
  r3.prediction = Prediction{"Combined Step TFLOPS", true, 3.0};
  RoundRecord r4 = roundWith(4, RoundStatus::RolledBack, "fuse dequant into epilogue", {1, 1, 1, 1},
                             {V::Fail, V::Fail, V::Fail, V::Fail}, kNaN, 293.0, 298.8);
  r4.bucket = Rule11Bucket::K3;
  r4.decisionReason = "Check FAIL on 4 shapes (out_snr 12 dB < 25 dB)";
  r4.shapes[0].verdict = V::Fail;
  RoundRecord r5 = roundWith(5, RoundStatus::AcceptedWithNote, "cache quantized weight keyed on id+_version",
                             {1.09, 1.08, 1.01, 1.10}, {V::Improved, V::Improved, V::Inconclusive, V::Improved}, 303.5,
                             293.0, 298.8);
  r5.bucket = Rule11Bucket::W1;
  r5.decisionReason = "improved; M1024_N4096_K512 -1.0% (< 5%)";
  r5.prediction = Prediction{"Combined Step TFLOPS", true, 2.0};
  r5.transfer = TransferCheck{Rule11Bucket::W1, 1.2, TransferDecision::AcceptWithAsterisk, "quant 1.2% of step"};
  h.rounds = {r1, r2, r3, r4, r5};
  h.finalAggregate = 302.8;
  h.finalTestSummary = "pytest tests/pytorch/ops/test_gemm_fp8.py: 96 passed";
  h.terminationReason = "T4 the user stopped the campaign";
  h.nextSteps = {"Try a persistent-kernel schedule for the small-M shapes"};
  return h;
}

// Minimal XML well-formedness: balanced, properly nested elements; quoted attributes without raw
// '<'; every '&' starts a known entity or a character reference. Enough for the SVG we emit.
inline bool wellFormedXml(const std::string& xml, std::string* error) {
  std::vector<std::string> stack;
  auto fail = [&](const std::string& why, size_t at) {
    if (error) *error = why + " at offset " + std::to_string(at);
    return false;
  };
  auto entityOk = [&](size_t at) {
    static const char* entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const char* e : entities)
      if (xml.compare(at, std::string(e).size(), e) == 0) return true;
    if (xml.compare(at, 2, "&#") == 0) return xml.find(';', at) != std::string::npos;
    return false;
  };
  size_t i = 0;
  bool sawRoot = false;
  while (i < xml.size()) {
    char c = xml[i];
    if (c == '&') {
      if (!entityOk(i)) return fail("bare '&'", i);
      ++i;
      continue;
    }
    if (c != '<') {
      ++i;
      continue;
    }
    if (xml.compare(i, 2, "<?") == 0) {
      size_t end = xml.find("?>", i);
      if (end == std::string::npos) return fail("unterminated declaration", i);
      i = end + 2;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      size_t end = xml.find("-->", i);
      if (end == std::string::npos) return fail("unterminated comment", i);
      i = end + 3;
      continue;
    }
    bool closing = xml.compare(i, 2, "</") == 0;
    size_t j = i + (closing ? 2 : 1);
    size_t nameStart = j;
    while (j < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[j])) || xml[j] == '-' || xml[j] == ':' || xml[j] == '_'))
      ++j;
    std::string name = xml.substr(nameStart, j - nameStart);
    if (name.empty()) return fail("empty tag name", i);
    // Scan attributes up to '>' honouring quotes.
    char quote = 0;
    for (; j < xml.size(); ++j) {
      char d = xml[j];
      if (quote) {
        if (d == quote) quote = 0;
        else if (d == '<') return fail("raw '<' in attribute", j);
        else if (d == '&' && !entityOk(j)) return fail("bare '&' in attribute", j);
        continue;
      }
      if (d == '"' || d == '\'') quote = d;
      else if (d == '>') break;
      else if (d == '<') return fail("'<' inside a tag", j);
    }
    if (j >= xml.size()) return fail("unterminated tag", i);
    bool selfClosing = xml[j - 1] == '/';
    if (closing) {
      if (stack.empty() || stack.back() != name) return fail("mismatched </" + name + ">", i);
      stack.pop_back();
    } else if (!selfClosing) {
      if (stack.empty() && sawRoot) return fail("second root element", i);
      sawRoot = true;
      stack.push_back(name);
    }
    i = j + 1;
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">", xml.size());
  if (!sawRoot) return fail("no root element", 0);
  return true;
}

inline size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace kopt::campaign::report::testing
