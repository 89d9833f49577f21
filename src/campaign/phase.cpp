#include "campaign/phase.h"

#include <string>

#include "util/name_table.h"

namespace kopt::campaign {

namespace {
constexpr util::EnumName<Phase> kPhaseNames[] = {
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

const char* toString(Phase phase) { return util::nameIn(kPhaseNames, phase, "UNKNOWN"); }

std::optional<Phase> phaseFromString(std::string_view text) { return util::valueNamed(kPhaseNames, text); }

const std::vector<Phase>& allPhases() {
  static const std::vector<Phase> phases = [] {
    std::vector<Phase> v;
    for (const auto& p : kPhaseNames) v.push_back(p.value);
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
