// Whole-manifest checks that need more than one field or a value's meaning. Used by
// parseManifest() and by define_target, which builds a Manifest from tool arguments.
#include <algorithm>
#include <regex>
#include <set>

#include "campaign/manifest.h"
#include "util/text.h"
#include "util/text_scanner.h"

namespace kopt::campaign {

namespace {

bool isSafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/' || p[0] == '~') return false;
  for (const auto& part : util::split(p, '/')) {
    if (part == "..") return false;
  }
  return p.find('\0') == std::string::npos;
}

// git check-ref-format rules, the subset that matters for a branch name a human types.
bool isValidBranchName(const std::string& b) {
  if (b.empty() || b[0] == '-' || b[0] == '/' || b.back() == '/' || b.back() == '.') return false;
  if (util::endsWith(b, ".lock") || b.find("..") != std::string::npos ||
      b.find("//") != std::string::npos || b.find("@{") != std::string::npos || b == "@") {
    return false;
  }
  for (char c : b) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' || c == '?' ||
        c == '*' || c == '[' || c == '\\') {
      return false;
    }
  }
  for (const auto& part : util::split(b, '/')) {
    if (!part.empty() && part[0] == '.') return false;
  }
  return true;
}

// [A-Za-z0-9][A-Za-z0-9_.-]*: a file name component (the campaign directory is named after it).
bool isOperatorName(const std::string& op) {
  auto plain = [](char c) { return util::isWordChar(c) && c != '_'; };
  if (op.empty() || !plain(op[0])) return false;
  return std::all_of(op.begin(), op.end(), [](char c) { return util::isWordChar(c) || c == '.' || c == '-'; });
}

bool isValidCreated(const std::string& c) {
  static const std::regex re(R"((\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}))");
  std::smatch m;
  if (c.size() != 16 || !std::regex_match(c, m, re)) return false;  // short input only (text_scanner.h)
  int mon = std::stoi(m[2]), day = std::stoi(m[3]), hour = std::stoi(m[4]), min = std::stoi(m[5]);
  return mon >= 1 && mon <= 12 && day >= 1 && day <= 31 && hour <= 23 && min <= 59;
}

void checkLabels(std::vector<FieldError>& errors, const std::string& field,
                 const std::vector<std::string>& labels) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string& l = labels[i];
    std::string f = field + "[" + std::to_string(i) + "]";
    if (l.empty()) {
      errors.push_back({f, "is an empty shape label", "remove the empty entry"});
    } else if (l.find(',') != std::string::npos) {
      // Labels travel to the harness as --shapes L1,L2,...
      errors.push_back({f, "'" + l + "' contains a comma", "use shape labels without commas"});
    } else if (!seen.insert(l).second) {
      errors.push_back({f, "'" + l + "' is listed twice", "list each shape once"});
    }
  }
}

}  // namespace

