#pragma once
// A shape's verdict against the current best, in one vocabulary for the gate, the records, the
// tools' results and the report. The statistical gate decides the first four (loop contract
// section 7; docs/statistics.md); the last two are not statistics: a shape whose Check failed,
// and a shape that was not measured. The records hold the names; everything that reads them
// back parses them here, with the same table that prints them.
#include <optional>
#include <string_view>

namespace kopt::measure {

enum class Verdict { Improved, Same, Regressed, Inconclusive, Fail, NotMeasured };

const char* toString(Verdict verdict);  // "IMPROVED", "SAME", "REGRESSED", "INCONCLUSIVE", "FAIL", "NOT_MEASURED"
std::optional<Verdict> verdictFromString(std::string_view text);  // the exact spelling only

// Every verdict, in the table's order.
constexpr Verdict kVerdicts[] = {Verdict::Improved,     Verdict::Same, Verdict::Regressed,
                                 Verdict::Inconclusive, Verdict::Fail, Verdict::NotMeasured};

}  // namespace kopt::measure
