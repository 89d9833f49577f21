#include "measure/verdict.h"

namespace kopt::measure {

namespace {
struct VerdictName {
  Verdict verdict;
  const char* name;
};
constexpr VerdictName kVerdictNames[] = {
    {Verdict::Improved, "IMPROVED"},
    {Verdict::Same, "SAME"},
    {Verdict::Regressed, "REGRESSED"},
    {Verdict::Inconclusive, "INCONCLUSIVE"},
    {Verdict::Fail, "FAIL"},
    {Verdict::NotMeasured, "NOT_MEASURED"},
};
}  // namespace

const char* toString(Verdict verdict) {
  for (const auto& v : kVerdictNames) {
    if (v.verdict == verdict) return v.name;
  }
  return "INCONCLUSIVE";
}

std::optional<Verdict> verdictFromString(std::string_view text) {
  for (const auto& v : kVerdictNames) {
    if (text == v.name) return v.verdict;
  }
  return std::nullopt;
}

}  // namespace kopt::measure
