#include "campaign/termination_conditions.h"

#include <set>

#include "util/text.h"

namespace kopt::campaign {

namespace {

bool compare(double v, const std::string& op, double target) {
  if (op == ">=") return v >= target;
  if (op == "<") return v < target;
  if (op == "<=") return v <= target;
  return v > target;
}

}  // namespace

Condition targetCondition(const std::optional<PerformanceTarget>& target, std::optional<double> best,
                          const std::string& unit) {
  Condition c{"T1", false, ""};
  if (!target) {
    c.detail = "no performance_target set";
  } else if (!best) {
    c.detail = "no measured best yet";
  } else if (!target->unit.empty() && util::toLower(target->unit) != util::toLower(unit)) {
    c.detail = "target is in " + target->unit + " but the primary metric is in " + unit;
  } else {
    c.met = compare(*best, target->comparison, target->value);
    c.detail = "best " + std::to_string(*best) + " " + unit + " vs target " + target->text;
  }
  return c;
}

Condition peakCondition(std::optional<double> peak, std::optional<double> best, const std::string& unit,
                        const std::string& targetGpu) {
  Condition c{"T2", false, ""};
  if (!peak || !(*peak > 0)) {
    c.detail = "no hardware peak known for " + targetGpu;
  } else if (!best) {
    c.detail = "no measured best yet";
  } else {
    const double fraction = *best / *peak;
    c.met = fraction >= kAcceptableFractionOfPeak;
    c.detail = "best is " + util::formatSignedPercent(100.0 * fraction, 1).substr(1) + " of the " +
               std::to_string(static_cast<long long>(*peak)) + " " + unit + " peak (stop at " +
               std::to_string(static_cast<int>(100 * kAcceptableFractionOfPeak)) + "%)";
  }
  return c;
}

Condition budgetCondition(int roundsUsed, std::optional<int> maxIterations, const std::optional<Duration>& maxDuration,
                          std::optional<long long> elapsedSeconds) {
  Condition c{"T3", false, ""};
  if (maxIterations) {
    c.met = roundsUsed >= *maxIterations;
    c.detail = std::to_string(roundsUsed) + " of max_iterations " + std::to_string(*maxIterations) + " rounds used";
  } else {
    c.detail = std::to_string(roundsUsed) + " rounds used; no max_iterations";
  }
  if (maxDuration && maxDuration->seconds > 0 && elapsedSeconds) {
    const bool over = *elapsedSeconds >= maxDuration->seconds;
    c.met = c.met || over;
    c.detail += "; " + std::to_string(*elapsedSeconds / 60) + " min of max_duration " + maxDuration->text +
                (over ? " used up" : " used");
  }
  return c;
}

Condition userStopCondition(bool userStop) {
  return {"T4", userStop, userStop ? "the user asked to stop" : "no stop request"};
}

std::string stopDecision(const std::vector<Condition>& conditions) {
  for (const auto& c : conditions) {
    if (c.met) return "stop: " + c.id + " (" + c.detail + ")";
  }
  return "continue";
}

std::variant<ParsedDirections, ToolFailure> parseDirections(const std::vector<std::string>& directions) {
  ParsedDirections out;
  std::set<std::string> categories;
  for (std::size_t i = 0; i < directions.size(); ++i) {
    const std::string& d = directions[i];
    const auto colon = d.find(':');
    if (colon == std::string::npos || util::trim(d.substr(0, colon)).empty() || util::trim(d.substr(colon + 1)).empty()) {
      return toolFailure("directions[" + std::to_string(i) + "] = '" + d + "' is not 'category: direction'",
                         "directions", "write each as 'category: direction', e.g. 'tiling: try 128x64 tiles'");
    }
    const std::string cat = util::toLower(util::trim(d.substr(0, colon)));
    categories.insert(cat);
    out.directions.push_back({cat, util::trim(d.substr(colon + 1))});
  }
  out.categories = static_cast<int>(categories.size());
  return out;
}

}  // namespace kopt::campaign
