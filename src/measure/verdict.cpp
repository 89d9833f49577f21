#include "measure/verdict.h"

#include "util/name_table.h"

namespace kopt::measure {

namespace {
constexpr util::EnumName<Verdict> kVerdictNames[] = {
    {Verdict::Improved, "IMPROVED"},
    {Verdict::Same, "SAME"},
    {Verdict::Regressed, "REGRESSED"},
    {Verdict::Inconclusive, "INCONCLUSIVE"},
    {Verdict::Fail, "FAIL"},
    {Verdict::NotMeasured, "NOT_MEASURED"},
};
}  // namespace

const char* toString(Verdict verdict) { return util::nameIn(kVerdictNames, verdict, "INCONCLUSIVE"); }

std::optional<Verdict> verdictFromString(std::string_view text) { return util::valueNamed(kVerdictNames, text); }

}  // namespace kopt::measure
