#pragma once
// The campaign's phases (the loop contract's section 1; docs/campaign-engine.md, "The loop, as
// tools"). Which tool needs which phase is the engine's table, not this file's.
#include <optional>
#include <string_view>
#include <vector>

namespace kopt::campaign {

enum class Phase {
  DefineTarget,
  PrepareEnvironment,
  ReadHistoricalTips,
  Baseline,
  Analyze,
  Optimize,
  Validate,
  Report,
  Done,
};

// "DEFINE_TARGET", "PREPARE_ENVIRONMENT", ..., "DONE".
const char* toString(Phase phase);
// Exact, upper-case names only (what toString returns); nullopt otherwise.
std::optional<Phase> phaseFromString(std::string_view text);
// All phases in loop order.
const std::vector<Phase>& allPhases();
// "DEFINE_TARGET, PREPARE_ENVIRONMENT, ..." for error messages.
std::string_view allPhaseNames();

}  // namespace kopt::campaign
