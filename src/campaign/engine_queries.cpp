// Queries: campaign_status and the turbo helper's query tools. They read the ledger (the source of
// truth) without taking the campaign lock, so they answer while a bench runs, and never write.
#include <algorithm>
#include <system_error>

#include "campaign/engine.h"
#include "campaign/engine_record_json.h"
#include "campaign/engine_steps.h"
#include "campaign/loop_policy.h"
#include "campaign/measured_record.h"
#include "campaign/measurement_setup.h"
#include "campaign/record_renderings.h"
#include "campaign/records/trend_table.h"
#include "campaign/rolled_back_rounds.h"
#include "campaign/tips_store.h"
#include "util/atomic_file.h"
#include "util/file_lock.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using detail::OpenCampaign;
using json = nlohmann::json;

namespace {

Outcome<std::unique_ptr<OpenCampaign>> openQuery(const EngineOptions& options, const std::string& dir, const std::string& tool) {
  return detail::openCampaign(options, dir, CampaignTool::DefineTarget, detail::OpenMode::Query, tool);
}

std::string describePending(const PendingStep& p) {
  if (p.step == "decide") {
    return "accept_or_revert of round-" + std::to_string(p.round) + " was interrupted after it started (" + p.startedAt +
           "); the next state-changing call completes it (same decision, same prose)";
  }
  return "a " + p.step + " of round-" + std::to_string(p.round) + " was interrupted (" + p.startedAt +
         "); its partial files are discarded on the next call and it is re-run from scratch";
}

}  // namespace

namespace {

// A campaign that does not open for tampering: say exactly what is wrong and where the intact
// history stands.
StatusResult tamperedStatus(const EngineOptions& options, const std::string& campaignDir, const Refusal& r) {
  StatusResult st;
  auto dir = detail::resolveWorkspacePath(options, campaignDir, "campaign_dir", false);
  if (dir.ok()) {
    st.campaignDir = dir.value().string();
    Ledger ledger(CampaignPaths(dir.value()).ledger);
    const auto events = ledger.readAll();
    const CampaignState folded = detail::foldLedger(events);
    st.phase = folded.phase;
    st.lastRound = folded.lastRound;
    st.ledgerEvents = events.size();
  }
  st.ledgerOk = r.code != RefusalCode::LedgerTampered;
  st.integrity = toText(r);
  st.problems = r.details;
  st.expectation = "kopt refuses to continue until the tampering is undone";
  return st;
}

// Where the campaign stands: phase, rounds, the best, the baseline.
void fillProgress(StatusResult& st, const OpenCampaign& s) {
  st.campaignDir = s.paths.root.string();
  st.campaignName = s.name;
  st.repo = s.repo.string();
  st.phase = s.state.phase;
  st.expectation = expectationFor(s.state.phase);
  st.lastRound = s.state.lastRound;
  if (s.state.openRound) {
    st.openRound = s.state.openRound->number;
    st.declaredFiles = s.state.openRound->declaredFiles;
    const RoundProgress* open = s.rounds.round(s.state.openRound->number);
    if (const RoundValidated* v = open ? open->lastVerdict() : nullptr) st.lastValidation = toString(v->decision);
  }
  st.bestRound = s.state.bestRound;
  st.bestCommit = s.state.bestCommit;
  st.baselineCommit = s.state.baselineCommit;
  st.metric = measureMetric(s.manifest).name();
  if (auto b = detail::roundRecord(s, s.state.bestRound.value_or(1))) st.bestAggregate = b->aggregate.value;
  if (auto b = detail::roundRecord(s, 1)) st.baselineAggregate = b->aggregate.value;
  st.consecutiveRollbacks = s.state.consecutiveRollbacks;
  st.acceptedRounds = s.rounds.acceptedRounds();
  st.rolledBackRounds = s.rounds.rolledBackRounds();
  st.ledgerEvents = s.events.size();
}

// The frozen files and the rendered records against the ledger, and an interrupted step.
void fillIntegrity(StatusResult& st, const OpenCampaign& s, const EngineOptions& options) {
  st.ledgerOk = true;
  st.integrity = "ok: ledger chain intact, manifest.yaml matches its recorded hash";
  if (!s.state.frozen.empty()) {
    for (const auto& d : detail::verifyFrozen(s)) st.problems.push_back(d.message);
    if (!st.problems.empty()) st.integrity = "frozen files changed since BASELINE (validate_round will refuse)";
  }
  // Records edited behind kopt's back (not while a live call is writing them).
  if (auto records = detail::checkRenderings(s, false, s.recordsSeq);
      !records.differing.empty() && detail::tryLockCampaign(options, s.paths)) {
    const bool one = records.differing.size() == 1;
    st.integrity = "record_tampered: " + util::join(records.differing, ", ") + (one ? " differs" : " differ") +
                   " from what kopt renders from its ledger (the next state-changing call restores " +
                   (one ? "it" : "them") + " and is refused)";
    for (const auto& f : records.differing) st.problems.push_back(f + " was edited behind kopt's back");
  }
  if (s.state.pending) {
    st.pendingStep = s.state.pending->step + " (round-" + std::to_string(s.state.pending->round) + ")";
    st.recovery = describePending(*s.state.pending);
    // A live call holds the lock: then the step is running, not interrupted.
    if (!detail::tryLockCampaign(options, s.paths)) {
      st.recovery = "a " + s.state.pending->step + " is running now (another call holds the campaign)";
    }
  }
}

std::vector<NextStep> nextSteps(Phase phase, int consecutiveRollbacks) {
  std::vector<NextStep> next;
  switch (phase) {
    case Phase::Analyze:
      if (loopPolicy().needsStagnationReview(consecutiveRollbacks)) {
        next.push_back({"termination_check", "stagnation review required (" + std::to_string(consecutiveRollbacks) +
                                                 " rollbacks in a row)"});
      }
      next.push_back({"begin_round", "declare the next hypothesis"});
      next.push_back({"termination_check", "check T1-T4"});
      break;
    case Phase::Optimize:
      next.push_back({"rebuild_kernel", "after editing the declared files"});
      next.push_back({"run_tests", "correctness first"});
      next.push_back({"run_quick_bench", "an interleaved A/B preview"});
      next.push_back({"validate_round", "the verdict"});
      break;
    default:
      next.push_back({nextToolFor(phase), expectationFor(phase)});
  }
  return next;
}

}  // namespace

