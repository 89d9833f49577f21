#pragma once
// The referee's checks of a round before anything of it is built or measured, in the order
// validate_round runs them: the frozen set, Python shadows, the hypothesis as begun, the diff
// inside the declared files, one setting per config-only round, and no second verdict on the same
// tree. A failed check is a refusal (or a tool failure when git cannot answer); none records
// anything, so a refused call leaves the ledger as it was.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine_session.h"
#include "campaign/lineage/git_repo.h"

namespace kopt::campaign {

// What changed between two {path: sha256} lists of the files outside the kernel sources, one
// entry per file: "a (new)", "b (modified)", "c (deleted)" (now "<missing>"), "d (no longer
// tracked)". More than 8: the first 8 and "and N more", so a refusal stays readable.
std::vector<std::string> namedFileChanges(const std::map<std::string, std::string>& was,
                                          const std::map<std::string, std::string>& now);

// "path (kind)" for each changed path that lies in none of the declared scopes.
std::vector<std::string> undeclaredChanges(const std::vector<lineage::ChangedPath>& changed,
                                           const std::vector<std::string>& declared);

// "gemm_config.h: GEMM_TILE_M 64 -> 48", one line per setting the working tree changes against
// `head` (settings_diff.h). Throws what git throws.
std::vector<std::string> changedSettings(const lineage::GitRepo& repo, const std::string& head,
                                         const std::vector<lineage::ChangedPath>& changed);

namespace detail {

// What the checks established, for the measurement and the records.
struct CheckedRound {
  std::string fingerprint;       // the kernel files that will be built and measured
  std::string hypothesisSha256;  // as recorded at begin_round
};

// Runs the checks in order, stopping the call at the first that fails. Each check that passes
// adds its line to result.checks; the changed files go to result.changedFiles.
std::optional<Stop> checkRoundBeforeMeasuring(const OpenCampaign& session, const OpenRound& open,
                                              const RoundPaths& paths, ValidateResult& result, CheckedRound& checked);

}  // namespace detail
}  // namespace kopt::campaign
