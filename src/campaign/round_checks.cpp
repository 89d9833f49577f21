#include "campaign/round_checks.h"

#include "campaign/candidate_tree.h"
#include "campaign/command_run.h"
#include "campaign/engine_steps.h"
#include "campaign/settings_diff.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

std::vector<std::string> namedFileChanges(const std::map<std::string, std::string>& was,
                                          const std::map<std::string, std::string>& now) {
  std::vector<std::string> changed;
  for (const auto& [path, digest] : now) {
    auto it = was.find(path);
    if (it == was.end()) changed.push_back(path + " (new)");
    else if (it->second != digest) changed.push_back(path + (digest == "<missing>" ? " (deleted)" : " (modified)"));
  }
  for (const auto& [path, digest] : was) {
    if (!now.count(path)) changed.push_back(path + " (no longer tracked)");
  }
  if (changed.size() > 8) {
    const std::size_t more = changed.size() - 8;
    changed.resize(8);
    changed.push_back("and " + std::to_string(more) + " more");
  }
  return changed;
}

std::vector<std::string> undeclaredChanges(const std::vector<lineage::ChangedPath>& changed,
                                           const std::vector<std::string>& declared) {
  std::vector<std::string> outside;
  for (const auto& c : changed) {
    if (!detail::inAnyScope(c.path, declared)) outside.push_back(c.path + " (" + lineage::toString(c.kind) + ")");
  }
  return outside;
}

std::vector<std::string> changedSettings(const lineage::GitRepo& repo, const std::string& head,
                                         const std::vector<lineage::ChangedPath>& changed) {
  std::vector<std::string> out;
  for (const auto& c : changed) {
    const std::string before = repo.fileAt(head, c.path).value_or("");
    const std::string after = c.kind == lineage::ChangeKind::Deleted ? "" : util::readFileIfExists(repo.topLevel() / c.path).value_or("");
    for (const auto& change : diffSettings(before, after, settingSyntaxFor(c.path)).counted) {
      out.push_back(c.path + ": " + change.describe());
    }
  }
  return out;
}

