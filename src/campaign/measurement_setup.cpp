#include "campaign/measurement_setup.h"

#include <algorithm>
#include <system_error>

#include "campaign/candidate_tree.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

std::vector<std::string> representativeShapes(const OpenCampaign& session) {
  if (const auto* b = session.rounds.baseline()) return b->representativeShapes;
  return session.manifest.representativeShapes;
}

std::vector<std::string> expectedLabels(const OpenCampaign& session, bool full) {
  const auto* b = session.rounds.baseline();
  if (!b) return {};
  return full ? b->labels : b->representativeShapes;
}

std::string frozenHeader(const OpenCampaign& session) {
  const auto* b = session.rounds.baseline();
  return b ? b->schemaHeader : std::string();
}

measure::Calibration calibrationOf(const OpenCampaign& session) {
  measure::Calibration c;
  if (const auto* b = session.rounds.baseline()) c.shapes = b->calibration;
  return c;
}

nlohmann::json harnessToJson(const measure::HarnessCheck& check) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& sh : check.shapes) {
    shapes.push_back({{"label", sh.label},
                      {"blocks", sh.blocks},
                      {"processes", sh.processes},
                      {"bias", sh.bias},
                      {"bias_limit", sh.biasLimit},
                      {"within_se", sh.withinSe},
                      {"between_sd", sh.betweenSd},
                      {"unit", measure::toString(sh.unit)},
                      {"sd_per_unit", sh.sdPerUnit},
                      {"units_needed", sh.unitsNeeded},
                      {"mde_at_plan", sh.mdeAtPlan},
                      {"floor_per_look", sh.floorPerLook},
                      {"tolerance", sh.tolerance},
                      {"looks_needed", sh.looksNeeded},
                      {"message", sh.message}});
  }
  return {{"ok", check.ok},
          {"blocks_per_look", check.blocksPerLook},
          {"looks_needed", check.looksNeeded},
          {"shapes", shapes},
          {"problems", check.problems}};
}

int blocksPerLookOf(const OpenCampaign& session, const measure::GatePolicy& policy) {
  const auto* b = session.rounds.baseline();
  const int blocks = b ? harnessBlocksPerLook(*b) : 0;
  return blocks > 0 ? std::max(blocks, policy.blocksPerLook) : policy.blocksPerLook;
}

measure::GatePolicy policyForPlan(const OpenCampaign& session, measure::GatePolicy policy) {
  const int blocks = blocksPerLookOf(session, policy);
  if (blocks <= policy.blocksPerLook) return policy;
  policy.blocksPerLook = policy.defaultPairs = policy.remeasurePairs = blocks;
  policy.maxPairs = blocks * std::max(1, policy.maxLooks);
  return policy;
}

namespace {

// What a worker of the candidate's tree runs: the kernel files' fingerprint and the open round's
// last build record (a spare worker started before another build is not that build's).
std::string candidateBuildIdentity(const OpenCampaign& session) {
  std::string id = "kernel files " + treeFingerprint(session.repo, kernelScope(session));
  const RoundProgress* progress = session.state.openRound ? session.rounds.round(session.state.openRound->number) : nullptr;
  if (const BuildFinished* build = progress ? progress->lastBuild : nullptr) {
    // The record, not the tree: a rebuild, even one that writes the same bytes, is another build.
    id += "\nbuilt " + build->at + " " + build->fingerprint + " " + build->content.value_or("") + (build->ok ? " ok" : " failed");
  }
  return id;
}

}  // namespace