Outcome<StatusResult> CampaignEngine::campaignStatus(const std::string& campaignDir) {
  auto opened = openQuery(options_, campaignDir, "campaign_status");
  if (!opened.ok()) {
    if (!opened.refused()) return opened.failure();
    const Refusal& r = opened.refusal();
    if (r.code != RefusalCode::LedgerTampered && r.code != RefusalCode::RecordTampered &&
        r.code != RefusalCode::InvalidManifest)
      return r;
    return tamperedStatus(options_, campaignDir, r);
  }
  const OpenCampaign& s = *opened.value();
  StatusResult st;
  fillProgress(st, s);
  fillIntegrity(st, s, options_);
  st.next = nextSteps(s.state.phase, s.state.consecutiveRollbacks);
  return st;
}

std::vector<CampaignListing> CampaignEngine::listCampaigns() {
  std::vector<CampaignListing> out;
  std::error_code ec;
  std::vector<fs::path> roots{options_.workspaceRoot / ".kopt" / "campaigns"};
  for (const auto& entry : fs::directory_iterator(options_.workspaceRoot, ec)) {
    if (entry.is_directory(ec)) roots.push_back(entry.path() / ".kopt" / "campaigns");
  }
  for (const auto& root : roots) {
    if (!fs::is_directory(root, ec)) continue;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const CampaignPaths paths(entry.path());
      if (!fs::is_regular_file(paths.ledger, ec)) continue;
      const auto events = Ledger(paths.ledger).readAll();
      const CampaignState state = detail::foldLedger(events);
      CampaignListing l;
      l.campaignDir = entry.path().string();
      l.campaignName = entry.path().filename().string();
      l.phase = state.phase;
      l.lastRound = state.lastRound;
      if (state.openRound) l.openRound = state.openRound->number;
      out.push_back(l);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.campaignDir < b.campaignDir; });
  return out;
}

