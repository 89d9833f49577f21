#include "campaign/pending_step.h"

namespace kopt::campaign {

using json = nlohmann::json;

namespace {

constexpr const char* kPrefix = "field 'pending.detail.";

std::string fieldError(const char* key, const char* expected) {
  return std::string(kPrefix) + key + "' must be " + expected;
}

// A measurement's fields are kopt's own bookkeeping: a wrong type makes state.json unreadable,
// and the engine rebuilds the state from the ledger (the step is then re-run, not resumed).
std::optional<std::string> readString(const json& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_string()) return fieldError(key, "a string");
  out = it->get<std::string>();
  return std::nullopt;
}

std::optional<std::string> readStrings(const json& j, const char* key, std::vector<std::string>& out) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (!it->is_array()) return fieldError(key, "a list of strings");
  for (const auto& x : *it) {
    if (!x.is_string()) return fieldError(key, "a list of strings");
    out.push_back(x.get<std::string>());
  }
  return std::nullopt;
}

std::optional<std::string> decodeMeasurement(const json& j, PendingMeasurement& m) {
  if (auto e = readString(j, "tag", m.tag)) return e;
  if (auto e = readStrings(j, "tags", m.tags)) return e;
  return readString(j, "artifacts", m.artifacts);
}

// A decision's fields are read the way the ledger check (unbackedDecisionReason) judges them: a
// value of the wrong type reads as a value that check refuses, so that a forged marker is refused,
// recorded in the ledger and discarded rather than silently dropped with an unreadable state.json.
std::string lenientString(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> lenientStrings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& x : *it) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  return out;
}

bool lenientFlag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

PendingDecision decodeDecision(const json& j) {
  PendingDecision d;
  if (auto it = j.find("accept"); it != j.end() && it->is_boolean()) d.accept = it->get<bool>();
  d.lineageHead = lenientString(j, "lineage_head");
  d.scope = lenientStrings(j, "scope");
  d.declared = lenientStrings(j, "declared");
  if (auto it = j.find("record"); it != j.end() && it->is_object()) d.record = *it;
  if (auto it = j.find("message"); it != j.end() && it->is_string()) d.message = it->get<std::string>();
  d.snapshotDone = lenientFlag(j, "snapshot_done");
  if (lenientFlag(j, "git_done")) d.git = GitApplied{lenientString(j, "commit"), lenientStrings(j, "restored")};
  return d;
}

json encodeDetail(const PendingCommand&) { return json::object(); }

json encodeDetail(const PendingMeasurement& m) {
  json j{{"tag", m.tag}};
  if (!m.tags.empty()) j["tags"] = m.tags;
  if (!m.artifacts.empty()) j["artifacts"] = m.artifacts;
  return j;
}

// The keys in the order kopt sets them; state.json sorts them anyway.
json encodeDetail(const PendingDecision& d) {
  json j = json::object();
  if (d.accept) j["accept"] = *d.accept;
  j["lineage_head"] = d.lineageHead;
  j["scope"] = d.scope;
  j["declared"] = d.declared;
  if (d.record) j["record"] = *d.record;
  if (d.message) j["message"] = *d.message;
  if (d.snapshotDone) j["snapshot_done"] = true;
  if (d.git) {
    j["commit"] = d.git->commit;
    j["restored"] = d.git->restored;
    j["git_done"] = true;
  }
  return j;
}

}  // namespace

std::vector<std::string> PendingMeasurement::tagsToDiscard() const {
  return tags.empty() ? std::vector<std::string>{tag} : tags;
}

PendingDetail pendingDetailKindFor(const std::string& step) {
  if (step == "decide") return PendingDecision{};
  if (step == "baseline" || step == "bench" || step == "validate" || step == "final") return PendingMeasurement{};
  return PendingCommand{};
}

std::optional<std::string> decodePendingDetail(const json& detail, PendingStep& into) {
  into.detail = pendingDetailKindFor(into.step);
  into.afterSeq = 0;
  if (!detail.is_object()) return std::string("field 'pending.detail' must be an object");
  if (auto it = detail.find("after_seq"); it != detail.end()) {
    const bool wholeAndNotNegative = it->is_number_unsigned() || (it->is_number_integer() && it->get<long long>() >= 0);
    if (!wholeAndNotNegative) return fieldError("after_seq", "a non-negative whole number");
    into.afterSeq = it->get<std::uint64_t>();
  }
  if (auto* m = std::get_if<PendingMeasurement>(&into.detail)) return decodeMeasurement(detail, *m);
  if (auto* d = std::get_if<PendingDecision>(&into.detail)) *d = decodeDecision(detail);
  return std::nullopt;
}

json pendingDetailToJson(const PendingStep& p) {
  json j = std::visit([](const auto& d) { return encodeDetail(d); }, p.detail);
  j["after_seq"] = p.afterSeq;
  return j;
}

}  // namespace kopt::campaign