MeasurementPlan planFor(const OpenCampaign& session, bool full, const fs::path& bestTree, const fs::path& runsDir,
                        const std::string& tag) {
  const Manifest& m = session.manifest;
  MeasurementPlan plan;
  plan.tag = tag;
  plan.command = full ? m.benchmarkCommand : m.quickCommand;
  if (full) {
    if (!m.targetShapes.all) plan.shapes = m.targetShapes.labels;
  } else {
    plan.shapes = representativeShapes(session);
  }
  plan.candidateTree = session.repo;
  plan.bestTree = bestTree;
  plan.candidatePlaceholders = session.placeholders(session.repo);
  plan.bestPlaceholders = session.placeholders(bestTree);
  plan.runsDir = runsDir;
  plan.timeout = std::chrono::seconds(m.timeouts.benchSeconds);
  plan.hangAfter = std::chrono::seconds(m.timeouts.hangSeconds);
  plan.metric = measureMetric(m);
  plan.schemaKind = m.schema.kind;
  plan.custom = measureCustomSchema(m);
  plan.workers = m.bench.protocol == BenchProtocol::Worker;
  // Both workers on the CPU that is idlest when the look starts (exec/cpu_affinity.h).
  plan.pickWorkerCpu = plan.workers;
  plan.batchMs = m.bench.batchMs;
  if (plan.workers) plan.candidateBuild = candidateBuildIdentity(session);
  // The best worktree holds the best commit (the final acceptance's baseline tree is another build).
  if (bestTree == session.paths.bestWorktree) identifyBest(session, plan, session.state.bestCommit);
  // A full measurement is sharded over the manifest's devices once the shape list is known (from
  // the manifest, else frozen at BASELINE; the baseline's own first table is never sharded when
  // target_shapes is `all`, since only that run tells which shapes there are).
  if (full && m.executor.devices.size() > 1) {
    if (plan.shapes.empty()) plan.shapes = expectedLabels(session, true);
    plan.devices = m.executor.devices;
    plan.binding = m.executor.kind == exec::ExecutorKind::Slurm ? exec::DeviceBinding::SchedulerAssigns
                                                               : exec::DeviceBinding::VisibleDevicesEnv;
  }
  return plan;
}

int workersOnDevice(bool aaAtOnce, int aaSessions) { return aaAtOnce ? 2 * std::max(1, aaSessions) : 2; }

void identifyBest(const OpenCampaign& session, MeasurementPlan& plan, const std::string& commit) {
  plan.bestIdentity.clear();
  plan.bestBuild.clear();
  if (commit.empty()) return;
  plan.bestIdentity = commit + "\n" + plan.command.text;
  if (!plan.workers) return;
  plan.bestBuild = plan.bestIdentity;
  // A rebuild of the worktree (after the tree was found changed) is another build.
  if (const WorktreeBuilt* built = session.rounds.lastWorktreeBuild(session.paths.bestWorktree.filename().string())) {
    plan.bestBuild += "\nbuilt " + built->at + " " + built->content;
  }
}

int measurementOrdinal(const OpenCampaign& session, int round) {
  const RoundProgress* progress = session.rounds.round(round);
  int k = 1 + (progress ? progress->measurements : 0);
  try {
    if (auto discarded = util::readFileIfExists(session.paths.round(round).artifacts / "discarded-tags")) {
      for (const auto& line : util::splitLines(*discarded)) k += line.empty() ? 0 : 1;
    }
  } catch (const std::exception&) {
  }
  return k;
}

void writeMeasurementIndex(const fs::path& path, const std::string& tag, const std::string& fingerprint, bool full,
                           const std::vector<PairRun>& pairs) {
  nlohmann::json j{{"tag", tag}, {"fingerprint", fingerprint}, {"kind", full ? "full" : "quick"}, {"pairs", pairsToJson(pairs)}};
  util::writeFileAtomic(path, j.dump(2) + "\n");
}

void publishBenchmarkCsv(const std::vector<PairRun>& pairs, const RoundPaths& round) {
  std::error_code ec;
  fs::create_directories(round.artifacts, ec);
  for (const auto& p : pairs) {
    if (!p.candidate.table) continue;
    // Byte copies of kopt's own run; whatever the agent may have put there is replaced.
    util::writeFileAtomic(round.benchmarkCsv, util::readFile(p.candidate.csv));
    if (auto s = util::readFileIfExists(p.candidate.samples)) util::writeFileAtomic(round.samples, *s);
    else fs::remove(round.samples, ec);
    return;
  }
  fs::remove(round.benchmarkCsv, ec);
  fs::remove(round.samples, ec);
}

}  // namespace kopt::campaign::detail
