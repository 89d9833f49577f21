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

CampaignState foldLedger(const std::vector<LedgerEvent>& events) {
  CampaignState s;
  for (const auto& e : events) {
    const json& p = e.payload;
    const std::string& t = e.type;
    if (t == ev::kTargetDefined) {
      s = CampaignState{};
      s.phase = Phase::DefineTarget;
    } else if (t == ev::kTargetConfirmed) {
      s.phase = Phase::PrepareEnvironment;
      s.confirmedBy = p.value("confirmed_by", "");
    } else if (t == ev::kEnvironmentPrepared) {
      s.phase = Phase::ReadHistoricalTips;
    } else if (t == ev::kTipsRead) {
      s.phase = Phase::Baseline;
    } else if (t == ev::kBaselineRecorded) {
      s.phase = Phase::Analyze;
      s.lastRound = 1;
      s.bestRound = 1;
      s.bestCommit = p.value("commit", "");
      s.baselineCommit = s.bestCommit;
      if (p.contains("frozen")) s.frozen = FrozenSet::fromJson(p["frozen"]);
    } else if (t == ev::kRoundBegun) {
      OpenRound r;
      r.number = e.round.value_or(s.lastRound + 1);
      r.lineageHead = p.value("lineage_head", "");
      r.declaredFiles = p.value("files", std::vector<std::string>{});
      r.configOnly = p.value("config_only", false);
      s.openRound = r;
      s.lastRound = std::max(s.lastRound, r.number);
      s.phase = Phase::Optimize;
    } else if (t == ev::kBuildFinished || t == ev::kTestsFinished || t == ev::kBenchFinished) {
      // A fix inside the round: the round keeps its number and any verdict is stale.
      if (s.openRound) s.phase = Phase::Optimize;
    } else if (t == ev::kRoundValidated) {
      s.phase = Phase::Validate;
    } else if (t == ev::kRoundDecided) {
      const std::string status = p.value("status", "");
      const bool accepted = status.rfind("ACCEPTED", 0) == 0;
      if (accepted) {
        s.bestRound = e.round;
        s.bestCommit = p.value("commit", s.bestCommit);
        s.consecutiveRollbacks = 0;
      } else {
        ++s.consecutiveRollbacks;
      }
      s.openRound.reset();
      s.phase = Phase::Analyze;
    } else if (t == ev::kFinalAcceptance) {
      s.phase = Phase::Report;
    } else if (t == ev::kReportWritten) {
      s.phase = Phase::Done;
    }
    s.ledgerSeq = e.seq;
  }
  return s;
}

bool completesStep(const std::string& step, const std::string& type) {
  if (step == "build") return type == ev::kBuildFinished;
  if (step == "tests") return type == ev::kTestsFinished;
  if (step == "bench") return type == ev::kBenchFinished;
  if (step == "validate") return type == ev::kRoundValidated;
  if (step == "decide") return type == ev::kRoundDecided;
  if (step == "baseline") return type == ev::kBaselineRecorded;
  if (step == "final") return type == ev::kFinalAcceptance;
  if (step == "prepare") return type == ev::kEnvironmentPrepared;
  if (step == "report") return type == ev::kReportWritten;
  return false;
}

// ---- Session ----

std::uint64_t Session::record(const std::string& type, std::optional<int> round, json payload) {
  if (!payload.contains("at")) payload["at"] = now();
  const std::uint64_t seq = ledger->appendEvent(type, round, payload);
  checkpoint("record:after-append:" + type);
  LedgerEvent e;
  e.seq = seq;
  e.ts = nowIso();
  e.type = type;
  e.round = round;
  e.payload = std::move(payload);
  events.push_back(e);
  const auto pending = state.pending;
  state = foldLedger(events);
  if (pending && !completesStep(pending->step, type)) state.pending = pending;
  writeEventRecords(*this, events.back());
  checkpoint("record:after-records:" + type);
  state.ledgerSeq = seq;
  saveState();
  return seq;
}

void Session::beginStep(int round, const std::string& step, json detail) {
  PendingStep p;
  p.round = round;
  p.step = step;
  p.startedAt = nowIso();
  detail["after_seq"] = events.empty() ? 0 : events.back().seq;
  p.detail = std::move(detail);
  state.pending = p;
  saveState();
}

void Session::clearStep() {
  if (!state.pending) return;
  state.pending.reset();
  saveState();
}

void Session::saveState() { StateStore(paths.state).save(state); }

std::string Session::now() const {
  return util::formatManifestCreated(options->clock ? options->clock() : std::chrono::system_clock::now());
}

std::string Session::nowIso() const {
  return util::formatIso8601Utc(options->clock ? options->clock() : std::chrono::system_clock::now());
}

const LedgerEvent* Session::last(const std::string& type, std::optional<int> round) const {
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->type == type && (!round || it->round == round)) return &*it;
  }
  return nullptr;
}

std::vector<const LedgerEvent*> Session::roundEvents(int round) const {
  std::vector<const LedgerEvent*> out;
  bool inRound = false;
  for (const auto& e : events) {
    if (e.type == ev::kRoundBegun && e.round == round) {
      inRound = true;
      out.clear();
      continue;
    }
    if (inRound && e.round == round) out.push_back(&e);
  }
  return out;
}

Refusal Session::refuse(RefusalCode code, std::string why, std::string toolToCall) const {
  Refusal r;
  r.code = code;
  r.tool = toolLabel.empty() ? toolName(tool) : toolLabel;
  r.why = std::move(why);
  r.phaseNow = state.phase;
  if (toolLabel.empty()) r.phaseNeeded = phasesFor(tool);
  r.toolToCall = std::move(toolToCall);
  return r;
}

PlaceholderValues Session::placeholders(const fs::path& tree) const {
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

std::string expectedManifestSha(const std::vector<LedgerEvent>& events) {
  for (auto it = events.rbegin(); it != events.rend(); ++it) {
    if (it->payload.contains("manifest_sha256")) return it->payload.value("manifest_sha256", "");
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

std::optional<Refusal> keyLedger(Session& s, bool create) {
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

Outcome<std::unique_ptr<Session>> openSession(const EngineOptions& options, const std::string& campaignDir,
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
  auto s = std::make_unique<Session>();
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
  s->events = s->ledger->readAll();
  s->state = foldLedger(s->events);
  if (!verification.ok()) {
    Refusal r = s->refuse(RefusalCode::LedgerTampered,
                          "the ledger's hash chain is broken: " + verification.reason +
                              ". A record was edited, removed or reordered behind kopt's back; kopt will not "
                              "continue on a history it cannot trust");
    r.details.push_back(std::string("problem: ") + toString(verification.problem));
    r.toolToCall = "";
    return r;
  }
  if (s->events.empty() || s->events.front().type != ev::kTargetDefined) {
    return s->refuse(RefusalCode::NotFound, "the ledger has no target_defined event", "define_target");
  }
  const json& defined = s->last(ev::kTargetDefined)->payload;
  s->name = defined.value("campaign", "");
  s->repo = defined.value("repo", "");

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
        const auto after = saved->pending->detail.value("after_seq", std::uint64_t{0});
        bool completed = false;
        for (const auto& e : s->events) {
          if (e.seq > after && completesStep(saved->pending->step, e.type)) completed = true;
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
