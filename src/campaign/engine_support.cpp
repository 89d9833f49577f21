#include "campaign/engine_support.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <system_error>

#include "campaign/engine_record_json.h"
#include "campaign/lineage/git_process.h"
#include "campaign/lineage/git_repo.h"
#include "campaign/python_shadows.h"
#include "campaign/records/trend_table.h"
#include "exec/cpu_affinity.h"
#include "exec/executor_config.h"
#include "measure/scoring.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

std::unique_ptr<exec::Executor> makeExecutorFor(const EngineOptions& options, const Manifest& manifest) {
  if (options.executorFactory) return options.executorFactory(manifest);
  return exec::makeExecutor(manifest.executor);
}

bool inScope(const std::string& file, const std::string& scope) {
  if (scope.empty() || scope == ".") return true;
  std::string s = scope;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return file == s || (file.size() > s.size() && file.compare(0, s.size(), s) == 0 && file[s.size()] == '/');
}

bool inAnyScope(const std::string& file, const std::vector<std::string>& scopes) {
  return std::any_of(scopes.begin(), scopes.end(), [&](const std::string& s) { return inScope(file, s); });
}

std::vector<std::string> listScopeFiles(const fs::path& repo, const std::vector<std::string>& paths) {
  std::vector<std::string> args{"ls-files", "-c", "-o", "--exclude-standard", "-z", "--"};
  for (const auto& p : paths) args.push_back(p.empty() ? "." : p);
  auto out = lineage::runGit(repo, args);
  std::set<std::string> files;
  if (out.ok()) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < out.out.size(); ++i) {
      if (out.out[i] == '\0') {
        std::string f = out.out.substr(start, i - start);
        if (!f.empty() && !util::startsWith(f, ".kopt/")) files.insert(f);
        start = i + 1;
      }
    }
  }
  return {files.begin(), files.end()};
}