namespace detail {
namespace {

// Frozen files, schema, commands and shape lists as BASELINE froze them.
std::optional<Stop> checkFrozen(const OpenCampaign& s) {
  const auto diffs = verifyFrozen(s);
  if (diffs.empty()) return std::nullopt;
  Refusal r = s.refuse(RefusalCode::FrozenChanged,
                       "frozen files or settings changed since BASELINE; the harness, schema, shape set and "
                       "commands cannot change during a campaign",
                       "validate_round, after restoring them");
  for (const auto& d : diffs) r.details.push_back(d.message);
  return r;
}

// The hypothesis is frozen at begin_round, before any number of the round exists.
std::optional<Stop> checkHypothesis(const OpenCampaign& s, int round, const RoundPaths& rp, const std::string& wantSha) {
  std::string haveSha;
  try {
    haveSha = util::sha256FileHex(rp.hypothesis);
  } catch (const std::exception&) {
    haveSha = "(missing)";
  }
  if (haveSha == wantSha) return std::nullopt;
  Refusal r = s.refuse(RefusalCode::RecordTampered,
                       "rounds/round-" + std::to_string(round) +
                           "/hypothesis.json differs from the hypothesis recorded at begin_round; the hypothesis is "
                           "frozen before any number of the round exists",
                       "validate_round, after restoring hypothesis.json (a new hypothesis needs a new round)");
  r.details.push_back("sha256 recorded " + wantSha.substr(0, 16) + ".., now " + haveSha.substr(0, 16) + "..");
  return r;
}

// The diff against the round's head, which must touch only the declared files (HEAD itself is
// kopt's to move).
std::optional<Stop> checkDeclaredChanges(const OpenCampaign& s, const OpenRound& open, const lineage::GitRepo& repo,
                                         ValidateResult& result, std::vector<lineage::ChangedPath>& changed) {
  try {
    const std::string head = repo.headCommit();
    if (head != open.lineageHead) {
      return s.refuse(RefusalCode::HeadMoved,
                      "git HEAD moved from the round's head " + open.lineageHead.substr(0, 12) + " to " +
                          head.substr(0, 12) + "; commits are kopt's to make",
                      "validate_round, after `git reset --soft " + open.lineageHead.substr(0, 12) + "`");
    }
    changed = repo.changedSince(open.lineageHead);
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
  for (const auto& c : changed) result.changedFiles.push_back(c.path);
  if (auto outside = undeclaredChanges(changed, open.declaredFiles); !outside.empty()) {
    Refusal r = s.refuse(RefusalCode::UndeclaredFiles,
                         "the working tree changes files outside the hypothesis' declared set (" +
                             util::join(open.declaredFiles, ", ") + "); one round is one declared change",
                         "validate_round, after reverting those files (or finish this round and declare them in a new one)");
    r.details = outside;
    return r;
  }
  if (changed.empty() && !open.configOnly) {
    return s.refuse(RefusalCode::EmptyDiff,
                    "nothing changed since the round's head " + open.lineageHead.substr(0, 12) +
                        "; an empty change is only allowed for a config-only round",
                    "validate_round, after making the declared change");
  }
  result.checks.push_back(changed.empty() ? "config-only round, no file changes"
                                          : std::to_string(changed.size()) + " changed file(s), all declared");
  return std::nullopt;
}

// One hypothesis per round: a config-only round changes exactly one setting.
std::optional<Stop> checkOneSetting(const OpenCampaign& s, const OpenRound& open, const lineage::GitRepo& repo,
                                    const std::vector<lineage::ChangedPath>& changed, ValidateResult& result) {
  if (!open.configOnly || changed.empty()) return std::nullopt;
  std::vector<std::string> settings;
  try {
    settings = changedSettings(repo, open.lineageHead, changed);
  } catch (const std::exception& e) {
    return toolFailure(std::string("git: ") + e.what());
  }
  if (settings.size() > 1) {
    Refusal r = s.refuse(RefusalCode::TooManyChanges,
                         "a config-only round changes one setting, and this candidate changes " +
                             std::to_string(settings.size()) +
                             " of them; with two changes in one round no measurement can say which one did what",
                         "validate_round, after reverting all but one setting (one setting per round; split into "
                         "two rounds)");
    r.details = settings;
    return r;
  }
  if (settings.size() == 1) result.checks.push_back("config-only round changes one setting: " + settings.front());
  return std::nullopt;
}

// A final verdict on this exact tree stands: validating again would only re-roll the dice.
std::optional<Stop> checkNotJudgedYet(const OpenCampaign& s, int round, const RoundProgress* progress,
                                      const std::string& fingerprint) {
  const RoundValidated* earlier = progress ? progress->verdictOn(fingerprint) : nullptr;
  if (!earlier) return std::nullopt;
  return s.refuse(RefusalCode::NothingChanged,
                  "round " + std::to_string(round) + " was already validated on exactly these files (verdict " +
                      toString(earlier->decision) + "); measuring again until the numbers look better is not allowed",
                  "accept_or_revert (or change the code to fix it, then validate_round)");
}

}  // namespace

std::optional<Stop> checkRoundBeforeMeasuring(const OpenCampaign& s, const OpenRound& open, const RoundPaths& rp,
                                              ValidateResult& result, CheckedRound& checked) {
  if (auto stop = checkFrozen(s)) return stop;
  result.checks.push_back("frozen files, schema header, shape list and commands intact");
  int cachesRemoved = 0;
  if (auto failure = pythonShadowFailure(s, "validate_round", &cachesRemoved)) return *failure;
  result.checks.push_back("no untracked file in place of a tracked Python source" +
                          (cachesRemoved ? " (" + std::to_string(cachesRemoved) + " bytecode cache(s) removed)"
                                         : std::string()));
  const RoundProgress* progress = s.rounds.round(open.number);
  checked.hypothesisSha256 = progress ? progress->begun->hypothesisSha256 : "";
  if (auto stop = checkHypothesis(s, open.number, rp, checked.hypothesisSha256)) return stop;
  result.checks.push_back("hypothesis unchanged since begin_round");
  lineage::GitRepo repo(s.repo);
  std::vector<lineage::ChangedPath> changed;
  if (auto stop = checkDeclaredChanges(s, open, repo, result, changed)) return stop;
  if (auto stop = checkOneSetting(s, open, repo, changed, result)) return stop;
  checked.fingerprint = treeFingerprint(s.repo, kernelScope(s));
  return checkNotJudgedYet(s, open.number, progress, checked.fingerprint);
}

}  // namespace detail
}  // namespace kopt::campaign