namespace {

TrendRowView viewOf(const OpenCampaign& s, const records::RoundRecord& r, const std::optional<records::RoundRecord>& base) {
  TrendRowView v;
  v.round = r.number;
  v.status = records::toString(r.status);
  v.description = r.description;
  v.keyFinding = r.keyFinding;
  const auto headers = records::trendColumnsFor(s.manifest.schema).valueHeaders;
  const auto values = detail::trendValues(s.manifest, r);
  const auto baseValues = base ? detail::trendValues(s.manifest, *base) : std::vector<std::optional<double>>{};
  auto pct = [&](std::size_t i) -> std::optional<double> {
    if (r.status == records::RoundStatus::Baseline || i >= baseValues.size() || !values[i] || !baseValues[i] ||
        !(*baseValues[i] > 0))
      return std::nullopt;
    return 100.0 * (*values[i] / *baseValues[i] - 1.0);
  };
  for (std::size_t i = 0; i < headers.size() && i < values.size(); ++i) {
    const std::string& h = headers[i];
    const bool peak = h.find("Peak") != std::string::npos;
    if (h.find("Combined") != std::string::npos) {
      v.stepGeomean = values[i];
      v.vsBaselineStepPct = pct(i);
    } else if (util::startsWith(h, "Fwd ")) {
      (peak ? v.fwdPeak : v.fwdAvg) = values[i];
      if (!peak) v.vsBaselineFwdPct = pct(i);
    } else if (util::startsWith(h, "Bwd ")) {
      (peak ? v.bwdPeak : v.bwdAvg) = values[i];
      if (!peak) v.vsBaselineBwdPct = pct(i);
    } else if (!peak && !v.fwdAvg) {
      v.fwdAvg = values[i];  // a custom schema's first metric
      v.vsBaselineFwdPct = pct(i);
    }
  }
  // Without a combined column (memory-bound, forward-only), the step is the primary aggregate.
  if (!v.stepGeomean && r.aggregate.value && *r.aggregate.value > 0) {
    v.stepGeomean = r.aggregate.value;
    if (base && base->aggregate.value && *base->aggregate.value > 0 && r.status != records::RoundStatus::Baseline)
      v.vsBaselineStepPct = 100.0 * (*r.aggregate.value / *base->aggregate.value - 1.0);
  }
  return v;
}

}  // namespace

Outcome<TrendResult> CampaignEngine::queryTrend(const std::string& campaignDir, int limit) {
  auto opened = openQuery(options_, campaignDir, "query_trend");
  if (!opened.ok()) return errorOf<TrendResult>(opened);
  const OpenCampaign& s = *opened.value();
  TrendResult t;
  t.campaignDir = s.paths.root.string();
  t.source = s.paths.performanceTrend.string();
  const auto base = detail::roundRecord(s, 1);
  for (const records::RoundRecord* r : s.rounds.records()) t.rows.push_back(viewOf(s, *r, base));
  const std::size_t keep = static_cast<std::size_t>(std::max(1, limit));
  if (t.rows.size() > keep) t.rows.erase(t.rows.begin(), t.rows.end() - static_cast<std::ptrdiff_t>(keep));
  t.rollbackStreak = s.state.consecutiveRollbacks;
  t.currentBestRound = s.state.bestRound;
  if (auto best = detail::roundRecord(s, s.state.bestRound.value_or(1)); best && best->aggregate.value) {
    t.currentBestScore[best->aggregate.metric] = *best->aggregate.value;
  }
  return t;
}

Outcome<IneffectiveResult> CampaignEngine::listIneffectiveDirections(const std::string& campaignDir) {
  auto opened = openQuery(options_, campaignDir, "list_ineffective_directions");
  if (!opened.ok()) return errorOf<IneffectiveResult>(opened);
  const OpenCampaign& s = *opened.value();
  IneffectiveResult out;
  out.campaignDir = s.paths.root.string();
  out.source = s.paths.optimizeLog.string();
  // optimize.md's "Verified Ineffective Directions" lists the same rounds (rolled_back_rounds.h).
  for (auto& r : rolledBackRounds(s.rounds, DirectionOutcome::Ineffective)) {
    out.items.push_back({r.round, std::move(r.direction), std::move(r.reason), std::move(r.modifiedFiles)});
  }
  return out;
}

Outcome<BestSummaryResult> CampaignEngine::readBestSummary(const std::string& campaignDir) {
  auto opened = openQuery(options_, campaignDir, "read_best_summary");
  if (!opened.ok()) return errorOf<BestSummaryResult>(opened);
  const OpenCampaign& s = *opened.value();
  BestSummaryResult out;
  out.campaignDir = s.paths.root.string();
  if (!s.state.bestRound) {
    out.note = "no accepted round yet; nothing to return";
    return out;
  }
  out.round = s.state.bestRound;
  const RoundPaths rp = s.paths.round(*s.state.bestRound);
  out.source = rp.summary.string();
  out.body = util::readFileIfExists(rp.summary).value_or("");
  if (*s.state.bestRound == 1) out.note = "no round accepted yet: the best is the baseline (round-1)";
  return out;
}

