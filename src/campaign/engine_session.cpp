#include "campaign/engine_session.h"

#include <system_error>

#include "campaign/ledger_key.h"
#include "campaign/path_guard.h"
#include "campaign/record_renderings.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

// ---- folding the ledger ----

namespace {

// One event's effect on the state machine (kopt's phases, the best, the rollback streak).
struct StateFolder {
  CampaignState& s;
  std::optional<int> round;

  void operator()(const TargetDefined&) {
    s = CampaignState{};
    s.phase = Phase::DefineTarget;
  }
  void operator()(const TargetConfirmed& e) {
    s.phase = Phase::PrepareEnvironment;
    s.confirmedBy = e.confirmedBy;
  }
  void operator()(const EnvironmentPrepared&) { s.phase = Phase::ReadHistoricalTips; }
  void operator()(const TipsRead&) { s.phase = Phase::Baseline; }
  void operator()(const BaselineRecorded& e) {
    s.phase = Phase::Analyze;
    s.lastRound = 1;
    s.bestRound = 1;
    s.bestCommit = e.commit;
    s.baselineCommit = s.bestCommit;
    s.frozen = e.frozen;
  }
  void operator()(const RoundBegun& e) {
    OpenRound r;
    r.number = round.value_or(s.lastRound + 1);
    r.lineageHead = e.lineageHead;
    r.declaredFiles = e.files;
    r.configOnly = e.configOnly;
    s.openRound = r;
    s.lastRound = std::max(s.lastRound, r.number);
    s.phase = Phase::Optimize;
  }
  // A fix inside the round: the round keeps its number and any verdict is stale.
  void operator()(const BuildFinished&) { fixInsideRound(); }
  void operator()(const TestsFinished&) { fixInsideRound(); }
  void operator()(const BenchFinished&) { fixInsideRound(); }
  void operator()(const RoundValidated&) { s.phase = Phase::Validate; }
  void operator()(const RoundDecided& e) {
    if (isAccepted(e.status)) {
      s.bestRound = round;
      s.bestCommit = e.commit;
      s.consecutiveRollbacks = 0;
    } else {
      ++s.consecutiveRollbacks;
    }
    s.openRound.reset();
    s.phase = Phase::Analyze;
  }
  void operator()(const FinalAcceptanceDone&) { s.phase = Phase::Report; }
  void operator()(const ReportWritten&) { s.phase = Phase::Done; }
  // No effect on the state machine.
  void operator()(const TerminationChecked&) {}
  void operator()(const TipAppended&) {}
  void operator()(const PendingDiscarded&) {}
  void operator()(const WorktreeBuilt&) {}

  void fixInsideRound() {
    if (s.openRound) s.phase = Phase::Optimize;
  }
};

}  // namespace

CampaignState foldLedger(const std::deque<TypedEvent>& events) {
  CampaignState s;
  for (const auto& e : events) {
    std::visit(StateFolder{s, e.round}, e.payload);
    s.ledgerSeq = e.seq;
  }
  return s;
}

CampaignState foldLedger(const std::vector<LedgerEvent>& ledgerEvents) {
  OpenCampaign decoded;
  loadEvents(decoded, ledgerEvents);
  return decoded.state;
}

std::optional<CodecError> loadEvents(OpenCampaign& s, const std::vector<LedgerEvent>& ledgerEvents) {
  std::optional<CodecError> error;
  s.events.clear();
  for (const auto& raw : ledgerEvents) {
    auto decoded = decode(raw);
    if (auto* e = std::get_if<CodecError>(&decoded)) {
      error = *e;
      break;
    }
    s.events.push_back(std::get<TypedEvent>(std::move(decoded)));
  }
  s.rounds = RoundLog(s.events);
  s.state = foldLedger(s.events);
  return error;
}

bool completesStep(const std::string& step, const std::string& type) {
  if (step == "build") return type == BuildFinished::kType;
  if (step == "tests") return type == TestsFinished::kType;
  if (step == "bench") return type == BenchFinished::kType;
  if (step == "validate") return type == RoundValidated::kType;
  if (step == "decide") return type == RoundDecided::kType;
  if (step == "baseline") return type == BaselineRecorded::kType;
  if (step == "final") return type == FinalAcceptanceDone::kType;
  if (step == "prepare") return type == EnvironmentPrepared::kType;
  if (step == "report") return type == ReportWritten::kType;
  return false;
}