std::string treeFingerprint(const fs::path& repo, const std::vector<std::string>& paths) {
  util::Sha256 h;
  for (const auto& f : listScopeFiles(repo, paths)) {
    std::error_code ec;
    const fs::path p = repo / f;
    std::string digest = "<missing>";
    if (fs::is_regular_file(p, ec)) {
      try {
        digest = util::sha256FileHex(p);
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
    }
    h.update(f);
    h.update(std::string_view("\0", 1));
    h.update(digest);
    h.update(std::string_view("\n", 1));
  }
  return h.finishHex();
}

std::vector<std::string> kernelScope(const OpenCampaign& session) {
  std::vector<std::string> scope = session.manifest.kernelSource;
  if (session.state.openRound) {
    for (const auto& f : session.state.openRound->declaredFiles) {
      if (std::find(scope.begin(), scope.end(), f) == scope.end()) scope.push_back(f);
    }
  }
  return scope;
}

namespace {

// A build or a test run as its ledger event: the same fields, how the command ended.
template <class Event>
Event commandFinished(const exec::RunResult& r, const std::string& fingerprint) {
  Event e;
  e.ok = r.ok();
  e.outcome = exec::toString(r.outcome);
  e.exitCode = r.exitCode;
  e.wallMs = r.wallTime.count();
  e.fingerprint = fingerprint;
  return e;
}

}  // namespace

BuildFinished buildFinished(const exec::RunResult& r, const std::string& fingerprint) {
  return commandFinished<BuildFinished>(r, fingerprint);
}

TestsFinished testsFinished(const exec::RunResult& r, const std::string& fingerprint) {
  return commandFinished<TestsFinished>(r, fingerprint);
}

std::string describe(const exec::RunResult& r) {
  std::string s = exec::toString(r.outcome);
  if (r.outcome == exec::RunOutcome::Exited) s += " with code " + std::to_string(r.exitCode);
  if (r.outcome == exec::RunOutcome::Signaled) s += " (signal " + std::to_string(r.signal) + ")";
  if (!r.error.empty()) s += ": " + r.error;
  return s;
}

exec::RunResult runLogged(exec::Executor& executor, const Command& command, const PlaceholderValues& values,
                          const fs::path& cwd, const fs::path& log, int timeoutSeconds, int hangSeconds,
                          const CallContext& ctx, const std::string& what, double progressAt,
                          std::optional<double> progressTotal) {
  exec::ParsedCommand parsed = expandPlaceholders(command, values);
  exec::CommandSpec spec;
  spec.argv = parsed.argv;
  spec.env = parsed.env;
  spec.cwd = cwd;
  spec.stdoutPath = log;
  spec.timeout = std::chrono::seconds(timeoutSeconds);
  spec.hangAfter = std::chrono::seconds(hangSeconds);
  std::error_code ec;
  fs::create_directories(log.parent_path(), ec);
  exec::RunObserver observer;
  observer.cancel = ctx.cancel;
  observer.onProgress = [&](const exec::RunProgress& p) {
    const double secs = std::chrono::duration<double>(p.elapsed).count();
    const double fraction = 0.9 * (1.0 - std::exp(-secs / 30.0));
    std::string msg = what + ": " + std::to_string(p.outputBytes) + " bytes of output";
    if (!p.lastLine.empty()) msg += ", last line: " + util::truncateUtf8(p.lastLine, 120);
    ctx.report(progressAt + fraction, progressTotal, msg);
  };
  ctx.report(progressAt, progressTotal, what + ": started");
  return executor.run(spec, observer);
}

std::string logTail(const fs::path& log, std::size_t maxBytes) {
  std::optional<std::string> text;
  try {
    text = util::readFileIfExists(log);
  } catch (const std::exception&) {
    return {};
  }
  if (!text) return {};
  if (text->size() <= maxBytes) return util::sanitizeUtf8(*text);
  std::size_t cut = text->size() - maxBytes;
  const std::size_t nl = text->find('\n', cut);
  if (nl != std::string::npos && nl + 1 < text->size()) cut = nl + 1;
  return "[... " + std::to_string(cut) + " earlier bytes in " + log.filename().string() + "]\n" +
         util::sanitizeUtf8(std::string_view(*text).substr(cut));
}

namespace {

// The repository's tracked files (`git ls-files`, kopt's neutral git view), repo-relative.
std::vector<std::string> trackedFiles(const fs::path& repo) {
  auto listed = lineage::runGit(repo, {"ls-files", "-c", "-z"});
  if (!listed.ok()) throw std::runtime_error("git ls-files: " + util::trim(listed.err));
  std::vector<std::string> out;
  for (std::size_t start = 0, i = 0; i < listed.out.size(); ++i) {
    if (listed.out[i] != '\0') continue;
    if (i > start) out.push_back(listed.out.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

}  // namespace

// Untracked files git ignores (an ignored folder once, as "dir/"), tree-relative.
std::vector<std::string> ignoredFiles(const fs::path& repo) {
  auto listed = lineage::runGit(repo, {"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"});
  if (!listed.ok()) throw std::runtime_error("git ls-files --ignored: " + util::trim(listed.err));
  std::vector<std::string> out;
  for (const auto& entry : util::split(listed.out, '\0')) {
    if (!entry.empty()) out.push_back(entry);
  }
  return out;
}

std::string clearPythonShadows(const OpenCampaign& session, int* cachesRemoved) {
  const PythonShadows found = findPythonShadows(session.repo, trackedFiles(session.repo), ignoredFiles(session.repo));
  int removed = 0;
  for (const auto& cache : found.caches) {
    std::error_code ec;
    if (fs::remove(session.repo / cache, ec)) ++removed;
  }
  if (cachesRemoved) *cachesRemoved = removed;
  std::vector<std::string> why;
  if (!found.shadowing.empty()) {
    why.push_back("Python would import " + util::join(found.shadowing, ", ") +
                  " in place of the tracked source beside it (an untracked package directory or extension module)");
  }
  if (!found.hiddenModules.empty()) {
    why.push_back("Python would import " + util::join(found.hiddenModules, ", ") +
                  " before any installed module of that name, and git ignores them, so no diff shows them");
  }
  if (why.empty()) return {};
  return util::join(why, "; ") + "; kopt measures and commits the tracked sources only";
}

std::optional<ToolFailure> pythonShadowFailure(const OpenCampaign& session, const std::string& tool, int* cachesRemoved) {
  std::string why;
  try {
    why = clearPythonShadows(session, cachesRemoved);
  } catch (const std::exception& e) {
    return toolFailure(tool + " could not list the repository's tracked files: " + std::string(e.what()));
  }
  if (why.empty()) return std::nullopt;
  return toolFailure(why, "", "remove those files (or track them in git) and call " + tool + " again");
}

std::map<std::string, std::string> nonKernelFileHashes(const OpenCampaign& session) {
  std::map<std::string, std::string> out;
  for (const std::string& f : trackedFiles(session.repo)) {
    if (util::startsWith(f, ".kopt/") || inAnyScope(f, session.manifest.kernelSource)) continue;
    std::error_code ec;
    const fs::path p = session.repo / f;
    std::string digest = "<missing>";
    if (fs::is_symlink(p, ec)) {
      digest = "link:" + fs::read_symlink(p, ec).string();
    } else if (fs::is_regular_file(p, ec)) {
      try {
        digest = util::sha256FileHex(p);
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
    }
    out[f] = digest;
  }
  return out;
}

// "<path>\0<digest>\n" per entry, in path order.
std::string nonKernelFingerprint(const std::map<std::string, std::string>& hashes) {
  util::Sha256 h;
  for (const auto& [path, digest] : hashes) {
    h.update(path);
    h.update(std::string_view("\0", 1));
    h.update(digest);
    h.update(std::string_view("\n", 1));
  }
  return h.finishHex();
}

std::string worktreeContentFingerprint(const fs::path& dir, const std::vector<std::string>& excluded) {
  std::vector<std::pair<std::string, std::string>> entries;  // relative path, "F<sha>" or "L<target>"
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(dir);
    const std::string relText = rel.generic_string();
    const bool skip = (!rel.empty() && *rel.begin() == ".git") ||  // a worktree's .git is a file; git's own data
                      std::any_of(excluded.begin(), excluded.end(), [&](const std::string& x) { return relText == x; });
    if (skip) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec)) {
      entries.emplace_back(rel.generic_string(), "L" + fs::read_symlink(it->path(), ec).string());
    } else if (it->is_regular_file(ec)) {
      std::string digest;
      try {
        digest = util::sha256FileHex(it->path());
      } catch (const std::exception&) {
        digest = "<unreadable>";
      }
      entries.emplace_back(rel.generic_string(), "F" + digest);
    }
  }
  // Sorted by path, as the map nonKernelFingerprint hashes: the same text for the same tree.
  return nonKernelFingerprint(std::map<std::string, std::string>(entries.begin(), entries.end()));
}

std::string candidateContentFingerprint(const OpenCampaign& session) {
  std::vector<std::string> excluded{".kopt"};
  std::error_code ec;
  const fs::path campaign = fs::weakly_canonical(session.paths.root, ec).lexically_relative(fs::weakly_canonical(session.repo, ec));
  if (!campaign.empty() && *campaign.begin() != "..") excluded.push_back(campaign.generic_string());
  return worktreeContentFingerprint(session.repo, excluded);
}

std::string ensureWorktreeBuilt(OpenCampaign& session, exec::Executor& executor, const fs::path& dir,
                                const std::string& commit, const fs::path& buildLog, const CallContext& ctx) {
  std::error_code ec;
  // Once a "<dir>.built" marker file said the build was done: a file the agent could write
  // (beside its own binary in the tree; docs/integrity.md, referee hole 2). It means nothing now.
  fs::remove(dir.string() + ".built", ec);
  const Command& build = session.manifest.buildCommand;
  const std::string buildSha = build.empty() ? "" : util::sha256Hex(build.text);
  const std::string treeName = dir.filename().string();
  // What kopt last built in this tree, as the ledger says (the agent cannot forge a ledger line).
  std::string builtContent;
  if (const WorktreeBuilt* built = session.rounds.lastWorktreeBuild(treeName)) {
    if (built->commit == commit && built->build == buildSha) builtContent = built->content;
  }
  try {
    lineage::GitRepo repo(session.repo);
    if (!fs::exists(dir / ".git", ec)) {
      repo.addWorktree(dir, commit);
    } else {
      // Byte for byte what kopt built there, build outputs included: measure it as it is.
      if (!builtContent.empty() && worktreeContentFingerprint(dir) == builtContent) return {};
      // Otherwise kopt owns this tree: anything that is not the commit (a slowed-down "best", a
      // binary copied into the build output, a stale build) goes, ignored files included.
      lineage::GitRepo tree(dir);
      if (tree.headCommit() != commit) repo.checkoutWorktree(dir, commit);
      auto reset = lineage::runGit(dir, {"reset", "--hard", "-q", commit});
      auto clean = lineage::runGit(dir, {"clean", "-fdxq"});
      if (!reset.ok() || !clean.ok()) throw std::runtime_error(util::trim(reset.err + " " + clean.err));
    }
    // What a checkout wrote passed through the repository's own filters and attributes, which the
    // agent can set: build the commit's bytes, not what a smudge filter made of them.
    repo.rewriteAsCommitted(dir, commit);
  } catch (const std::exception& e) {
    return std::string("cannot prepare the worktree ") + dir.string() + ": " + e.what();
  }
  if (build.empty()) return {};
  exec::RunResult r = runLogged(executor, build, session.placeholders(dir), dir, buildLog,
                                session.manifest.timeouts.buildSeconds, session.manifest.timeouts.hangSeconds, ctx,
                                "building " + commit.substr(0, 10) + " in " + dir.filename().string(), 0, std::nullopt);
  if (!r.ok()) {
    return "the build of " + commit.substr(0, 10) + " in " + dir.string() + " " + describe(r) + " (log: " +
           buildLog.string() + ")";
  }
  WorktreeBuilt built;
  built.tree = treeName;
  built.commit = commit;
  built.build = buildSha;
  built.content = worktreeContentFingerprint(dir);
  session.record(built, std::nullopt);
  return {};
}

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
                      {"message", sh.message}});
  }
  return {{"ok", check.ok}, {"blocks_per_look", check.blocksPerLook}, {"shapes", shapes}, {"problems", check.problems}};
}