std::vector<FieldError> validateManifest(const Manifest& m) {
  std::vector<FieldError> errors;
  if (m.targetOp.empty()) {
    errors.push_back({"target_op", "is required but missing",
                      "set target_op to the operator's name, e.g. gemm_fp8_blockwise"});
  } else if (!isOperatorName(m.targetOp) || m.targetOp.find("..") != std::string::npos) {
    errors.push_back({"target_op", "'" + m.targetOp + "' has characters a path cannot hold",
                      "use letters, digits, '_', '-' and '.' only"});
  }
  if (m.targetLang != languageFor(m.targetBackend)) {
    errors.push_back({"target_lang",
                      std::string("'") + toString(m.targetLang) + "' does not match target_backend " +
                          toString(m.targetBackend),
                      std::string("set target_lang to ") + toString(languageFor(m.targetBackend))});
  }
  if (m.targetGpu.empty()) {
    errors.push_back({"target_gpu", "is required but missing",
                      "set target_gpu to an arch (gfx942, sm_90, cpu) or a product (MI300X, H100)"});
  } else if (archForGpu(m.targetGpu) != m.targetGpu) {
    errors.push_back({"target_gpu", "'" + m.targetGpu + "' is not an arch name",
                      "use gfx942, gfx950, sm_90, sm_100 or cpu"});
  }
  if ((m.targetGpu == "cpu") != (m.targetBackend == Backend::Cpu) && !m.targetGpu.empty()) {
    errors.push_back({"target_gpu",
                      "'" + m.targetGpu + "' does not fit target_backend " + toString(m.targetBackend),
                      "use target_gpu: cpu exactly with target_backend: CPU"});
  }

  // Primary metric against the schema.
  const PrimaryMetric& pm = m.primaryMetric;
  switch (m.schema.kind) {
    case SchemaKind::Gemm:
      if (pm.kind != MetricKind::ForwardTflops && pm.kind != MetricKind::CombinedStepTflops) {
        errors.push_back({"primary_metric", "'" + pm.column + "' is not a metric of the gemm schema",
                          "use Forward TFLOPS or Combined Step TFLOPS (or set schema)"});
      }
      break;
    case SchemaKind::MemoryBound:
      if (pm.kind != MetricKind::ForwardGbps && pm.kind != MetricKind::BackwardGbps) {
        errors.push_back({"primary_metric",
                          "'" + pm.column + "' is not a metric of the memory schema",
                          "use Forward GB/s or Backward GB/s"});
      }
      break;
    case SchemaKind::Custom: {
      const auto& mc = m.schema.metricColumns;
      if (std::find(mc.begin(), mc.end(), pm.column) == mc.end()) {
        errors.push_back({"primary_metric",
                          "'" + pm.column + "' is not one of schema.metric_columns (" +
                              util::join(mc, ", ") + ")",
                          "name one of the custom schema's metric columns"});
      }
      break;
    }
  }
  if (pm.column.empty()) {
    errors.push_back({"primary_metric", "is required but missing",
                      "set primary_metric, e.g. Combined Step TFLOPS"});
  }

  if (m.schema.kind == SchemaKind::Custom) {
    const auto& cols = m.schema.columns;
    std::set<std::string> colSet(cols.begin(), cols.end());
    if (cols.empty()) {
      errors.push_back({"schema.columns", "is required for a custom schema",
                        "list the CSV header's columns in order"});
    } else {
      if (colSet.size() != cols.size()) {
        errors.push_back({"schema.columns", "lists a column twice", "list each column once"});
      }
      if (cols.front() != "label") {
        errors.push_back({"schema.columns", "must start with label", "put label first"});
      }
    }
    if (m.schema.checkColumn.empty() || !colSet.count(m.schema.checkColumn)) {
      errors.push_back({"schema.check_column",
                        "'" + m.schema.checkColumn + "' is not one of schema.columns",
                        "name the correctness column (e.g. Check)"});
    }
    if (m.schema.metricColumns.empty()) {
      errors.push_back({"schema.metric_columns", "is required for a custom schema",
                        "list the metric columns (higher is better)"});
    }
    for (const auto& mcol : m.schema.metricColumns) {
      if (!colSet.count(mcol)) {
        errors.push_back({"schema.metric_columns", "'" + mcol + "' is not one of schema.columns",
                          "list only columns of the header"});
      } else if (!colSet.count(mcol + "_stddev")) {
        errors.push_back({"schema.metric_columns",
                          "'" + mcol + "' has no '" + mcol + "_stddev' column",
                          "add '" + mcol + "_stddev' to schema.columns"});
      }
    }
  }

  if (!m.targetShapes.all) {
    if (m.targetShapes.labels.empty()) {
      errors.push_back({"target_shapes", "is an empty list", "write all, or list the shape labels"});
    }
    checkLabels(errors, "target_shapes", m.targetShapes.labels);
  }
  checkLabels(errors, "representative_shapes", m.representativeShapes);
  if (!m.targetShapes.all) {
    std::set<std::string> target(m.targetShapes.labels.begin(), m.targetShapes.labels.end());
    for (std::size_t i = 0; i < m.representativeShapes.size(); ++i) {
      if (!target.count(m.representativeShapes[i])) {
        errors.push_back({"representative_shapes[" + std::to_string(i) + "]",
                          "'" + m.representativeShapes[i] + "' is not in target_shapes",
                          "pick representative shapes among target_shapes"});
      }
    }
  }

  if (m.kernelSource.empty()) {
    errors.push_back({"kernel_source", "is required but missing",
                      "set kernel_source to the repo-relative path(s) of the kernel"});
  }
  for (std::size_t i = 0; i < m.kernelSource.size(); ++i) {
    if (!isSafeRelativePath(m.kernelSource[i])) {
      errors.push_back({"kernel_source[" + std::to_string(i) + "]",
                        "'" + m.kernelSource[i] + "' is not a path inside the repository",
                        "give a repo-relative path without '..'"});
    }
  }

  auto requireCommand = [&](const Command& c, const char* field) {
    if (c.empty() || c.parsed.argv.empty()) {
      errors.push_back({field, "is required but missing",
                        std::string("set ") + field + " to the command line kopt should run"});
    }
  };
  requireCommand(m.testCommand, "test_command");
  requireCommand(m.benchmarkCommand, "benchmark_command");
  requireCommand(m.quickCommand, "quick_command");

  if (m.gitBranch.kind == GitBranch::Kind::Named && !isValidBranchName(m.gitBranch.name)) {
    errors.push_back({"git_branch", "'" + m.gitBranch.name + "' is not a valid git branch name",
                      "use auto, none, or a name like optimize/my-campaign"});
  }
  if (!m.baseBranch.empty() && !isValidBranchName(m.baseBranch)) {
    errors.push_back({"base_branch", "'" + m.baseBranch + "' is not a valid git branch name",
                      "name an existing branch, e.g. main"});
  }
  if (m.maxIterations && (*m.maxIterations < 1 || *m.maxIterations >= 120)) {
    errors.push_back({"max_iterations", std::to_string(*m.maxIterations) + " is out of range (1..119)",
                      "set max_iterations to a whole number below 120, or null"});
  }
  if (m.maxDuration && m.maxDuration->seconds <= 0) {
    errors.push_back({"max_duration", "'" + m.maxDuration->text + "' is not a positive duration",
                      "write e.g. 4h"});
  }
  if (!m.created.empty() && !isValidCreated(m.created)) {
    errors.push_back({"created", "'" + m.created + "' is not YYYY-MM-DD HH:MM",
                      "write created like 2026-04-12 09:30"});
  }

  const GatePolicy& g = m.gate;
  if (!(g.regressionPct > 0 && g.regressionPct < 100))
    errors.push_back({"gate.regression_pct", "must be between 0 and 100 (exclusive)", "e.g. 5"});
  if (!(g.nearNoisePct >= 0 && g.nearNoisePct < 100))
    errors.push_back({"gate.near_noise_pct", "must be between 0 and 100", "e.g. 2"});
  if (g.nearNoiseRemeasures < 0 || g.nearNoiseRemeasures > 100)
    errors.push_back({"gate.near_noise_remeasures", "must be between 0 and 100", "e.g. 3"});
  if (!(g.chainDropPct >= 0 && g.chainDropPct < 100))
    errors.push_back({"gate.chain_drop_pct", "must be between 0 and 100", "e.g. 1"});
  // Blocks per look: fewer than 4 leave 1-2 df t-tests that call every shape INCONCLUSIVE up to
  // the cap, and an odd count leaves the ABBA/BAAB order effect uncancelled.
  if (g.pairs < 4 || g.pairs > 1000)
    errors.push_back({"gate.pairs", "must be between 4 and 1000 blocks per look (" + std::to_string(g.pairs) + " given)",
                      "use 8 (the default), or another even number of at least 4"});
  else if (g.pairs % 2)
    errors.push_back({"gate.pairs", "must be even (" + std::to_string(g.pairs) +
                                        " given): the blocks alternate ABBA and BAAB, an odd count leaves an order effect",
                      "use " + std::to_string(g.pairs + 1) + " or " + std::to_string(g.pairs - 1)});
  if (g.maxLooks < 1 || g.maxLooks > 10)
    errors.push_back({"gate.max_looks", "must be between 1 and 10", "e.g. 3"});
  if (g.maxPairs < g.pairs || g.maxPairs > 1000)
    errors.push_back({"gate.max_pairs", "must be at least gate.pairs and at most 1000",
                      "e.g. gate.pairs * gate.max_looks (" + std::to_string(g.pairs * std::max(g.maxLooks, 1)) + ")"});
  else if (g.maxLooks >= 1 && g.maxLooks <= 10 && g.maxPairs > g.pairs * g.maxLooks)
    errors.push_back({"gate.max_pairs", "is " + std::to_string(g.maxPairs) + " but the looks end at gate.pairs * gate.max_looks = " +
                                            std::to_string(g.pairs * g.maxLooks) + " blocks",
                      "set max_pairs to " + std::to_string(g.pairs * g.maxLooks) + " or raise gate.max_looks"});
  // Fewer than 3 sessions cannot tell a process effect from noise at all; each one costs the
  // baseline a worker session (about 10 s on an H100: docs/performance.md).
  if (g.aaSessions < 3 || g.aaSessions > 12)
    errors.push_back({"gate.aa_sessions", "must be between 3 and 12 worker sessions (" + std::to_string(g.aaSessions) + " given)",
                      "use 3 (the default), or 5-6 where narrower intervals on shapes whose sessions disagree are worth the baseline's time"});
  if (!(g.familyAlpha > 0 && g.familyAlpha < 1))
    errors.push_back({"gate.family_alpha", "must be between 0 and 1 (exclusive)", "e.g. 0.05"});
  if (!(g.marginPct > 0 && g.marginPct <= g.regressionPct))
    errors.push_back({"gate.margin_pct", "must be above 0 and at most gate.regression_pct", "e.g. 1.5"});
  if (!(g.targetMdePct > g.marginPct && g.targetMdePct < 100))
    errors.push_back({"gate.target_mde_pct",
                      "must be above gate.margin_pct (an MDE is never below the margin) and below 100", "e.g. 2"});

  for (auto [v, f] : {std::pair<int, const char*>{m.timeouts.buildSeconds, "timeouts.build"},
                      {m.timeouts.testSeconds, "timeouts.test"},
                      {m.timeouts.benchSeconds, "timeouts.bench"},
                      {m.timeouts.hangSeconds, "timeouts.hang"}}) {
    if (v <= 0) errors.push_back({f, "must be a positive number of seconds", "e.g. 3600"});
  }
  if (m.bench.protocol == BenchProtocol::Worker) {
    if (!(m.bench.batchMs >= 0.5 && m.bench.batchMs <= 1000))
      errors.push_back({"bench.batch_ms", "must be between 0.5 and 1000 milliseconds", "e.g. 5"});
    // The workers are stopped and resumed batch by batch: a local process, not a Slurm step.
    if (m.executor.kind != ExecutorKind::Local)
      errors.push_back({"bench.protocol", "worker needs the local executor (kopt stops and resumes each worker between batches)",
                        "run kopt on the GPU node with executor.kind local, or use bench.protocol csv"});
    if (m.executor.devices.size() > 1)
      errors.push_back({"bench.protocol", "worker measures both arms on one device; executor.devices shards process runs",
                        "leave executor.devices empty with bench.protocol worker"});
    // A block's value is computed from the calls' times; a custom column has no times.
    if (m.primaryMetric.kind == MetricKind::Custom)
      errors.push_back({"bench.protocol", "worker needs a time-based primary metric (TFLOPS or GB/s), not a custom column",
                        "use bench.protocol csv for a custom metric"});
  }
  return errors;
}

}  // namespace kopt::campaign
