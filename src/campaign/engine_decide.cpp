// accept_or_revert: kopt applies the gate's verdict mechanically; the agent only supplies the
// prose. ACCEPT commits exactly the declared files on the campaign branch (the best worktree
// follows at the next measurement); ROLLBACK restores the last accepted tree for every file in
// scope. Either way: kernel snapshot, summary.md, decision.json, trend row, optimize.md block.
//
// Crash safety: the whole decision (record, message, scope) is written into state.pending before
// anything changes; each sub-step (snapshot, git) is marked done in it as it completes, and the
// commit step recognises a commit it made before dying. completeDecision() therefore finishes an
// interrupted decision exactly once, whenever the campaign is next opened.
#include <algorithm>
#include <set>
#include <system_error>

#include "campaign/candidate_tree.h"
#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/lineage/git_process.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/loop_policy.h"
#include "campaign/measurement.h"
#include "campaign/pending_decision.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace detail {

namespace {

// A decision in state.json that the ledger does not back was not started by kopt: nothing of it
// is done, the marker goes, and the ledger says why (the agent sees the refusal).
Refusal discardUnbackedDecision(OpenCampaign& s, const std::string& why) {
  const PendingStep p = *s.state.pending;
  s.state.pending.reset();
  PendingDiscarded discarded;
  discarded.step = p.step;
  discarded.startedAt = p.startedAt;
  const PendingDecision* decision = p.decision();
  discarded.accept = decision && decision->accept ? json(*decision->accept) : json();
  discarded.reason = why;
  s.record(discarded, p.round);
  Refusal r = s.refuse(RefusalCode::RecordTampered,
                       "state.json holds an accept_or_revert of round-" + std::to_string(p.round) +
                           " to complete that the ledger does not back: " + why +
                           ". kopt discarded it; nothing was committed or restored",
                       nextToolFor(s.state.phase));
  r.details.push_back("decisions are taken by accept_or_revert on a verdict of validate_round, never by editing state.json");
  return r;
}

}  // namespace

namespace {

// Why `commit` does not hold the working tree's files under `scope` (empty: it does). Contents are
// compared by hash, blob against file, not through git diff/status, which a repository's own
// configuration (filters, attributes, index bits) can make blind.
std::string committedScopeMismatch(const lineage::GitRepo& repo, const std::string& commit,
                                   const std::vector<std::string>& scope) {
  const fs::path top = repo.topLevel();
  std::set<std::string> files;
  for (const auto& f : listScopeFiles(top, scope)) files.insert(f);
  std::vector<std::string> args{"ls-tree", "-r", "-z", "--name-only", commit, "--"};
  for (const auto& p : scope) args.push_back(p.empty() ? "." : p);
  auto listed = lineage::runGit(top, args);
  if (!listed.ok()) return "its file list cannot be read: " + util::trim(listed.err);
  std::set<std::string> committed;
  for (std::size_t start = 0, i = 0; i < listed.out.size(); ++i) {
    if (listed.out[i] != '\0') continue;
    const std::string f = listed.out.substr(start, i - start);
    if (!f.empty() && !util::startsWith(f, ".kopt/")) committed.insert(f);
    start = i + 1;
  }
  if (committed != files) return "another set of files";
  for (const auto& f : files) {
    const auto blob = repo.fileAt(commit, f);
    std::error_code ec;
    if (!blob || !fs::is_regular_file(top / f, ec) || util::sha256Hex(*blob) != util::sha256FileHex(top / f)) {
      return f + " differs";
    }
  }
  return {};
}

}  // namespace