// ---- OpenCampaign ----

std::uint64_t OpenCampaign::record(LedgerPayload payload, std::optional<int> round) {
  std::visit([this](auto& e) { if (e.at.empty()) e.at = now(); }, payload);
  const std::string type = eventType(payload);
  const std::uint64_t seq = ledger->appendEvent(type, round, encode(payload));
  checkpoint("record:after-append:" + type);
  events.push_back(TypedEvent{seq, nowIso(), round, std::move(payload)});
  rounds.add(events.back());
  const auto pending = state.pending;
  state = foldLedger(events);
  if (pending && !completesStep(pending->step, type)) state.pending = pending;
  writeEventRecords(*this, events.back());
  checkpoint("record:after-records:" + type);
  state.ledgerSeq = seq;
  saveState();
  return seq;
}

void OpenCampaign::beginStep(int round, const std::string& step, PendingDetail detail) {
  PendingStep p;
  p.round = round;
  p.step = step;
  p.startedAt = nowIso();
  p.afterSeq = events.empty() ? 0 : events.back().seq;
  p.detail = std::move(detail);
  state.pending = p;
  saveState();
}

void OpenCampaign::clearStep() {
  if (!state.pending) return;
  state.pending.reset();
  saveState();
}

void OpenCampaign::saveState() { StateStore(paths.state).save(state); }

std::string OpenCampaign::now() const {
  return util::formatManifestCreated(options->clock ? options->clock() : std::chrono::system_clock::now());
}

std::string OpenCampaign::nowIso() const {
  return util::formatIso8601Utc(options->clock ? options->clock() : std::chrono::system_clock::now());
}

Refusal OpenCampaign::refuse(RefusalCode code, std::string why, std::string toolToCall) const {
  Refusal r;
  r.code = code;
  r.tool = toolLabel.empty() ? toolName(tool) : toolLabel;
  r.why = std::move(why);
  r.phaseNow = state.phase;
  if (toolLabel.empty()) r.phaseNeeded = phasesFor(tool);
  r.toolToCall = std::move(toolToCall);
  return r;
}

PlaceholderValues OpenCampaign::placeholders(const fs::path& tree) const {
  PlaceholderValues v;
  v.campaignDir = paths.root.string();
  v.repoDir = tree.string();
  v.targetGpu = manifest.targetGpu;
  return v;
}

// ---- opening ----

Outcome<fs::path> resolveWorkspacePath(const EngineOptions& options, const std::string& userPath,
                                       const std::string& argument, bool mustExist) {
  if (userPath.empty()) {
    return toolFailure("is required", argument, "pass the " + argument + " (absolute, or relative to the workspace " +
                                                    options.workspaceRoot.string() + ")");
  }
  PathGuardOptions guard;
  guard.mustExist = mustExist;
  guard.rootLabel = "the server's workspace";
  auto resolved = resolveInside(options.workspaceRoot, userPath, argument, guard);
  if (auto* refusal = std::get_if<PathRefusal>(&resolved)) {
    Refusal r;
    r.code = RefusalCode::PathOutside;
    r.why = refusal->message;
    r.field = argument;
    return r;
  }
  return std::get<fs::path>(resolved);
}

namespace {

// The manifest hash the last event that recorded one holds ("" when none did).
std::string expectedManifestSha(const std::deque<TypedEvent>& events) {
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (const auto* e = it->as<TargetDefined>()) return e->manifestSha256;
    if (const auto* e = it->as<TargetConfirmed>()) return e->manifestSha256;
    if (const auto* e = it->as<EnvironmentPrepared>()) return e->manifestSha256;
    if (const auto* e = it->as<BaselineRecorded>()) return e->manifestSha256;
  }
  return {};
}

}  // namespace

Outcome<fs::path> manifestTipsRoot(const EngineOptions& options, const Manifest& manifest) {
  if (manifest.tipsRoot.empty()) return options.defaultTipsRoot;
  return resolveWorkspacePath(options, manifest.tipsRoot, "tips_root", false);
}

