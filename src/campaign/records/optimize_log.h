#pragma once
// logs/optimize.md: the append-only main log. Its sections (loop-contract section 3): Basic
// Information, Baseline, Optimization History (one "### round-N — STATUS" block a round), Current
// Best, Directions to Try, Verified Ineffective Directions, Termination Check, Final Report.
// Append-only means later updates of a section are appended as a new block with the same "## "
// heading and a round tag; readers take the last one. Render functions are pure; appendSection()
// writes a block once per ledger event (marker "<!-- kopt:event <seq> -->").
// The block formats keep what the turbo helper's parsers read: "### round-N — ..." history blocks
// with "Decision: ..." and "Result: <metric>: <value>" lines; "- [ ] direction" checklists;
// "| direction | round-N | reason |" ineffective rows.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "campaign/manifest.h"
#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

std::string renderLogTitle(const std::string& campaign);  // "# Optimization Log: <campaign>\n\n"
std::string renderBasicInformation(const Manifest& m, const std::string& campaign,
                                   const std::string& campaignDir, const std::string& branch);
std::string renderBaseline(const RoundRecord& baseline);
// "## Optimization History" is rendered once by renderHistoryHeading() (append it with the
// baseline); each round (the baseline included) then appends one renderHistoryBlock().
std::string renderHistoryHeading();
std::string renderHistoryBlock(const RoundRecord& round);

struct CurrentBest {
  int round = 1;
  std::string commit;
  std::string metric;
  std::optional<double> value;
  std::optional<double> vsBaselinePct;
  std::string asOfRound;  // "after round-7"
};
std::string renderCurrentBest(const CurrentBest& best);

struct DirectionToTry {
  std::string text;
  std::string category;  // "tiling", "memory", ...
  bool done = false;     // "- [x]"
};
std::string renderDirectionsToTry(const std::vector<DirectionToTry>& directions, int afterRound);

struct IneffectiveDirection {
  int round = 0;
  std::string direction;
  std::string reason;
  std::vector<std::string> modifiedFiles;
};
// The whole list so far (append-only: the newest block is complete on its own).
std::string renderIneffectiveDirections(const std::vector<IneffectiveDirection>& items, int afterRound);

struct TerminationCondition {
  std::string id;  // "T1".."T4"
  bool met = false;
  std::string detail;
};
struct TerminationRecord {
  int afterRound = 0;
  std::vector<TerminationCondition> conditions;
  bool stop = false;
  std::string decision;  // "continue" / "stop: T1 reached"
  bool stagnationReview = false;
  std::vector<DirectionToTry> stagnationDirections;  // >= 3 in >= 2 categories when required
};
std::string renderTerminationCheck(const TerminationRecord& t);

struct FinalReportRecord {
  std::string metric;
  std::optional<double> baselineValue, bestValue, improvementPct;
  int bestRound = 1;
  int acceptedRounds = 0, rolledBackRounds = 0, totalRounds = 0;
  std::vector<std::string> effectiveDirections;
  std::vector<std::string> ineffectiveDirections;
  std::vector<std::string> rolledBackWithProvenShape;  // not ineffective: a shape was proven faster
  std::vector<std::string> nextSteps;
  std::string realTrainingAudit;  // S_real / W_real / R_real and the inflation gap
  std::string finalAcceptance;    // full bench + full test suite outcome
  std::string reportPath;
};
std::string renderFinalReport(const FinalReportRecord& r);

// Appends `block` once for ledger event `seq`; writes the title first when the file is new.
void appendSection(const std::filesystem::path& optimizeMd, const std::string& campaign,
                   const std::string& block, unsigned long long seq);

}  // namespace kopt::campaign::records