namespace {

// Step 1: the candidate's kernel files copied into the round (a temp dir, then one rename).
void snapshotCandidate(OpenCampaign& s, PendingDecision& decision, const lineage::GitRepo& repo, const RoundPaths& rp) {
  if (decision.snapshotDone) return;
  const fs::path tmp = rp.dir / "kernel_snapshot.partial";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  repo.snapshotFiles(decision.scope, tmp);
  fs::remove_all(rp.kernelSnapshot, ec);
  fs::create_directories(tmp, ec);
  fs::rename(tmp, rp.kernelSnapshot);
  s.checkpoint("decide:after-snapshot");
  decision.snapshotDone = true;
  s.state.pending->detail = decision;
  s.saveState();
}

// An accept's commit of the declared files on the round's head; or, after a crash between the
// commit and the ledger, the commit kopt already made (only when it holds the validated tree).
std::variant<std::string, Refusal> commitAccepted(OpenCampaign& s, lineage::GitRepo& repo, const PendingDecision& decision,
                                                  int round, const std::vector<std::string>& changed) {
  const std::string& lineageHead = decision.lineageHead;
  const std::string message = decision.message.value_or("");
  const std::string head = repo.headCommit();
  if (head == lineageHead) {
    std::vector<std::string> paths;
    for (const auto& p : changed) {
      if (inAnyScope(p, decision.declared)) paths.push_back(p);
    }
    if (!paths.empty()) return repo.commitPaths(paths, message);
    // A config-only round with no file change: an empty commit still marks the round.
    auto out = lineage::runGit(s.repo, {"commit", "--allow-empty", "-q", "-m", message});
    if (!out.ok()) throw std::runtime_error("git commit --allow-empty: " + out.err);
    return repo.headCommit();
  }
  // Died after committing? Then HEAD is our commit on top of the round's head.
  auto parent = lineage::runGit(s.repo, {"rev-parse", "HEAD^"});
  auto subject = lineage::runGit(s.repo, {"log", "-1", "--format=%s", "HEAD"});
  const std::string firstLine = message.substr(0, message.find('\n'));
  if (!(parent.ok() && util::trim(parent.out) == lineageHead && util::trim(subject.out) == firstLine)) {
    return s.refuse(RefusalCode::HeadMoved,
                    "git HEAD moved from the round's head " + lineageHead.substr(0, 12) + " to " + head.substr(0, 12) +
                        " before kopt could commit round-" + std::to_string(round),
                    "accept_or_revert, after `git reset --soft " + lineageHead.substr(0, 12) + "`");
  }
  // A subject is text anyone can write: adopt the commit only when what it holds under the kernel
  // scope is byte for byte the tree that was validated (the working tree, whose fingerprint
  // unbackedDecisionReason() has just checked against the ledger).
  if (const std::string why = committedScopeMismatch(repo, head, decision.scope); !why.empty()) {
    return s.refuse(RefusalCode::HeadMoved,
                    "git HEAD " + head.substr(0, 12) + " carries kopt's message for round-" + std::to_string(round) +
                        " but not the validated tree (" + why + "); kopt did not make this commit",
                    "accept_or_revert, after `git reset --soft " + lineageHead.substr(0, 12) + "`");
  }
  return head;
}

// Step 2: git. Commit the declared files, or restore the last accepted tree.
std::optional<Refusal> applyToGit(OpenCampaign& s, PendingDecision& decision, lineage::GitRepo& repo, int round) {
  if (decision.git) return std::nullopt;
  const bool accept = decision.accept.value_or(false);
  GitApplied applied;
  for (const auto& c : repo.changedSince(decision.lineageHead)) {
    if (inAnyScope(c.path, decision.scope)) applied.restored.push_back(c.path);
  }
  if (accept) {
    auto commit = commitAccepted(s, repo, decision, round, applied.restored);
    if (auto* refusal = std::get_if<Refusal>(&commit)) return *refusal;
    applied.commit = std::get<std::string>(commit);
  } else {
    repo.restorePaths(decision.lineageHead, decision.scope);
    applied.commit = decision.lineageHead;
  }
  s.checkpoint(accept ? "decide:after-commit" : "decide:after-restore");
  decision.git = applied;
  s.state.pending->detail = decision;
  s.saveState();
  return std::nullopt;
}

void nextAfterDecision(AcceptOrRevertResult& result, int consecutiveRollbacks) {
  result.consecutiveRollbacks = consecutiveRollbacks;
  result.stagnationReviewRequired = loopPolicy().needsStagnationReview(consecutiveRollbacks);
  if (result.stagnationReviewRequired) {
    result.next.push_back({"termination_check", std::to_string(consecutiveRollbacks) +
                                                    " rollbacks in a row: a stagnation review (" + loopPolicy().reviewRule() +
                                                    ") comes before the next round"});
  } else {
    result.next.push_back({"termination_check", "check T1-T4 before the next round"});
    result.next.push_back({"begin_round", "the next hypothesis"});
  }
}

}  // namespace