fs::path campaignLockPath(const EngineOptions& options, const CampaignPaths& paths) {
  const fs::path dir = options.ledgerKeyDir.empty() ? defaultLedgerKeyDir() : options.ledgerKeyDir;
  if (dir.empty()) return paths.lock;
  fs::path p = ledgerKeyPath(dir, paths.root);
  p.replace_extension(".lock");
  return p;
}

std::optional<util::FileLock> tryLockCampaign(const EngineOptions& options, const CampaignPaths& paths) {
  return util::FileLock::tryAcquire(campaignLockPath(options, paths));
}

std::optional<Refusal> keyLedger(OpenCampaign& s, bool create) {
  const fs::path dir = s.options->ledgerKeyDir.empty() ? defaultLedgerKeyDir() : s.options->ledgerKeyDir;
  std::optional<std::string> key;
  try {
    key = create ? std::optional<std::string>(createLedgerKey(dir, s.paths.root)) : loadLedgerKey(dir, s.paths.root);
  } catch (const std::exception& e) {
    if (create) return std::nullopt;  // no key store: the campaign is unkeyed (sha256 chain only)
    Refusal r = s.refuse(RefusalCode::LedgerTampered, std::string("the ledger's key cannot be read: ") + e.what());
    return r;
  }
  if (key) {
    s.ledger->setKey(*key);
    return std::nullopt;
  }
  // No key file: an unkeyed campaign, unless its lines carry MACs (a keyed ledger whose key is gone).
  const auto events = s.ledger->readAll();
  if (!events.empty() && !events.front().mac.empty()) {
    Refusal r = s.refuse(RefusalCode::LedgerTampered,
                         "the ledger is keyed but its key is missing (" + ledgerKeyPath(dir, s.paths.root).string() +
                             "); without it kopt cannot tell its own lines from forged ones");
    r.details.push_back("restore the key file (a campaign directory moved elsewhere keeps its key under the old path's name)");
    return r;
  }
  return std::nullopt;
}

