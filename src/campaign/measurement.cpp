#include "campaign/measurement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "campaign/gate_policy.h"
#include "campaign/harness_hooks.h"
#include "campaign/interleaved_runner.h"
#include "exec/output_tail.h"
#include "measure/frozen_schema.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::uint64_t secretSeed() {
  std::uint64_t v = 0;
  if (FILE* f = std::fopen("/dev/urandom", "rb")) {
    if (std::fread(&v, sizeof v, 1, f) != 1) v = 0;
    std::fclose(f);
  }
  if (v == 0) v = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) * 0x9e3779b97f4a7c15ULL;
  return v & 0x7fffffffffffffffULL;
}

std::optional<measure::CustomSchema> measureCustomSchema(const Manifest& m) {
  if (m.schema.kind != SchemaKind::Custom) return std::nullopt;
  measure::CustomSchema c;
  c.columns = m.schema.columns;
  c.checkColumn = m.schema.checkColumn.empty() ? "Check" : m.schema.checkColumn;
  c.metricColumns = m.schema.metricColumns;
  for (const auto& col : m.schema.columns) {
    if (col == "B" || col == "M" || col == "N" || col == "K") c.shapeColumns.push_back(col);
  }
  return c;
}

measure::PrimaryMetric measureMetric(const Manifest& m) {
  if (auto parsed = measure::PrimaryMetric::parse(m.primaryMetric.column)) return *parsed;
  return measure::PrimaryMetric{};
}

measure::GatePolicy gatePolicyFor(const Manifest& m) { return gatePolicyFromManifest(m); }

