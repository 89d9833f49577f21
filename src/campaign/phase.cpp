#include "campaign/phase.h"

#include <string>

namespace kopt::campaign {

namespace {
struct PhaseName {
  Phase phase;
  const char* name;
};
constexpr PhaseName kPhaseNames[] = {
    {Phase::DefineTarget, "DEFINE_TARGET"},
    {Phase::PrepareEnvironment, "PREPARE_ENVIRONMENT"},
    {Phase::ReadHistoricalTips, "READ_HISTORICAL_TIPS"},
    {Phase::Baseline, "BASELINE"},
    {Phase::Analyze, "ANALYZE"},
    {Phase::Optimize, "OPTIMIZE"},
    {Phase::Validate, "VALIDATE"},
    {Phase::Report, "REPORT"},
    {Phase::Done, "DONE"},
};
}  // namespace

const char* toString(Phase phase) {
  for (const auto& p : kPhaseNames) {
    if (p.phase == phase) return p.name;
  }
  return "UNKNOWN";
}

std::optional<Phase> phaseFromString(std::string_view text) {
  for (const auto& p : kPhaseNames) {
    if (text == p.name) return p.phase;
  }
  return std::nullopt;
}

const std::vector<Phase>& allPhases() {
  static const std::vector<Phase> phases = [] {
    std::vector<Phase> v;
    for (const auto& p : kPhaseNames) v.push_back(p.phase);
    return v;
  }();
  return phases;
}

std::string_view allPhaseNames() {
  static const std::string names = [] {
    std::string s;
    for (const auto& p : kPhaseNames) {
      if (!s.empty()) s += ", ";
      s += p.name;
    }
    return s;
  }();
  return names;
}

}  // namespace kopt::campaign
