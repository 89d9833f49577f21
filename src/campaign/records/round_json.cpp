#include "campaign/records/round_json.h"

#include <cmath>

#include "util/atomic_file.h"

namespace kopt::campaign::records {
using nlohmann::json;

namespace {

json opt(std::optional<double> v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

}  // namespace

json toJson(const Hypothesis& h) {
  return json{{"statement", h.statement},
              {"change", h.change},
              {"expected_effect",
               {{"metric", h.expected.metric},
                {"direction", toString(h.expected.direction)},
                {"size_pct", h.expected.sizePct}}},
              {"rule11_bucket", toString(h.bucket)},
              {"files", h.files},
              {"config_only", h.configOnly},
              {"bottleneck", h.bottleneck},
              {"risk", h.risk}};
}

std::variant<Hypothesis, std::string> hypothesisFromJson(const json& j) {
  if (!j.is_object()) return std::string("hypothesis: expected an object");
  Hypothesis h;
  auto str = [&](const json& obj, const char* key, const std::string& field, std::string& out,
                 bool required) -> std::optional<std::string> {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required) return field + ": is required";
      return std::nullopt;
    }
    if (!it->is_string()) return field + ": must be a string";
    out = it->get<std::string>();
    if (required && out.find_first_not_of(" \t\r\n") == std::string::npos) {
      return field + ": must not be empty";
    }
    return std::nullopt;
  };
  if (auto e = str(j, "statement", "statement", h.statement, true)) return *e;
  if (auto e = str(j, "change", "change", h.change, true)) return *e;
  auto ee = j.find("expected_effect");
  if (ee == j.end() || !ee->is_object()) return std::string("expected_effect: is required ({metric, direction, size_pct})");
  if (auto e = str(*ee, "metric", "expected_effect.metric", h.expected.metric, true)) return *e;
  std::string dir;
  if (auto e = str(*ee, "direction", "expected_effect.direction", dir, true)) return *e;
  if (dir == "increase") h.expected.direction = EffectDirection::Increase;
  else if (dir == "decrease") h.expected.direction = EffectDirection::Decrease;
  else return "expected_effect.direction: '" + dir + "' is not one of increase, decrease";
  auto size = ee->find("size_pct");
  if (size == ee->end() || !size->is_number()) return std::string("expected_effect.size_pct: must be a number");
  h.expected.sizePct = size->get<double>();
  if (!std::isfinite(h.expected.sizePct) || h.expected.sizePct < 0 || h.expected.sizePct > 1000) {
    return std::string("expected_effect.size_pct: must be between 0 and 1000");
  }
  std::string bucket;
  if (auto e = str(j, "rule11_bucket", "rule11_bucket", bucket, true)) return *e;
  auto b = rule11BucketFromString(bucket);
  if (!b) return "rule11_bucket: '" + bucket + "' is not one of K1, K2, K3, K4, W1, W2, W3";
  h.bucket = *b;
  auto files = j.find("files");
  if (files != j.end() && !files->is_null()) {
    if (!files->is_array()) return std::string("files: must be a list of paths");
    for (std::size_t i = 0; i < files->size(); ++i) {
      if (!(*files)[i].is_string()) return "files[" + std::to_string(i) + "]: must be a string";
      h.files.push_back((*files)[i].get<std::string>());
    }
  }
  auto co = j.find("config_only");
  if (co != j.end() && !co->is_null()) {
    if (!co->is_boolean()) return std::string("config_only: must be true or false");
    h.configOnly = co->get<bool>();
  }
  if (auto e = str(j, "bottleneck", "bottleneck", h.bottleneck, false)) return *e;
  if (auto e = str(j, "risk", "risk", h.risk, false)) return *e;
  return h;
}

json toJson(const ShapeResult& s) {
  json dims = json::object();
  for (const auto& d : s.dims) dims[d.first] = d.second;
  json metrics = json::object();
  for (const auto& m : s.metrics) metrics[m.name] = {{"value", opt(m.value)}, {"stddev", opt(m.stddev)}};
  return json{{"label", s.label},         {"dims", dims},
              {"check", s.check},         {"metrics", metrics},
              {"primary", opt(s.primaryValue)}, {"delta_vs_best_pct", opt(s.deltaVsBestPct)},
              {"verdict", s.verdict},     {"ci_low_pct", opt(s.ciLowPct)},
              {"ci_high_pct", opt(s.ciHighPct)}};
}

json toJson(const Aggregate& a) {
  return json{{"metric", a.metric},
              {"value", opt(a.value)},
              {"best_value", opt(a.bestValue)},
              {"baseline_value", opt(a.baselineValue)},
              {"delta_vs_best_pct", opt(a.deltaVsBestPct)},
              {"delta_vs_baseline_pct", opt(a.deltaVsBaselinePct)},
              {"pass_count", a.passCount},
              {"shape_count", a.shapeCount}};
}

json toJson(const RollbackAnalysis& r) {
  return json{{"change", r.change}, {"expected", r.expected}, {"actual", r.actual},
              {"root_cause", r.rootCause}, {"lesson", r.lesson}};
}

json toJson(const TransferCheck& t) {
  return json{{"bucket", t.bucket},
              {"cache_key", t.cacheKey},
              {"id_audit", t.idAudit},
              {"hit_rate_trace", t.hitRateTrace},
              {"skew_robustness", t.skewRobustness},
              {"benchmark_gain", t.benchmarkGain},
              {"estimated_real_gain", t.estimatedRealGain},
              {"decision", t.decision}};
}

json decisionJson(const RoundRecord& r) {
  json shapes = json::array();
  for (const auto& s : r.results) shapes.push_back(toJson(s));
  json j{{"round", r.number},
         {"status", toString(r.status)},
         {"reason", r.decisionReason},
         {"gate_verdict", r.gateVerdict},
         {"flags", r.flags},
         {"validation", r.validation},
         {"aggregate", toJson(r.aggregate)},
         {"shapes", shapes},
         {"commit", r.commit},
         {"lineage_head", r.lineageHead},
         {"attribution", r.attribution},
         {"next_direction", r.nextDirection},
         {"key_finding", r.keyFinding},
         {"timestamp", r.timestamp}};
  if (r.rollback) j["rollback_analysis"] = toJson(*r.rollback);
  if (r.transfer) j["transfer_check"] = toJson(*r.transfer);
  return j;
}

void writeHypothesisJson(const std::filesystem::path& path, const Hypothesis& h, int round) {
  json j = toJson(h);
  j["round"] = round;
  util::writeFileAtomic(path, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

void writeDecisionJson(const std::filesystem::path& path, const RoundRecord& r) {
  util::writeFileAtomic(path, decisionJson(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace kopt::campaign::records