Outcome<std::unique_ptr<OpenCampaign>> openCampaign(const EngineOptions& options, const std::string& campaignDir,
                                              CampaignTool tool, OpenMode mode, const std::string& toolLabel) {
  auto dir = resolveWorkspacePath(options, campaignDir, "campaign_dir", false);
  if (!dir.ok()) {
    if (dir.refused()) {
      Refusal r = dir.refusal();
      r.tool = toolLabel.empty() ? toolName(tool) : toolLabel;
      return r;
    }
    return dir.failure();
  }
  auto s = std::make_unique<OpenCampaign>();
  s->options = &options;
  s->tool = tool;
  s->toolLabel = toolLabel;
  s->paths = CampaignPaths(dir.value());
  std::error_code ec;
  if (!fs::exists(s->paths.ledger, ec)) {
    Refusal r;
    r.code = RefusalCode::NotFound;
    r.tool = toolLabel.empty() ? toolName(tool) : toolLabel;
    r.why = "no campaign at " + s->paths.root.string() + " (no ledger.jsonl there)";
    r.field = "campaign_dir";
    r.toolToCall = "define_target";
    return r;
  }
  if (mode == OpenMode::Mutate) {
    s->lock = tryLockCampaign(options, s->paths);
    if (!s->lock) {
      Refusal r;
      r.code = RefusalCode::Busy;
      r.tool = toolName(tool);
      r.why = "another call is working on this campaign right now (a build, test or benchmark may be running)";
      r.toolToCall = "poll_job (if you started it with async: true) or campaign_status";
      return r;
    }
  }
  s->ledger = std::make_unique<Ledger>(s->paths.ledger);
  if (auto refused = keyLedger(*s, false)) return *refused;
  auto verification = s->ledger->verify();
  if (verification.onlyTornTail()) {
    if (mode == OpenMode::Mutate) {
      s->ledger->repairTornTail();
      s->recoveryNotes.push_back("the last ledger line was cut by a crash mid-append and was removed");
      verification = s->ledger->verify();
    } else {
      verification.problem = LedgerProblem::None;  // readAll() stops before the torn line
    }
  }
  const std::optional<CodecError> undecodable = loadEvents(*s, s->ledger->readAll());
  if (!verification.ok()) {
    Refusal r = s->refuse(RefusalCode::LedgerTampered,
                          "the ledger's hash chain is broken: " + verification.reason +
                              ". A record was edited, removed or reordered behind kopt's back; kopt will not "
                              "continue on a history it cannot trust");
    r.details.push_back(std::string("problem: ") + toString(verification.problem));
    r.toolToCall = "";
    return r;
  }
  if (undecodable) {
    return toolFailure("the ledger does not read as kopt's events: " + undecodable->message, "",
                       "open the campaign with the kopt version that wrote it");
  }
  if (s->events.empty() || !s->events.front().is<TargetDefined>()) {
    return s->refuse(RefusalCode::NotFound, "the ledger has no target_defined event", "define_target");
  }
  const TargetDefined& defined = *s->last<TargetDefined>();
  s->name = defined.campaign;
  s->repo = defined.repo;

  // manifest.yaml is what the user confirmed: its hash is in the ledger.
  std::optional<std::string> text;
  try {
    text = util::readFileIfExists(s->paths.manifest);
  } catch (const std::exception& e) {
    return toolFailure(std::string("cannot read manifest.yaml: ") + e.what());
  }
  if (!text) {
    return s->refuse(RefusalCode::RecordTampered, "manifest.yaml is missing from " + s->paths.root.string(),
                     "define_target (while still in DEFINE_TARGET) or restore the file");
  }
  s->manifestSha = util::sha256Hex(*text);
  const std::string expected = expectedManifestSha(s->events);
  if (!expected.empty() && expected != s->manifestSha) {
    Refusal r = s->refuse(RefusalCode::RecordTampered,
                          "manifest.yaml was edited after kopt recorded it (sha256 was " + expected.substr(0, 12) +
                              ".., now " + s->manifestSha.substr(0, 12) + "..)");
    r.toolToCall = s->state.phase == Phase::DefineTarget ? "define_target" : "";
    if (r.toolToCall.empty()) r.details.push_back("restore manifest.yaml to the recorded content; a confirmed manifest cannot change");
    return r;
  }
  auto parsed = parseManifest(*text);
  if (auto* errors = std::get_if<std::vector<FieldError>>(&parsed)) {
    Refusal r = s->refuse(RefusalCode::InvalidManifest, "manifest.yaml does not parse", "define_target");
    for (const auto& e : *errors) r.details.push_back(toString(e));
    return r;
  }
  s->manifest = std::get<Manifest>(std::move(parsed));

  // state.json carries what the ledger does not: an interrupted step.
  StateStore store(s->paths.state);
  std::uint64_t savedSeq = 0;
  if (store.exists()) {
    auto loaded = store.load();
    if (auto* saved = std::get_if<CampaignState>(&loaded)) {
      savedSeq = saved->ledgerSeq;
      if (saved->pending) {
        const std::uint64_t after = saved->pending->afterSeq;
        bool completed = false;
        for (const auto& e : s->events) {
          if (e.seq > after && completesStep(saved->pending->step, e.type())) completed = true;
        }
        if (!completed) s->state.pending = saved->pending;
      }
    } else if (mode == OpenMode::Mutate) {
      s->recoveryNotes.push_back("state.json was unreadable (" + std::get<std::string>(loaded) +
                                 "); rebuilt from the ledger");
    }
  }
  if (mode == OpenMode::Mutate) {
    // Records of events the previous run appended but did not finish writing.
    for (const auto& e : s->events) {
      if (e.seq > savedSeq) writeEventRecords(*s, e);
    }
    if (savedSeq != s->state.ledgerSeq || !store.exists()) s->saveState();
    // The records are renderings of the ledger: one that differs was edited behind kopt's back.
    const RenderingCheck check = checkRenderings(*s, true);
    if (!check.differing.empty()) {
      Refusal r = s->refuse(RefusalCode::RecordTampered,
                            util::join(check.differing, ", ") +
                                " differed from what kopt renders from its ledger: edited behind kopt's back. kopt "
                                "restored the recorded content; the records say what the ledger says, nothing else",
                            std::string(toolName(tool)) + " again (the restored records change nothing of the campaign)");
      for (const auto& f : check.restored) r.details.push_back(f + ": restored from the ledger");
      return r;
    }
  }
  s->recordsSeq = savedSeq;
  return s;
}

}  // namespace kopt::campaign::detail
