#include "campaign/measured_record.h"

#include <cmath>

#include "campaign/engine_record_json.h"
#include "campaign/records/trend_table.h"
#include "measure/scoring.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

std::optional<records::RoundRecord> roundRecord(const OpenCampaign& session, int round) {
  const records::RoundRecord* r = session.rounds.record(round);
  return r ? std::optional<records::RoundRecord>(*r) : std::nullopt;
}

namespace {

std::optional<double> metricOf(const records::ShapeResult& s, const std::string& column) {
  for (const auto& m : s.metrics) {
    if (m.name == column) return m.value;
  }
  return std::nullopt;
}

std::optional<double> avgOf(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  const double g = measure::geomean(v);
  return std::isfinite(g) ? std::optional<double>(g) : std::nullopt;
}

}  // namespace

std::vector<std::optional<double>> trendValues(const Manifest& manifest, const records::RoundRecord& record) {
  const auto columns = records::trendColumnsFor(manifest.schema);
  std::vector<std::optional<double>> out;
  for (const auto& header : columns.valueHeaders) {
    const bool peak = header.find("Peak") != std::string::npos;
    std::vector<double> values;
    if (header.find("Combined") != std::string::npos) {
      for (const auto& s : record.results) {
        if (s.check != "PASS") continue;
        auto f = metricOf(s, "Forward TFLOPS");
        auto b = metricOf(s, "Backward TFLOPS");
        if (f && b && *f > 0 && *b > 0) values.push_back(measure::combinedStepFromTflops(*f, *b));
      }
    } else {
      std::string column;
      std::string unit = header.substr(header.rfind(' ') + 1);
      if (util::startsWith(header, "Fwd ")) column = "Forward " + unit;
      else if (util::startsWith(header, "Bwd ")) column = "Backward " + unit;
      else column = header.substr(0, header.rfind(' '));  // "<col> Avg" / "<col> Peak"
      for (const auto& s : record.results) {
        if (s.check != "PASS") continue;
        if (auto v = metricOf(s, column); v && *v > 0) values.push_back(*v);
      }
    }
    if (peak) out.push_back(values.empty() ? std::nullopt : std::optional<double>(*std::max_element(values.begin(), values.end())));
    else out.push_back(avgOf(values));
  }
  return out;
}

records::RoundRecord measuredRecord(const OpenCampaign& session, int round, const std::vector<PairRun>& pairs,
                                    const AssembledRuns& assembled, const measure::GateResult* gate, bool full) {
  records::RoundRecord r;
  r.number = round;
  r.campaign = session.name;
  r.timestamp = session.now();
  r.validation = full ? "full" : "quick";
  const auto metric = measureMetric(session.manifest);
  r.results = medianResults(pairs, true, metric);
  // Order and checks as assembled (a shape a crashed run never reported is an ERROR row).
  for (const auto& [label, check] : assembled.candidateChecks) {
    // (a structured binding is captured by name only from C++20: clang's fuzz build refuses it)
    auto it = std::find_if(r.results.begin(), r.results.end(), [&, &shape = label](const auto& s) { return s.label == shape; });
    if (it == r.results.end()) {
      records::ShapeResult missing;
      missing.label = label;
      missing.check = measure::toString(check);
      r.results.push_back(missing);
    } else {
      it->check = measure::toString(check);
    }
  }
  if (gate) {
    for (auto& s : r.results) {
      for (const auto& v : gate->shapes) {
        if (v.label != s.label) continue;
        s.verdict = measure::toString(v.verdict);
        s.deltaVsBestPct = 100.0 * (v.ratio - 1.0);
        s.ciLowPct = 100.0 * (v.ciLow - 1.0);
        s.ciHighPct = 100.0 * (v.ciHigh - 1.0);
      }
      if (s.check != "PASS") s.verdict = "FAIL";
    }
  }
  records::Aggregate& a = r.aggregate;
  a.metric = metric.name();
  a.shapeCount = static_cast<int>(r.results.size());
  std::vector<double> pass;
  for (const auto& s : r.results) {
    if (s.check == "PASS" && s.primaryValue && *s.primaryValue > 0) pass.push_back(*s.primaryValue);
  }
  a.passCount = static_cast<int>(pass.size());
  if (a.passCount == a.shapeCount && !pass.empty()) a.value = measure::geomean(pass);
  else a.value = 0.0;  // the contract: any Check failure rejects the candidate (aggregate = 0)
  if (session.state.bestRound) {
    if (auto best = roundRecord(session, *session.state.bestRound)) a.bestValue = best->aggregate.value;
  }
  if (auto base = roundRecord(session, 1)) a.baselineValue = base->aggregate.value;
  if (gate && gate->aggregate) a.deltaVsBestPct = 100.0 * (gate->aggregate->ratio - 1.0);
  else if (a.value && a.bestValue && *a.bestValue > 0) a.deltaVsBestPct = measure::percentChange(*a.value, *a.bestValue);
  if (a.value && *a.value > 0 && a.baselineValue && *a.baselineValue > 0)
    a.deltaVsBaselinePct = measure::percentChange(*a.value, *a.baselineValue);
  return r;
}

}  // namespace kopt::campaign::detail