Outcome<AcceptOrRevertResult> completeDecision(OpenCampaign& s) {
  if (!s.state.pending || !s.state.pending->decision()) return toolFailure("no decision is pending");
  {
    DecisionContext backing;
    backing.rounds = &s.rounds;
    backing.openRound = s.state.openRound;
    backing.kernelScope = kernelScope(s);
    backing.treeFingerprint = [&s, &backing] { return treeFingerprint(s.repo, backing.kernelScope); };
    if (const std::string why = unbackedDecisionReason(*s.state.pending, backing); !why.empty()) {
      return discardUnbackedDecision(s, why);
    }
  }
  // Backed: the marker has its decision and its record (unbackedDecisionReason checked both).
  PendingDecision decision = *s.state.pending->decision();
  const int round = s.state.pending->round;
  const bool accept = decision.accept.value_or(false);
  records::RoundRecord record = roundRecordFromJson(decision.record.value_or(json::object()));
  const RoundPaths rp = s.paths.round(round);
  lineage::GitRepo repo(s.repo);
  try {
    snapshotCandidate(s, decision, repo, rp);
    if (auto refusal = applyToGit(s, decision, repo, round)) return *refusal;
  } catch (const std::exception& e) {
    return toolFailure(std::string("applying the decision failed: ") + e.what(), "",
                       "fix the repository state; the next call finishes the decision");
  }
  record.commit = decision.git->commit;
  const std::vector<std::string> restored = decision.git->restored;
  RoundDecided decided;
  decided.status = record.status;
  decided.commit = record.commit;
  decided.record = record;
  decided.restoredFiles = restored;
  s.record(decided, round);
  AcceptOrRevertResult result;
  result.round = round;
  result.status = records::toString(record.status);
  result.commit = record.commit;
  if (!accept) result.restoredFiles = restored;
  result.summaryPath = rp.summary.string();
  nextAfterDecision(result, s.state.consecutiveRollbacks);
  result.phase = s.state.phase;
  return result;
}

}  // namespace detail

namespace {

// Whether the verdict lets the round be accepted. An AUDIT verdict needs a person: confirmed
// (audit_confirmed_by) it accepts, rejected (audit_rejected) it rolls back, neither is refused.
std::variant<bool, Refusal> acceptsVerdict(const OpenCampaign& s, const RoundValidated& validated,
                                           const AcceptOrRevertRequest& q) {
  if (validated.decision != RoundVerdict::Audit) return isAccepting(validated.decision);
  if (q.auditRejected) return false;
  if (!util::trim(q.auditConfirmedBy).empty()) return true;
  Refusal r = s.refuse(RefusalCode::AuditRequired,
                       "the verdict is AUDIT: the measured numbers are beyond speed of light or a >10x jump; a "
                       "person must confirm them (audit_confirmed_by + audit_note) or reject them (audit_rejected: "
                       "true) before kopt accepts anything",
                       "accept_or_revert with audit_confirmed_by, or with audit_rejected: true");
  for (const auto& f : validated.flags) r.details.push_back(f);
  r.field = "audit_confirmed_by";
  return r;
}

// The prose kopt writes into the records; a rollback also needs its analysis.
std::optional<ToolFailure> missingProse(const AcceptOrRevertRequest& q, bool accept) {
  if (util::trim(q.attribution).empty()) {
    return toolFailure("is required: what caused the observed effect (or its absence)", "attribution",
                       "pass attribution: a sentence or two");
  }
  if (util::trim(q.nextDirection).empty()) {
    return toolFailure("is required: the direction of the next round", "next_direction", "pass next_direction");
  }
  if (accept) return std::nullopt;
  if (util::trim(q.rootCause).empty()) {
    return toolFailure("is required for a rollback: why the change did not work", "root_cause",
                       "pass root_cause (the rollback analysis of the contract)");
  }
  if (util::trim(q.lesson).empty()) return toolFailure("is required for a rollback: what to remember", "lesson", "pass lesson");
  return std::nullopt;
}

records::RollbackAnalysis rollbackAnalysis(const records::Hypothesis& h, const records::RoundRecord& record,
                                           const AcceptOrRevertRequest& q) {
  records::RollbackAnalysis rb;
  rb.change = h.change;
  rb.expected = std::string(records::toString(h.expected.direction)) + " " + h.expected.metric + " by " +
                util::formatSignedPercent(h.expected.sizePct, 1);
  rb.actual = record.aggregate.deltaVsBestPct
                  ? util::formatSignedPercent(*record.aggregate.deltaVsBestPct) + " vs the best (" + record.gateVerdict + ")"
                  : record.gateVerdict;
  rb.rootCause = q.rootCause;
  rb.lesson = q.lesson;
  return rb;
}

// Rule 11: would the gain transfer to a real training step? By bucket unless the agent decides.
records::TransferCheck transferCheck(const records::Hypothesis& h, const records::RoundRecord& record,
                                     const AcceptOrRevertRequest& q, bool accept) {
  records::TransferCheck t;
  t.bucket = records::toString(h.bucket);
  t.cacheKey = q.cacheKey.empty() ? "none" : q.cacheKey;
  t.idAudit = q.idAudit;
  t.hitRateTrace = q.hitRateTrace;
  t.skewRobustness = q.skewRobustness;
  t.benchmarkGain = record.aggregate.deltaVsBestPct ? util::formatSignedPercent(*record.aggregate.deltaVsBestPct) : "n/a";
  t.estimatedRealGain = q.estimatedRealGain;
  const TransferDecision byBucket = !accept ? TransferDecision::RejectAsOverfit
                                    : h.bucket == records::Rule11Bucket::W1 ? TransferDecision::AcceptWithAsterisk
                                                                            : TransferDecision::AcceptAsReal;
  t.decision = q.transferDecision.empty() ? toString(byBucket) : q.transferDecision;
  return t;
}

// The verdict's record completed with the decision and the agent's prose.
records::RoundRecord decidedRecord(const RoundValidated& validated, const records::Hypothesis& h,
                                   const AcceptOrRevertRequest& q, bool accept, const std::string& lineageHead) {
  const RoundVerdict decision = validated.decision;
  records::RoundRecord record = validated.record;
  record.hypothesis = h;
  record.description = util::trim(q.description).empty() ? h.change : util::trim(q.description);
  record.description = record.description.substr(0, record.description.find('\n'));
  record.attribution = q.attribution;
  record.nextDirection = q.nextDirection;
  record.keyFinding = q.keyFinding.empty() ? record.description : q.keyFinding;
  const bool note = decision == RoundVerdict::AcceptWithNote || decision == RoundVerdict::Audit;
  record.status = accept ? (note ? records::RoundStatus::AcceptedWithNote : records::RoundStatus::Accepted)
                         : records::RoundStatus::RolledBack;
  if (decision == RoundVerdict::Audit) {
    record.decisionReason += accept ? "; audit confirmed by " + util::trim(q.auditConfirmedBy) +
                                          (q.auditNote.empty() ? "" : " (" + q.auditNote + ")")
                                    : "; audit rejected the flagged numbers";
  }
  if (!accept) record.rollback = rollbackAnalysis(h, record, q);
  record.transfer = transferCheck(h, record, q, accept);
  record.lineageHead = lineageHead;
  return record;
}

std::string acceptedCommitMessage(const OpenCampaign& s, int round, const records::RoundRecord& record,
                                  const records::Hypothesis& h) {
  lineage::CommitMessageInput msg;
  msg.op = s.manifest.targetOp;
  msg.backend = toString(s.manifest.targetBackend);
  msg.round = round;
  msg.oneLine = record.description;
  msg.hypothesis = h.statement;
  msg.before = record.aggregate.bestValue.value_or(0.0);
  msg.after = record.aggregate.value.value_or(0.0);
  msg.unit = measureMetric(s.manifest).unit();
  msg.campaignDir = s.paths.root.string();
  return lineage::acceptedRoundMessage(msg);
}

}  // namespace

