#include "campaign/engine_record_json.h"

namespace kopt::campaign::detail {

using json = nlohmann::json;
using namespace records;

namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> optD(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}
std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

std::optional<RoundStatus> roundStatusFromString(const std::string& text) {
  for (auto s : {RoundStatus::Baseline, RoundStatus::Accepted, RoundStatus::AcceptedWithNote, RoundStatus::RolledBack}) {
    if (text == toString(s)) return s;
  }
  return std::nullopt;
}

json hypothesisToJson(const Hypothesis& h) {
  return json{{"statement", h.statement},
              {"change", h.change},
              {"expected_effect",
               {{"metric", h.expected.metric}, {"direction", toString(h.expected.direction)}, {"size_pct", h.expected.sizePct}}},
              {"rule11_bucket", toString(h.bucket)},
              {"files", h.files},
              {"config_only", h.configOnly},
              {"bottleneck", h.bottleneck},
              {"risk", h.risk}};
}

Hypothesis hypothesisFromJsonLenient(const json& j) {
  Hypothesis h;
  h.statement = str(j, "statement");
  h.change = str(j, "change");
  if (j.contains("expected_effect") && j["expected_effect"].is_object()) {
    const json& e = j["expected_effect"];
    h.expected.metric = str(e, "metric");
    h.expected.direction = str(e, "direction") == "decrease" ? EffectDirection::Decrease : EffectDirection::Increase;
    h.expected.sizePct = optD(e, "size_pct").value_or(0.0);
  }
  if (auto b = rule11BucketFromString(str(j, "rule11_bucket"))) h.bucket = *b;
  if (j.contains("files") && j["files"].is_array()) h.files = j["files"].get<std::vector<std::string>>();
  h.configOnly = j.value("config_only", false);
  h.bottleneck = str(j, "bottleneck");
  h.risk = str(j, "risk");
  return h;
}

json roundRecordToJson(const RoundRecord& r) {
  json shapes = json::array();
  for (const auto& s : r.results) {
    json dims = json::array();
    for (const auto& [k, v] : s.dims) dims.push_back({k, v});
    json metrics = json::array();
    for (const auto& m : s.metrics) metrics.push_back({{"name", m.name}, {"value", opt(m.value)}, {"stddev", opt(m.stddev)}});
    shapes.push_back({{"label", s.label},
                      {"dims", dims},
                      {"check", s.check},
                      {"metrics", metrics},
                      {"primary", opt(s.primaryValue)},
                      {"delta_vs_best_pct", opt(s.deltaVsBestPct)},
                      {"verdict", s.verdict},
                      {"ci_low_pct", opt(s.ciLowPct)},
                      {"ci_high_pct", opt(s.ciHighPct)}});
  }
  const Aggregate& a = r.aggregate;
  json j{{"number", r.number},
         {"campaign", r.campaign},
         {"description", r.description},
         {"timestamp", r.timestamp},
         {"validation", r.validation},
         {"shapes", shapes},
         {"aggregate",
          {{"metric", a.metric},
           {"value", opt(a.value)},
           {"best", opt(a.bestValue)},
           {"baseline", opt(a.baselineValue)},
           {"delta_vs_best_pct", opt(a.deltaVsBestPct)},
           {"delta_vs_baseline_pct", opt(a.deltaVsBaselinePct)},
           {"pass_count", a.passCount},
           {"shape_count", a.shapeCount}}},
         {"status", toString(r.status)},
         {"decision_reason", r.decisionReason},
         {"gate_verdict", r.gateVerdict},
         {"flags", r.flags},
         {"attribution", r.attribution},
         {"next_direction", r.nextDirection},
         {"key_finding", r.keyFinding},
         {"commit", r.commit},
         {"lineage_head", r.lineageHead}};
  if (r.hypothesis) j["hypothesis"] = hypothesisToJson(*r.hypothesis);
  if (r.rollback) {
    j["rollback"] = {{"change", r.rollback->change},
                     {"expected", r.rollback->expected},
                     {"actual", r.rollback->actual},
                     {"root_cause", r.rollback->rootCause},
                     {"lesson", r.rollback->lesson}};
  }
  if (r.transfer) {
    const auto& t = *r.transfer;
    j["transfer"] = {{"bucket", t.bucket},
                     {"cache_key", t.cacheKey},
                     {"id_audit", t.idAudit},
                     {"hit_rate_trace", t.hitRateTrace},
                     {"skew_robustness", t.skewRobustness},
                     {"benchmark_gain", t.benchmarkGain},
                     {"estimated_real_gain", t.estimatedRealGain},
                     {"decision", t.decision}};
  }
  return j;
}

RoundRecord roundRecordFromJson(const json& j) {
  RoundRecord r;
  r.number = j.value("number", 0);
  r.campaign = str(j, "campaign");
  r.description = str(j, "description");
  r.timestamp = str(j, "timestamp");
  r.validation = str(j, "validation");
  if (j.contains("shapes") && j["shapes"].is_array()) {
    for (const auto& s : j["shapes"]) {
      ShapeResult out;
      out.label = str(s, "label");
      if (s.contains("dims")) {
        for (const auto& d : s["dims"]) out.dims.emplace_back(d.at(0).get<std::string>(), d.at(1).get<std::string>());
      }
      out.check = str(s, "check");
      if (s.contains("metrics")) {
        for (const auto& m : s["metrics"]) out.metrics.push_back({str(m, "name"), optD(m, "value"), optD(m, "stddev")});
      }
      out.primaryValue = optD(s, "primary");
      out.deltaVsBestPct = optD(s, "delta_vs_best_pct");
      out.verdict = str(s, "verdict");
      out.ciLowPct = optD(s, "ci_low_pct");
      out.ciHighPct = optD(s, "ci_high_pct");
      r.results.push_back(std::move(out));
    }
  }
  if (j.contains("aggregate")) {
    const json& a = j["aggregate"];
    r.aggregate.metric = str(a, "metric");
    r.aggregate.value = optD(a, "value");
    r.aggregate.bestValue = optD(a, "best");
    r.aggregate.baselineValue = optD(a, "baseline");
    r.aggregate.deltaVsBestPct = optD(a, "delta_vs_best_pct");
    r.aggregate.deltaVsBaselinePct = optD(a, "delta_vs_baseline_pct");
    r.aggregate.passCount = a.value("pass_count", 0);
    r.aggregate.shapeCount = a.value("shape_count", 0);
  }
  r.status = roundStatusFromString(str(j, "status")).value_or(RoundStatus::RolledBack);
  r.decisionReason = str(j, "decision_reason");
  r.gateVerdict = str(j, "gate_verdict");
  if (j.contains("flags") && j["flags"].is_array()) r.flags = j["flags"].get<std::vector<std::string>>();
  r.attribution = str(j, "attribution");
  r.nextDirection = str(j, "next_direction");
  r.keyFinding = str(j, "key_finding");
  r.commit = str(j, "commit");
  r.lineageHead = str(j, "lineage_head");
  if (j.contains("hypothesis") && j["hypothesis"].is_object()) r.hypothesis = hypothesisFromJsonLenient(j["hypothesis"]);
  if (j.contains("rollback") && j["rollback"].is_object()) {
    const json& b = j["rollback"];
    r.rollback = RollbackAnalysis{str(b, "change"), str(b, "expected"), str(b, "actual"), str(b, "root_cause"), str(b, "lesson")};
  }
  if (j.contains("transfer") && j["transfer"].is_object()) {
    const json& t = j["transfer"];
    r.transfer = TransferCheck{str(t, "bucket"),         str(t, "cache_key"),         str(t, "id_audit"),
                               str(t, "hit_rate_trace"), str(t, "skew_robustness"),   str(t, "benchmark_gain"),
                               str(t, "estimated_real_gain"), str(t, "decision")};
  }
  return r;
}

}  // namespace kopt::campaign::detail
