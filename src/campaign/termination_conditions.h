#pragma once
// termination_check's four conditions and the stagnation review's directions, as pure functions of
// what the engine read from the campaign (the best's value, the device's peak, rounds and time
// used): T1 the performance target, T2 80 % of the peak, T3 the iteration and time budgets, T4 the
// user's stop. The texts are the ones the agent and the records show.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "campaign/engine_types.h"
#include "campaign/ledger_events.h"
#include "campaign/manifest.h"
#include "campaign/refusal.h"

namespace kopt::campaign {

using Condition = TerminationResult::Condition;

// Stop when the best reaches this fraction of the device's peak (T2).
inline constexpr double kAcceptableFractionOfPeak = 0.80;

Condition targetCondition(const std::optional<PerformanceTarget>& target, std::optional<double> best,
                          const std::string& unit);
Condition peakCondition(std::optional<double> peak, std::optional<double> best, const std::string& unit,
                        const std::string& targetGpu);
// `elapsedSeconds`: since the user confirmed the target, when known.
Condition budgetCondition(int roundsUsed, std::optional<int> maxIterations, const std::optional<Duration>& maxDuration,
                          std::optional<long long> elapsedSeconds);
Condition userStopCondition(bool userStop);

// "continue", or "stop: T<n> (<detail>)" for the first condition met.
std::string stopDecision(const std::vector<Condition>& conditions);

// Each direction is "category: text" (category lower-cased, both trimmed); the error names the
// first that is not.
struct ParsedDirections {
  std::vector<StagnationDirection> directions;
  int categories = 0;  // distinct
};
std::variant<ParsedDirections, ToolFailure> parseDirections(const std::vector<std::string>& directions);

}  // namespace kopt::campaign