Outcome<AcceptOrRevertResult> CampaignEngine::acceptOrRevert(const AcceptOrRevertRequest& q, const CallContext& ctx) {
  auto opened = detail::openCampaign(options_, q.campaignDir, CampaignTool::AcceptOrRevert, detail::OpenMode::Mutate);
  if (!opened.ok()) return errorOf<AcceptOrRevertResult>(opened);
  OpenCampaign& s = *opened.value();
  // An accept_or_revert the last server did not finish is finished now (same decision, same prose).
  if (s.state.pending && s.state.pending->step == "decide") return detail::completeDecision(s);
  detail::recoverPending(s, ctx);
  if (!allowedIn(CampaignTool::AcceptOrRevert, s.state.phase)) return detail::phaseRefusal(s);
  const OpenRound open = *s.state.openRound;
  const int round = open.number;
  const RoundProgress* progress = s.rounds.round(round);
  const RoundValidated* validated = progress ? progress->lastVerdict() : nullptr;
  if (!validated) return s.refuse(RefusalCode::WrongPhase, "round " + std::to_string(round) + " has no verdict", "validate_round");
  const auto accepts = acceptsVerdict(s, *validated, q);
  if (auto* refusal = std::get_if<Refusal>(&accepts)) return *refusal;
  const bool accept = std::get<bool>(accepts);
  if (auto failure = missingProse(q, accept)) return *failure;
  const std::vector<std::string> scope = detail::kernelScope(s);
  if (accept && detail::treeFingerprint(s.repo, scope) != validated->fingerprint) {
    return s.refuse(RefusalCode::ChangedSinceValidate,
                    "the kernel files changed after validate_round; kopt only commits what it measured",
                    "validate_round (again, on the current files)");
  }
  const records::Hypothesis h = progress->begun->hypothesis.value_or(records::Hypothesis{});
  const records::RoundRecord record = decidedRecord(*validated, h, q, accept, open.lineageHead);
  PendingDecision decision;
  decision.accept = accept;
  decision.lineageHead = open.lineageHead;
  decision.scope = scope;
  decision.declared = open.declaredFiles;
  decision.record = detail::roundRecordToJson(record);
  if (accept) decision.message = acceptedCommitMessage(s, round, record, h);
  s.beginStep(round, "decide", decision);
  s.checkpoint("decide:after-pending");
  return detail::completeDecision(s);
}

}  // namespace kopt::campaign