namespace {

std::string shortOutcome(const exec::RunResult& r) {
  std::string s = exec::toString(r.outcome);
  if (r.outcome == exec::RunOutcome::Exited) s += " " + std::to_string(r.exitCode);
  return s;
}

std::size_t csvRows(const fs::path& csv) {
  std::ifstream in(csv);
  std::size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n > 0 ? n - 1 : 0;
}

void parseArm(ArmRun& arm, const MeasurementPlan& plan, std::optional<fs::file_time_type> notBefore) {
  std::error_code ec;
  if (!fs::is_regular_file(arm.csv, ec)) {
    arm.ok = false;
    if (arm.error.empty()) arm.error = "the harness wrote no summary CSV at " + arm.csv.filename().string();
    return;
  }
  if (notBefore) {
    // Kernel file times are tick-coarse: allow one second before the start we took.
    const auto mtime = fs::last_write_time(arm.csv, ec);
    if (ec || mtime + std::chrono::seconds(1) < *notBefore) {
      arm.ok = false;
      arm.error = "the summary CSV predates this run (not written by it); ignored";
      return;
    }
  }
  std::string text;
  try {
    text = util::readFile(arm.csv);
  } catch (const std::exception& e) {
    arm.ok = false;
    arm.error = e.what();
    return;
  }
  measure::TableResult parsed = plan.custom ? measure::parseBenchCsv(text, *plan.custom)
                                            : measure::parseBenchCsv(text, plan.schemaKind);
  if (auto* err = std::get_if<measure::TableError>(&parsed)) {
    // A header that drifted still gets a table (so drift is named, not a parse error).
    measure::TableResult lenient = measure::parseBenchCsv(text);
    if (auto* t = std::get_if<measure::BenchTable>(&lenient)) {
      arm.table = std::move(*t);
      arm.error = "CSV does not match the frozen schema: " + err->toString();
    } else {
      arm.ok = false;
      arm.error = "CSV does not parse: " + err->toString();
      return;
    }
  } else {
    arm.table = std::get<measure::BenchTable>(std::move(parsed));
  }
  if (fs::is_regular_file(arm.samples, ec)) {
    try {
      auto s = measure::parseSamplesFile(util::readFile(arm.samples));
      if (auto* file = std::get_if<measure::SamplesFile>(&s)) arm.samplesFile = std::move(*file);
    } catch (const std::exception&) {
    }
  }
  // One throughput per shape: the samples' median where they have it, the table's value otherwise.
  measure::RunSummary fromSamples;
  if (arm.samplesFile && plan.metric.kind != measure::PrimaryMetricKind::Custom) {
    fromSamples = measure::summarizeRun(*arm.samplesFile, plan.metric);
  }
  measure::RunSummary fromTable;
  auto scored = measure::scoreTable(*arm.table, plan.metric);
  if (auto* v = std::get_if<measure::ScoreVector>(&scored)) fromTable = measure::summarizeRun(*v);
  for (const auto& row : arm.table->rows) {
    if (auto v = fromSamples.find(row.label)) {
      arm.summary.throughput.emplace_back(row.label, *v);
    } else if (auto t = fromTable.find(row.label)) {
      arm.summary.throughput.emplace_back(row.label, *t);
    } else {
      arm.summary.missing.push_back(row.label);
    }
  }
  arm.ok = true;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

measure::Check worse(measure::Check a, measure::Check b) {
  auto rank = [](measure::Check c) { return c == measure::Check::Pass ? 0 : c == measure::Check::Fail ? 1 : 2; };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace

MeasurementRunner::MeasurementRunner(exec::Executor& executor, std::function<std::uint64_t()> seeds)
    : executor_(executor), seeds_(seeds ? std::move(seeds) : std::function<std::uint64_t()>(secretSeed)) {}

ArmRun MeasurementRunner::runArm(const MeasurementPlan& plan, const std::string& armName, int pair, std::uint64_t seed,
                                 const CallContext& ctx, double progressAt, double progressTotal,
                                 const std::string& what) {
  ArmRun arm;
  arm.arm = armName;
  const std::string stem = plan.tag + "-p" + std::to_string(pair) + "-" + armName;
  arm.csv = plan.runsDir / (stem + ".csv");
  arm.samples = plan.runsDir / (stem + ".samples.jsonl");
  arm.log = plan.runsDir / (stem + ".log");
  std::error_code ec;
  fs::create_directories(plan.runsDir, ec);
  // Whatever sits at these paths now was not written by this run.
  fs::remove(arm.csv, ec);
  fs::remove(arm.samples, ec);

  const bool candidate = armName == "candidate";
  exec::ParsedCommand cmd =
      expandPlaceholders(plan.command, candidate ? plan.candidatePlaceholders : plan.bestPlaceholders);
  exec::CommandSpec spec;
  spec.argv = cmd.argv;
  spec.env = cmd.env;
  spec.cwd = candidate ? plan.candidateTree : plan.bestTree;
  spec.stdoutPath = arm.log;
  spec.timeout = plan.timeout;
  spec.hangAfter = plan.hangAfter;
  const bool sharded = plan.devices.size() > 1 && !plan.shapes.empty();
  if (!sharded) {  // runSharded appends these per shard
    spec.argv.insert(spec.argv.end(), {"--summary-csv", arm.csv.string(), "--samples", arm.samples.string()});
    if (!plan.shapes.empty()) spec.argv.insert(spec.argv.end(), {"--shapes", util::join(plan.shapes, ",")});
    spec.argv.insert(spec.argv.end(), {"--seed", std::to_string(seed)});
  }

  exec::RunObserver observer;
  observer.cancel = ctx.cancel;
  const double expected = typicalRunSeconds_;
  const std::size_t shapeCount = plan.shapes.size();
  observer.onProgress = [&](const exec::RunProgress& p) {
    const double secs = std::chrono::duration<double>(p.elapsed).count();
    const double fraction = 0.9 * (1.0 - std::exp(-secs / std::max(0.5, expected)));
    std::string msg = what + ": " + std::to_string(p.outputBytes) + " bytes of output";
    const std::size_t rows = csvRows(arm.csv);
    if (rows) msg += ", " + std::to_string(rows) + (shapeCount ? "/" + std::to_string(shapeCount) : "") + " CSV rows";
    if (!p.lastLine.empty()) msg += ", last line: " + util::truncateUtf8(p.lastLine, 120);
    ctx.report(progressAt + fraction, progressTotal, msg);
  };
  const auto start = fs::file_time_type::clock::now();
  exec::RunResult result;
  if (sharded) {
    exec::ShardedRunSpec shards;
    shards.base = spec;
    shards.shapes = plan.shapes;
    shards.devices = plan.devices;
    shards.binding = plan.binding;
    shards.seed = seed;
    shards.summaryCsv = arm.csv;
    shards.samples = arm.samples;
    shards.workDir = plan.runsDir / (stem + ".shards");
    const exec::ShardedRunResult r = exec::runSharded(executor_, shards, observer);
    result = r.overall;
    if (result.ok() && !r.error.empty()) {  // every shard ran, but the merge failed
      result.outcome = exec::RunOutcome::Exited;
      result.exitCode = 1;
    }
    if (!r.error.empty()) result.error = r.error;
  } else {
    result = executor_.run(spec, observer);
  }
  arm.outcome = exec::toString(result.outcome);
  arm.exitCode = result.exitCode;
  arm.wallMs = result.wallTime.count();
  if (result.wallTime.count() > 0) typicalRunSeconds_ = std::max(0.5, result.wallTime.count() / 1000.0);
  if (!result.ok()) {
    arm.ok = false;
    arm.error = "the bench " + shortOutcome(result) + (result.error.empty() ? "" : ": " + result.error);
    if (result.outcome == exec::RunOutcome::Cancelled) return arm;
    // A non-zero exit may still have written a table (FAIL rows); anything else did not.
    if (result.outcome != exec::RunOutcome::Exited) return arm;
  }
  const std::string exitError = arm.error;
  parseArm(arm, plan, start);
  if (!exitError.empty()) {
    arm.ok = false;
    arm.error = exitError + (arm.error.empty() || arm.error == exitError ? "" : "; " + arm.error);
  }
  if (arm.ok && arm.samplesFile && arm.samplesFile->header.seed != seed) {
    arm.ok = false;
    arm.error = "the samples file carries seed " + std::to_string(arm.samplesFile->header.seed) +
                ", not the seed kopt passed: it was not written by this run";
  }
  return arm;
}

std::vector<PairRun> MeasurementRunner::run(const MeasurementPlan& plan, int first, int count, const CallContext& ctx,
                                            double progressBase, double progressTotal) {
  lostRun_.clear();
  if (plan.workers) {
    // A worker session is one pair of local processes: there is no lost node to report.
    return InterleavedRunner(seeds_).run(plan, first, count, nextSession_++, ctx, progressBase, progressTotal);
  }
  std::vector<PairRun> out;
  double done = progressBase;
  for (int i = first; i < first + count; ++i) {
    if (ctx.cancel.cancelled() || !lostRun_.empty()) break;
    PairRun pair;
    pair.index = i;
    pair.seed = seeds_();
    pair.candidateFirst = (i % 2) == 0;  // AB, BA, AB, ...
    const std::string label = "pair " + std::to_string(i + 1);
    for (int k = 0; k < 2; ++k) {
      const bool candidate = (k == 0) == pair.candidateFirst;
      ArmRun arm = runArm(plan, candidate ? "candidate" : "best", i, pair.seed, ctx, done, progressTotal,
                          label + " " + (candidate ? "candidate" : "best"));
      const bool lost = arm.outcome == exec::toString(exec::RunOutcome::Lost);
      if (lost) lostRun_ = label + " " + arm.arm + ": " + arm.error;
      (candidate ? pair.candidate : pair.best) = std::move(arm);
      done += 1;
      ctx.report(done, progressTotal, label + ": " + (candidate ? "candidate" : "best") + " run finished");
      if (ctx.cancel.cancelled() || lost) break;
    }
    if (ctx.cancel.cancelled() || !lostRun_.empty()) break;
    if (pair.candidate.samplesFile && pair.best.samplesFile) {
      if (auto refusal = changedHooksRefusal(pair.candidate.samplesFile->header.hooks,
                                             pair.best.samplesFile->header.hooks)) {
        pair.candidate.ok = false;
        pair.candidate.error = *refusal;
      }
    }
    out.push_back(std::move(pair));
  }
  return out;
}

ArmRun loadArmRun(const MeasurementPlan& plan, const std::string& armName, const fs::path& csv, const fs::path& samples) {
  ArmRun arm;
  arm.arm = armName;
  arm.csv = csv;
  arm.samples = samples;
  parseArm(arm, plan, std::nullopt);
  return arm;
}

json pairsToJson(const std::vector<PairRun>& pairs) {
  json out = json::array();
  auto armJson = [](const ArmRun& a) {
    return json{{"csv", a.csv.string()},     {"samples", a.samples.string()}, {"log", a.log.string()},
                {"ok", a.ok},                {"error", a.error},               {"outcome", a.outcome},
                {"exit_code", a.exitCode},   {"wall_ms", a.wallMs}};
  };
  for (const auto& p : pairs) {
    out.push_back({{"index", p.index},
                   {"session", p.session},
                   {"seed", p.seed},
                   {"candidate_first", p.candidateFirst},
                   {"candidate", armJson(p.candidate)},
                   {"best", armJson(p.best)}});
  }
  return out;
}

std::vector<PairRun> pairsFromJson(const json& j, const MeasurementPlan& plan) {
  std::vector<PairRun> out;
  if (!j.is_array()) return out;
  auto load = [&](const json& a, const std::string& name) {
    ArmRun arm;
    const fs::path csv = a.value("csv", "");
    const fs::path samples = a.value("samples", "");
    const bool wasOk = a.value("ok", false);
    if (wasOk) {
      arm = loadArmRun(plan, name, csv, samples);
    } else {
      arm.arm = name;
      arm.csv = csv;
      arm.samples = samples;
      arm.ok = false;
      arm.error = a.value("error", "");
    }
    arm.log = a.value("log", "");
    arm.outcome = a.value("outcome", "");
    arm.exitCode = a.value("exit_code", -1);
    arm.wallMs = a.value("wall_ms", 0LL);
    // A run that failed for its exit status keeps its table (FAIL rows) but stays not ok.
    if (!wasOk && fs::exists(csv)) {
      ArmRun parsed = loadArmRun(plan, name, csv, samples);
      arm.table = std::move(parsed.table);
      arm.samplesFile = std::move(parsed.samplesFile);
      arm.summary = std::move(parsed.summary);
    }
    return arm;
  };
  for (const auto& p : j) {
    PairRun pair;
    pair.index = p.value("index", 0);
    pair.session = p.value("session", 0);
    pair.seed = p.value("seed", std::uint64_t{0});
    pair.candidateFirst = p.value("candidate_first", true);
    pair.candidate = load(p.value("candidate", json::object()), "candidate");
    pair.best = load(p.value("best", json::object()), "best");
    out.push_back(std::move(pair));
  }
  return out;
}

AssembledRuns assemble(const std::vector<PairRun>& pairs, const std::string& frozenHeader,
                       const std::vector<std::string>& expectedLabels) {
  AssembledRuns a;
  std::map<std::string, measure::Check> candWorst, bestWorst;
  std::vector<std::string> order;
  std::set<std::string> seenDrift;
  auto checkTable = [&](const ArmRun& arm, int pair) {
    if (!arm.table) return;
    if (!frozenHeader.empty()) {
      auto drifts = measure::compareFrozenHeader(frozenHeader, arm.table->schema.headerBytes);
      if (!drifts.empty()) {
        a.schemaDrift = true;
        const std::string msg = "schema drift (" + arm.arm + " run, pair " + std::to_string(pair + 1) +
                                "): " + measure::describe(drifts);
        if (seenDrift.insert(measure::describe(drifts)).second) a.problems.push_back(msg);
      }
    }
    if (!expectedLabels.empty()) {
      auto set = measure::compareShapeSet(expectedLabels, arm.table->labels());
      if (!set.ok()) {
        a.shapeSetDrift = true;
        const std::string msg = "shape set differs (" + arm.arm + " run, pair " + std::to_string(pair + 1) +
                                "): " + set.describe();
        if (seenDrift.insert(set.describe()).second) a.problems.push_back(msg);
      }
    }
  };
  for (const auto& p : pairs) {
    for (const ArmRun* arm : {&p.candidate, &p.best}) {
      const bool cand = arm == &p.candidate;
      checkTable(*arm, p.index);
      if (!arm->table) {
        (cand ? a.candidateRunFailed : a.bestRunFailed) = true;
        a.problems.push_back(arm->arm + " run of pair " + std::to_string(p.index + 1) + " failed: " + arm->error);
        continue;
      }
      if (!arm->ok) {
        (cand ? a.candidateRunFailed : a.bestRunFailed) = true;
        a.problems.push_back(arm->arm + " run of pair " + std::to_string(p.index + 1) + ": " + arm->error);
      }
      if (a.headerBytes.empty() && cand) a.headerBytes = arm->table->schema.headerBytes;
      for (const auto& row : arm->table->rows) {
        if (order.empty() || std::find(order.begin(), order.end(), row.label) == order.end()) order.push_back(row.label);
        auto& worst = cand ? candWorst : bestWorst;
        auto it = worst.find(row.label);
        // A run that crashed or exited non-zero counts against every shape it reported.
        measure::Check c = arm->ok ? row.check : (row.check == measure::Check::Pass ? measure::Check::Error : row.check);
        if (it == worst.end()) worst.emplace(row.label, c);
        else it->second = worse(it->second, c);
      }
    }
  }
  a.labels = expectedLabels.empty() ? order : expectedLabels;
  for (const auto& label : a.labels) {
    auto c = candWorst.find(label);
    // A shape the candidate never reported is an ERROR, not a dropped term.
    a.candidateChecks.emplace_back(label, c == candWorst.end() ? measure::Check::Error : c->second);
    auto b = bestWorst.find(label);
    if (b != bestWorst.end() && b->second == measure::Check::Pass) a.bestPassLabels.push_back(label);
  }
  if (a.candidateRunFailed) {
    // Every shape of a crashed candidate run is not PASS (the worst check above already says so
    // for shapes it listed; a run with no table at all fails every shape).
    for (auto& [label, check] : a.candidateChecks) {
      bool everyRunHasIt = true;
      for (const auto& p : pairs) {
        if (!p.candidate.table || !p.candidate.table->find(label)) everyRunHasIt = false;
      }
      if (!everyRunHasIt) check = measure::Check::Error;
    }
  }
  for (const auto& label : a.labels) {
    measure::PairedRuns runs;
    runs.label = label;
    // Index i is pair i in every shape: a pair that lacks this shape's value holds NaN here
    // instead of shifting the later pairs, so the aggregate never mixes pairs across shapes.
    bool any = false;
    for (const auto& p : pairs) {
      if (!p.candidate.ok || !p.best.ok) continue;
      auto c = p.candidate.summary.find(label);
      auto b = p.best.summary.find(label);
      const bool usable = c && b && *c > 0 && *b > 0;
      runs.candidate.push_back(usable ? *c : std::nan(""));
      runs.best.push_back(usable ? *b : std::nan(""));
      any = any || usable;
    }
    if (any) a.runs.push_back(std::move(runs));
  }
  for (const auto& p : pairs) {
    if (p.candidate.ok && p.best.ok) ++a.usablePairs;
  }
  return a;
}

std::optional<double> armMedian(const std::vector<PairRun>& pairs, bool candidateArm, const std::string& label) {
  std::vector<double> v;
  for (const auto& p : pairs) {
    const ArmRun& arm = candidateArm ? p.candidate : p.best;
    if (auto x = arm.summary.find(label)) v.push_back(*x);
  }
  if (v.empty()) return std::nullopt;
  return median(v);
}

std::vector<records::ShapeResult> medianResults(const std::vector<PairRun>& pairs, bool candidateArm,
                                                const measure::PrimaryMetric& metric) {
  std::vector<records::ShapeResult> out;
  const measure::BenchTable* first = nullptr;
  for (const auto& p : pairs) {
    const ArmRun& arm = candidateArm ? p.candidate : p.best;
    if (arm.table) {
      first = &*arm.table;
      break;
    }
  }
  if (!first) return out;
  for (const auto& row : first->rows) {
    records::ShapeResult r;
    r.label = row.label;
    const auto& schema = first->schema;
    for (const char* dim : {"B", "M", "N", "K"}) {
      if (auto i = schema.indexOf(dim)) {
        const double v = row.values[*i];
        if (std::isfinite(v)) r.dims.emplace_back(dim, std::to_string(static_cast<long long>(v)));
      }
    }
    measure::Check worst = measure::Check::Pass;
    bool seen = false;
    for (const auto& p : pairs) {
      const ArmRun& arm = candidateArm ? p.candidate : p.best;
      if (!arm.table) continue;
      if (const auto* other = arm.table->find(row.label)) {
        worst = worse(worst, arm.ok ? other->check : (other->check == measure::Check::Pass ? measure::Check::Error : other->check));
        seen = true;
      }
    }
    r.check = measure::toString(seen ? worst : measure::Check::Error);
    for (const auto& col : schema.metricColumns) {
      std::vector<double> values, stddevs;
      for (const auto& p : pairs) {
        const ArmRun& arm = candidateArm ? p.candidate : p.best;
        if (!arm.table) continue;
        const auto* other = arm.table->find(row.label);
        if (!other) continue;
        if (auto v = arm.table->value(*other, col); v && std::isfinite(*v)) values.push_back(*v);
        if (auto s = arm.table->stddev(*other, col); s && std::isfinite(*s)) stddevs.push_back(*s);
      }
      records::MetricCell cell;
      cell.name = col;
      if (!values.empty()) cell.value = median(values);
      if (!stddevs.empty()) cell.stddev = median(stddevs);
      r.metrics.push_back(cell);
    }
    if (auto m = armMedian(pairs, candidateArm, row.label)) r.primaryValue = *m;
    (void)metric;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace kopt::campaign