namespace {

Outcome<std::pair<fs::path, TipKey>> tipTarget(const EngineOptions& options, const std::string& campaignDir,
                                               std::string op, std::string backend, std::string gpu,
                                               const std::string& tipsRoot, const std::string& tool) {
  fs::path root = options.defaultTipsRoot;
  if (!campaignDir.empty()) {
    auto opened = openQuery(options, campaignDir, tool);
    if (!opened.ok()) return errorOf<std::pair<fs::path, TipKey>>(opened);
    const Manifest& m = opened.value()->manifest;
    if (op.empty()) op = m.targetOp;
    if (backend.empty()) backend = backendLower(m.targetBackend);
    if (gpu.empty()) gpu = m.targetGpu;
    auto manifestRoot = detail::manifestTipsRoot(options, m);
    if (!manifestRoot.ok()) return errorOf<std::pair<fs::path, TipKey>>(manifestRoot);
    root = manifestRoot.value();
  }
  if (!tipsRoot.empty()) {
    auto r = detail::resolveWorkspacePath(options, tipsRoot, "tips_root", false);
    if (!r.ok()) return errorOf<std::pair<fs::path, TipKey>>(r);
    root = r.value();
  }
  return std::make_pair(root, TipKey{gpu, op, backend});
}

}  // namespace

Outcome<TipsQueryResult> CampaignEngine::queryTips(const TipsQueryRequest& q) {
  auto target = tipTarget(options_, q.campaignDir, q.op, q.backend, q.gpu, q.tipsRoot, "query_tips");
  if (!target.ok()) return errorOf<TipsQueryResult>(target);
  const auto& [root, key] = target.value();
  TipsQueryResult out;
  if (key.op.empty() || key.backend.empty() || key.gpu.empty()) {
    out.note = "op, backend and gpu are needed (or a campaign_dir to take them from)";
    return out;
  }
  TipsStore store(root);
  try {
    const TipsQuery found = store.query(key, q.keyword);
    out.path = found.path.string();
    for (const auto& i : found.items) out.items.emplace_back(i.heading, i.body);
    if (!found.fileExists) out.note = "tips file does not exist yet";
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot read the tips: ") + e.what());
  }
  return out;
}

Outcome<AppendTipResult> CampaignEngine::appendTip(const AppendTipRequest& q) {
  auto target = tipTarget(options_, q.campaignDir, q.op, q.backend, q.gpu, q.tipsRoot, "append_tip");
  if (!target.ok()) return errorOf<AppendTipResult>(target);
  const auto& [root, key] = target.value();
  if (key.op.empty()) return toolFailure("is required (or a campaign_dir)", "op", "pass op, backend and gpu");
  if (key.backend.empty()) return toolFailure("is required (or a campaign_dir)", "backend", "pass op, backend and gpu");
  if (key.gpu.empty()) return toolFailure("is required (or a campaign_dir)", "gpu", "pass op, backend and gpu");
  if (util::trim(q.takeaway).empty() && util::trim(q.context).empty() && util::trim(q.signal).empty()) {
    return toolFailure("a tip needs at least a takeaway", "takeaway", "pass takeaway (and context, signal, applicability)");
  }
  NewTip tip;
  tip.round = q.round;
  if (!q.status.empty()) tip.status = q.status;
  tip.context = q.context;
  tip.signal = q.signal;
  tip.takeaway = q.takeaway;
  tip.applicability = q.applicability;
  try {
    AppendTipResult out;
    out.path = TipsStore(root).append(key, tip, util::formatManifestCreated(options_.clock())).string();
    return out;
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot append the tip: ") + e.what());
  }
}

std::optional<CampaignEngine::SchemaInfo> CampaignEngine::schemaInfo(const std::string& campaignDir) {
  auto opened = openQuery(options_, campaignDir, "parse_bench_csv");
  if (!opened.ok()) return std::nullopt;
  const OpenCampaign& s = *opened.value();
  SchemaInfo info;
  info.frozenHeader = detail::frozenHeader(s);
  info.labels = detail::expectedLabels(s, true);
  info.primaryMetric = measureMetric(s.manifest).name();
  info.campaignDir = s.paths.root;
  return info;
}

}  // namespace kopt::campaign