int blocksPerLookOf(const OpenCampaign& session, const measure::GatePolicy& policy) {
  const auto* b = session.rounds.baseline();
  const int blocks = b ? harnessBlocksPerLook(*b) : 0;
  return blocks > 0 ? std::max(blocks, policy.blocksPerLook) : policy.blocksPerLook;
}

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
  // Both workers on the CPU that was idlest over the last 100 ms (exec/cpu_affinity.h).
  if (plan.workers) plan.workerCpu = exec::quietBenchWorkerCpu();
  plan.batchMs = m.bench.batchMs;
  // The best worktree holds the best commit (the final acceptance's baseline tree is another build).
  if (bestTree == session.paths.bestWorktree && !session.state.bestCommit.empty()) {
    plan.bestIdentity = session.state.bestCommit + "\n" + plan.command.text;
  }
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

std::vector<ShapeRow> shapeRows(const AssembledRuns& assembled, const std::vector<PairRun>& pairs,
                                const measure::GateResult* gate) {
  std::vector<ShapeRow> rows;
  for (const auto& [label, check] : assembled.candidateChecks) {
    ShapeRow row;
    row.label = label;
    row.check = measure::toString(check);
    row.candidate = armMedian(pairs, true, label);
    row.best = armMedian(pairs, false, label);
    if (check != measure::Check::Pass) row.verdict = "FAIL";
    if (gate) {
      for (const auto& v : gate->shapes) {
        if (v.label != label) continue;
        row.ratio = v.ratio;
        row.ciLowPct = 100.0 * (v.ciLow - 1.0);
        row.ciHighPct = 100.0 * (v.ciHigh - 1.0);
        row.deltaPct = 100.0 * v.delta;
        row.mdePct = 100.0 * v.mde;
        if (row.verdict.empty()) row.verdict = measure::toString(v.verdict);
        row.note = v.note;
      }
    }
    if (!row.ratio && row.candidate && row.best && *row.best > 0) row.ratio = *row.candidate / *row.best;
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

std::optional<double> geomeanPass(const std::vector<ShapeRow>& rows, bool candidate) {
  std::vector<double> v;
  for (const auto& r : rows) {
    const auto& x = candidate ? r.candidate : r.best;
    if (r.check == "PASS" && x && *x > 0) v.push_back(*x);
  }
  if (v.empty()) return std::nullopt;
  const double g = measure::geomean(v);
  return std::isfinite(g) ? std::optional<double>(g) : std::nullopt;
}

}  // namespace

AggregateRow aggregateRow(const OpenCampaign& session, const std::vector<ShapeRow>& rows, const measure::GateResult* gate) {
  AggregateRow a;
  a.metric = measureMetric(session.manifest).name();
  a.candidate = geomeanPass(rows, true);
  a.best = geomeanPass(rows, false);
  if (gate && gate->aggregate) {
    a.ratio = gate->aggregate->ratio;
    a.ciLowPct = 100.0 * (gate->aggregate->ciLow - 1.0);
    a.ciHighPct = 100.0 * (gate->aggregate->ciHigh - 1.0);
  } else if (a.candidate && a.best && *a.best > 0) {
    a.ratio = *a.candidate / *a.best;
  }
  if (auto base = roundRecord(session, 1); base && base->aggregate.value && *base->aggregate.value > 0 && a.candidate) {
    a.vsBaselinePct = measure::percentChange(*a.candidate, *base->aggregate.value);
  }
  return a;
}

std::vector<GateReason> gateReasons(const measure::GateResult& gate) {
  std::vector<GateReason> out;
  for (const auto& r : gate.reasons) out.push_back({measure::toString(r.code), r.label, r.message});
  return out;
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

std::optional<records::RoundRecord> roundRecord(const OpenCampaign& session, int round) {
  const records::RoundRecord* r = session.rounds.record(round);
  return r ? std::optional<records::RoundRecord>(*r) : std::nullopt;
}

namespace {

std::optional<double> metricOf(const records::ShapeResult& s, const std::string& column) {
  for (const auto& m : s.metrics) {
    if (m.name == column) return m.value;
  }
  return std::nullopt;
}

std::optional<double> avgOf(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  const double g = measure::geomean(v);
  return std::isfinite(g) ? std::optional<double>(g) : std::nullopt;
}

}  // namespace

std::vector<std::optional<double>> trendValues(const Manifest& manifest, const records::RoundRecord& record) {
  const auto columns = records::trendColumnsFor(manifest.schema);
  std::vector<std::optional<double>> out;
  for (const auto& header : columns.valueHeaders) {
    const bool peak = header.find("Peak") != std::string::npos;
    std::vector<double> values;
    if (header.find("Combined") != std::string::npos) {
      for (const auto& s : record.results) {
        if (s.check != "PASS") continue;
        auto f = metricOf(s, "Forward TFLOPS");
        auto b = metricOf(s, "Backward TFLOPS");
        if (f && b && *f > 0 && *b > 0) values.push_back(measure::combinedStepFromTflops(*f, *b));
      }
    } else {
      std::string column;
      std::string unit = header.substr(header.rfind(' ') + 1);
      if (util::startsWith(header, "Fwd ")) column = "Forward " + unit;
      else if (util::startsWith(header, "Bwd ")) column = "Backward " + unit;
      else column = header.substr(0, header.rfind(' '));  // "<col> Avg" / "<col> Peak"
      for (const auto& s : record.results) {
        if (s.check != "PASS") continue;
        if (auto v = metricOf(s, column); v && *v > 0) values.push_back(*v);
      }
    }
    if (peak) out.push_back(values.empty() ? std::nullopt : std::optional<double>(*std::max_element(values.begin(), values.end())));
    else out.push_back(avgOf(values));
  }
  return out;
}

records::RoundRecord measuredRecord(const OpenCampaign& session, int round, const std::vector<PairRun>& pairs,
                                    const AssembledRuns& assembled, const measure::GateResult* gate, bool full) {
  records::RoundRecord r;
  r.number = round;
  r.campaign = session.name;
  r.timestamp = session.now();
  r.validation = full ? "full" : "quick";
  const auto metric = measureMetric(session.manifest);
  r.results = medianResults(pairs, true, metric);
  // Order and checks as assembled (a shape a crashed run never reported is an ERROR row).
  for (const auto& [label, check] : assembled.candidateChecks) {
    // (a structured binding is captured by name only from C++20: clang's fuzz build refuses it)
    auto it = std::find_if(r.results.begin(), r.results.end(), [&, &shape = label](const auto& s) { return s.label == shape; });
    if (it == r.results.end()) {
      records::ShapeResult missing;
      missing.label = label;
      missing.check = measure::toString(check);
      r.results.push_back(missing);
    } else {
      it->check = measure::toString(check);
    }
  }
  if (gate) {
    for (auto& s : r.results) {
      for (const auto& v : gate->shapes) {
        if (v.label != s.label) continue;
        s.verdict = measure::toString(v.verdict);
        s.deltaVsBestPct = 100.0 * (v.ratio - 1.0);
        s.ciLowPct = 100.0 * (v.ciLow - 1.0);
        s.ciHighPct = 100.0 * (v.ciHigh - 1.0);
      }
      if (s.check != "PASS") s.verdict = "FAIL";
    }
  }
  records::Aggregate& a = r.aggregate;
  a.metric = metric.name();
  a.shapeCount = static_cast<int>(r.results.size());
  std::vector<double> pass;
  for (const auto& s : r.results) {
    if (s.check == "PASS" && s.primaryValue && *s.primaryValue > 0) pass.push_back(*s.primaryValue);
  }
  a.passCount = static_cast<int>(pass.size());
  if (a.passCount == a.shapeCount && !pass.empty()) a.value = measure::geomean(pass);
  else a.value = 0.0;  // the contract: any Check failure rejects the candidate (aggregate = 0)
  if (session.state.bestRound) {
    if (auto best = roundRecord(session, *session.state.bestRound)) a.bestValue = best->aggregate.value;
  }
  if (auto base = roundRecord(session, 1)) a.baselineValue = base->aggregate.value;
  if (gate && gate->aggregate) a.deltaVsBestPct = 100.0 * (gate->aggregate->ratio - 1.0);
  else if (a.value && a.bestValue && *a.bestValue > 0) a.deltaVsBestPct = measure::percentChange(*a.value, *a.bestValue);
  if (a.value && *a.value > 0 && a.baselineValue && *a.baselineValue > 0)
    a.deltaVsBaselinePct = measure::percentChange(*a.value, *a.baselineValue);
  return r;
}

}  // namespace kopt::campaign::detail
