// manifest.yaml -> Manifest. Type-level problems are found while reading each key; the meaning
// of the whole (derived language, metric vs schema, shapes) is checked by validateManifest(). All
// problems are collected so the user fixes the file in one pass.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "campaign/manifest.h"
#include "util/text.h"
#include "util/text_scanner.h"

namespace kopt::campaign {

namespace {

const char* const kGpuHint =
    "an arch (gfx942, gfx950, sm_90, sm_100, cpu) or a product (MI300X, MI325X, MI350X, MI355X, "
    "H100, H200, B200)";

// The keys of one section of manifestKeys(), for the unknown-key checks.
const std::set<std::string>& sectionKeys(const std::string& section) {
  static const std::map<std::string, std::set<std::string>> sets = [] {
    std::map<std::string, std::set<std::string>> out;
    for (const auto& [name, keys] : manifestKeys()) out[name] = std::set<std::string>(keys.begin(), keys.end());
    return out;
  }();
  return sets.at(section);
}

// "a, b, c or d"
std::string keyList(const std::string& section) {
  const auto& keys = manifestKeys().at(section);
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + keys[i];
  return out;
}

bool isNull(const YAML::Node& n) { return !n.IsDefined() || n.IsNull(); }

// A mapping key's name; nullopt for a key that is itself a list or mapping (`? [a]: 1`), which
// as<std::string>() met with an uncaught exception that aborted the server (fuzz_manifest).
std::optional<std::string> keyName(const YAML::Node& key) {
  if (!key.IsScalar()) return std::nullopt;
  return key.Scalar();
}

class Reader {
 public:
  explicit Reader(std::vector<FieldError>& errors) : errors_(errors) {}

  void error(const std::string& field, const std::string& message, const std::string& fix) {
    errors_.push_back({field, message, fix});
  }

  // One error per key of `section` (the mapping `n`) that manifestKeys() does not list, and per
  // key that is a list or mapping rather than a name.
  void unknownKeys(const YAML::Node& n, const std::string& section, const std::string& message) {
    const std::string prefix = section.empty() ? "" : section + ".";
    const std::string fix = section.empty() ? "remove it or check its spelling" : "use " + keyList(section);
    for (auto it = n.begin(); it != n.end(); ++it) {
      const auto key = keyName(it->first);
      if (!key) {
        error(section.empty() ? "manifest.yaml" : section, "has a " + kind(it->first) + " where a field's name belongs",
              "write plain names as keys: " + (section.empty() ? std::string("target_op: ...") : fix));
      } else if (!sectionKeys(section).count(*key)) {
        error(prefix + *key, message, fix);
      }
    }
  }

  // A scalar string; nullopt (with an error when `required`) when missing/null.
  std::optional<std::string> str(const YAML::Node& parent, const std::string& key,
                                 const std::string& field, bool required, const std::string& fix) {
    YAML::Node n = parent[key];
    if (isNull(n)) {
      if (required) error(field, "is required but missing", fix);
      return std::nullopt;
    }
    if (!n.IsScalar()) {
      error(field, "must be a single value, not a " + kind(n), fix);
      return std::nullopt;
    }
    std::string v = util::trim(n.Scalar());
    if (v.empty() && required) {
      error(field, "is required but empty", fix);
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::vector<std::string>> strList(const YAML::Node& parent, const std::string& key,
                                                  const std::string& field, bool scalarAllowed,
                                                  const std::string& fix) {
    YAML::Node n = parent[key];
    if (isNull(n)) return std::nullopt;
    std::vector<std::string> out;
    if (n.IsScalar() && scalarAllowed) {
      out.push_back(util::trim(n.Scalar()));
      return out;
    }
    if (!n.IsSequence()) {
      error(field, "must be a list of strings, not a " + kind(n), fix);
      return std::nullopt;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) {
        error(field + "[" + std::to_string(i) + "]", "must be a string, not a " + kind(n[i]), fix);
        return std::nullopt;
      }
      out.push_back(util::trim(n[i].Scalar()));
    }
    return out;
  }

  template <typename T>
  std::optional<T> number(const YAML::Node& parent, const std::string& key, const std::string& field,
                          const std::string& fix) {
    YAML::Node n = parent[key];
    if (isNull(n)) return std::nullopt;
    if (!n.IsScalar()) {
      error(field, "must be a number, not a " + kind(n), fix);
      return std::nullopt;
    }
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      error(field, "'" + n.Scalar() + "' is not a " +
                       (std::is_integral<T>::value ? "whole number" : "number"),
            fix);
      return std::nullopt;
    }
  }

  std::optional<bool> boolean(const YAML::Node& parent, const std::string& key,
                              const std::string& field) {
    YAML::Node n = parent[key];
    if (isNull(n)) return std::nullopt;
    try {
      if (n.IsScalar()) return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
    error(field, "'" + (n.IsScalar() ? n.Scalar() : kind(n)) + "' is not true or false",
          "set " + field + " to true or false");
    return std::nullopt;
  }

  static std::string kind(const YAML::Node& n) {
    if (n.IsSequence()) return "list";
    if (n.IsMap()) return "mapping";
    if (n.IsNull()) return "null";
    return "value";
  }

 private:
  std::vector<FieldError>& errors_;
};

void readCommand(Reader& r, const YAML::Node& root, const std::string& key, bool required,
                 Command& out) {
  auto text = r.str(root, key, key, required,
                    "set " + key + " to the command line kopt should run, e.g. "
                    "\"python bench.py --dtype fp8\"");
  if (!text || text->empty()) return;
  auto parsed = parseCommand(*text);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    r.error(key, "cannot be run without a shell: " + *err,
            "remove shell syntax, or wrap the command in bash -c '...' explicitly");
    return;
  }
  out = std::get<Command>(parsed);
}

namespace {
// Durations above ten years are no campaign's: refused as "not a duration" rather than let
// overflow (std::stoll threw on 9999...h, 999999999999999d wrapped).
constexpr long long kMaxDurationSeconds = 10LL * 366 * 86400;

// The digits as a number, or nullopt when it exceeds `limit`.
std::optional<long long> boundedDigits(const std::string& digits, long long limit) {
  long long v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') continue;
    v = v * 10 + (c - '0');
    if (v > limit) return std::nullopt;
  }
  return v;
}
}  // namespace

// `3600`, `90m`, `1h30m`, `2d 4h`: whole seconds, or digits-and-unit parts (d, h, m, s).
std::optional<long long> parseDurationSeconds(const std::string& text) {
  util::TextScanner s(text);
  s.skipSpaces();
  auto digits = s.digits();
  if (digits.empty()) return std::nullopt;
  s.skipSpaces();
  if (s.atEnd()) return boundedDigits(std::string(digits), kMaxDurationSeconds);
  long long total = 0;
  while (true) {
    const auto v = boundedDigits(std::string(digits), kMaxDurationSeconds);
    const char unit = s.peek();
    const long long scale = unit == 'd' ? 86400 : unit == 'h' ? 3600 : unit == 'm' ? 60 : unit == 's' ? 1 : 0;
    if (!v || scale == 0) return std::nullopt;
    s.take(unit);
    total += *v * scale;  // < 2^63: v <= 2^29
    if (total > kMaxDurationSeconds) return std::nullopt;
    s.skipSpaces();
    if (s.atEnd()) return total;
    digits = s.digits();
    if (digits.empty()) return std::nullopt;
    s.skipSpaces();
  }
}

// `> 1.5 TFLOPS`, `<= 80us`, `2e3 GB/s`: an optional comparison (default >), a number, a unit.
std::optional<PerformanceTarget> parsePerformanceTarget(const std::string& text) {
  const std::string body = util::trim(text);  // isspace: the same bytes as \s
  if (body.find_first_of("\n\r") != std::string::npos) return std::nullopt;  // one line only
  util::TextScanner s(body);
  PerformanceTarget t;
  t.text = text;
  t.comparison = ">";
  for (const char* op : {">=", "<=", ">", "<"}) {
    if (s.take(std::string_view(op))) {
      t.comparison = op;
      break;
    }
  }
  s.skipSpaces();
  const std::size_t from = s.position();
  s.digits();
  const std::size_t dot = s.position();
  if (s.take('.') && s.digits().empty()) s.rewind(dot);  // "1." is 1 followed by the unit "."
  if (s.position() == from) return std::nullopt;
  const std::size_t mantissaEnd = s.position();
  if (s.take('e') || s.take('E')) {
    if (!s.take('-')) s.take('+');
    if (s.digits().empty()) s.rewind(mantissaEnd);  // "5em" is 5 followed by the unit "em"
  }
  // strtod, not stod: "> 1e999" threw out_of_range from define_target ("internal error: stod").
  t.value = std::strtod(std::string(s.between(from, s.position())).c_str(), nullptr);
  if (!std::isfinite(t.value)) return std::nullopt;
  s.skipSpaces();
  t.unit = std::string(s.rest());
  return t;
}

void readSchema(Reader& r, const YAML::Node& root, Manifest& m) {
  YAML::Node n = root["schema"];
  if (isNull(n)) return;
  const std::string fix = "set schema to gemm, memory, or {kind: custom, columns: [...], "
                          "check_column: ..., metric_columns: [...]}";
  std::string kindText;
  if (n.IsScalar()) {
    kindText = util::toLower(util::trim(n.Scalar()));
  } else if (n.IsMap()) {
    auto k = r.str(n, "kind", "schema.kind", true, fix);
    if (!k) return;
    kindText = util::toLower(*k);
  } else {
    r.error("schema", "must be a name or a mapping, not a list", fix);
    return;
  }
  if (kindText == "gemm") {
    m.schema.kind = SchemaKind::Gemm;
  } else if (kindText == "memory") {
    m.schema.kind = SchemaKind::MemoryBound;
  } else if (kindText == "custom") {
    m.schema.kind = SchemaKind::Custom;
    if (!n.IsMap()) {
      r.error("schema", "custom needs columns, check_column and metric_columns", fix);
      return;
    }
    m.schema.columns = r.strList(n, "columns", "schema.columns", false, fix).value_or(
        std::vector<std::string>{});
    m.schema.checkColumn = r.str(n, "check_column", "schema.check_column", true, fix).value_or("");
    m.schema.metricColumns =
        r.strList(n, "metric_columns", "schema.metric_columns", false, fix).value_or(
            std::vector<std::string>{});
  } else {
    r.error(n.IsMap() ? "schema.kind" : "schema",
            "'" + kindText + "' is not one of gemm, memory, custom", fix);
  }
}

void readGate(Reader& r, const YAML::Node& root, Manifest& m) {
  YAML::Node n = root["gate"];
  if (isNull(n)) return;
  if (!n.IsMap()) {
    r.error("gate", "must be a mapping", "write gate: {regression_pct: 5, pairs: 8, ...}");
    return;
  }
  const std::string fix = "give a number";
  GatePolicy& g = m.gate;
  if (auto v = r.number<double>(n, "regression_pct", "gate.regression_pct", fix)) g.regressionPct = *v;
  if (auto v = r.number<double>(n, "near_noise_pct", "gate.near_noise_pct", fix)) g.nearNoisePct = *v;
  if (auto v = r.number<int>(n, "near_noise_remeasures", "gate.near_noise_remeasures", fix))
    g.nearNoiseRemeasures = *v;
  if (auto v = r.number<double>(n, "chain_drop_pct", "gate.chain_drop_pct", fix)) g.chainDropPct = *v;
  if (auto v = r.number<int>(n, "pairs", "gate.pairs", fix)) g.pairs = *v;
  if (auto v = r.number<double>(n, "family_alpha", "gate.family_alpha", fix)) g.familyAlpha = *v;
  if (auto v = r.number<double>(n, "margin_pct", "gate.margin_pct", fix)) g.marginPct = *v;
  if (auto v = r.number<double>(n, "target_mde_pct", "gate.target_mde_pct", fix)) g.targetMdePct = *v;
  if (auto v = r.number<int>(n, "max_looks", "gate.max_looks", fix)) g.maxLooks = *v;
  if (auto v = r.number<int>(n, "aa_sessions", "gate.aa_sessions", fix)) g.aaSessions = *v;
  // The cap follows the plan unless the manifest sets it: pairs * max_looks.
  if (auto v = r.number<int>(n, "max_pairs", "gate.max_pairs", fix)) g.maxPairs = *v;
  else if (isNull(n["max_pairs"])) g.maxPairs = g.pairs * g.maxLooks;
  r.unknownKeys(n, "gate", "is not a gate setting");
}

void readExecutor(Reader& r, const YAML::Node& root, Manifest& m) {
  YAML::Node n = root["executor"];
  if (isNull(n)) return;
  const std::string fix = "write executor: {kind: local} or {kind: slurm, partition: ..., gres: ...}";
  // The exec layer's messages start with the field they are about ("executor.time: ...").
  auto execProblem = [&](const std::string& problem, const std::string& howToFix) {
    const auto colon = problem.find(": ");
    if (colon == std::string::npos) r.error("executor", problem, howToFix);
    else r.error(problem.substr(0, colon), problem.substr(colon + 2), howToFix);
  };
  auto setKind = [&](const std::string& text) {
    auto kind = exec::parseExecutorKind(util::toLower(util::trim(text)));
    if (auto* k = std::get_if<ExecutorKind>(&kind)) m.executor.kind = *k;
    else execProblem(std::get<std::string>(kind), fix);
  };
  if (n.IsScalar()) {  // shorthand "executor: slurm"
    setKind(n.Scalar());
    return;
  }
  if (!n.IsMap()) {
    r.error("executor", "must be a mapping", fix);
    return;
  }
  if (auto k = r.str(n, "kind", "executor.kind", false, fix)) setKind(*k);
  m.executor.partition = r.str(n, "partition", "executor.partition", false, fix).value_or("");
  m.executor.gres = r.str(n, "gres", "executor.gres", false, fix).value_or("");
  m.executor.time = r.str(n, "time", "executor.time", false, fix).value_or("");
  m.executor.account = r.str(n, "account", "executor.account", false, fix).value_or("");
  if (auto mode = r.str(n, "mode", "executor.mode", false, "use srun, sbatch or auto")) {
    auto parsed = exec::parseSlurmMode(util::toLower(util::trim(*mode)));
    if (auto* v = std::get_if<exec::SlurmMode>(&parsed)) m.executor.mode = *v;
    else execProblem(std::get<std::string>(parsed), "use srun, sbatch or auto");
  }
  if (n["extra_args"].IsDefined() && n["extra_args"].IsScalar()) {
    auto parsed = exec::parseCommandLine(n["extra_args"].Scalar());
    if (auto* cmd = std::get_if<exec::ParsedCommand>(&parsed)) {
      m.executor.extraArgs = cmd->argv;
    } else {
      r.error("executor.extra_args", std::get<exec::CommandParseError>(parsed).message,
              "give extra_args as a YAML list of words");
    }
  } else if (auto list = r.strList(n, "extra_args", "executor.extra_args", false,
                                   "give extra_args as a YAML list of words")) {
    m.executor.extraArgs = *list;
  }
  if (auto devices = r.strList(n, "devices", "executor.devices", false,
                               "give the device ids to shard a full validation over, e.g. [0, 1]")) {
    m.executor.devices = *devices;
  }
  r.unknownKeys(n, "executor", "is not an executor setting");
  // The exec layer's own checks (a Slurm time that is not one, a partition with a space, ...)
  // at DEFINE_TARGET, not at the first srun; its message already starts with the field.
  if (auto problem = exec::validate(m.executor)) execProblem(*problem, fix);
}

void readTimeouts(Reader& r, const YAML::Node& root, Manifest& m) {
  YAML::Node n = root["timeouts"];
  if (isNull(n)) return;
  const std::string fix = "give seconds (3600) or a duration (1h, 30m)";
  if (!n.IsMap()) {
    r.error("timeouts", "must be a mapping of build/test/bench/hang", fix);
    return;
  }
  auto one = [&](const char* key, int& out) {
    YAML::Node v = n[key];
    if (isNull(v)) return;
    std::string field = std::string("timeouts.") + key;
    if (!v.IsScalar()) {
      r.error(field, "must be a single value", fix);
      return;
    }
    auto secs = parseDurationSeconds(v.Scalar());
    if (!secs || *secs <= 0 || *secs > 7 * 86400) {
      r.error(field, "'" + v.Scalar() + "' is not a duration between 1s and 7d", fix);
      return;
    }
    out = static_cast<int>(*secs);
  };
  one("build", m.timeouts.buildSeconds);
  one("test", m.timeouts.testSeconds);
  one("bench", m.timeouts.benchSeconds);
  one("hang", m.timeouts.hangSeconds);
  r.unknownKeys(n, "timeouts", "is not a timeout");
}

void readBench(Reader& r, const YAML::Node& root, Manifest& m) {
  YAML::Node n = root["bench"];
  if (isNull(n)) return;
  if (!n.IsMap()) {
    r.error("bench", "must be a mapping of protocol and batch_ms", "e.g. bench: {protocol: worker, batch_ms: 5}");
    return;
  }
  r.unknownKeys(n, "bench", "is not a bench setting");
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = keyName(it->first).value_or("");
    const YAML::Node v = it->second;
    if (key == "protocol") {
      const std::string text = v.IsScalar() ? util::toLower(util::trim(v.Scalar())) : "";
      if (text == "worker") m.bench.protocol = BenchProtocol::Worker;
      else if (text == "csv") m.bench.protocol = BenchProtocol::Csv;
      else r.error("bench.protocol", "must be worker or csv", "worker when the bench command answers --serve (harness/WORKER-PROTOCOL.md), else csv");
    } else if (key == "batch_ms") {
      double ms = 0;
      char* end = nullptr;
      const std::string text = v.IsScalar() ? util::trim(v.Scalar()) : "";
      if (!text.empty()) ms = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(ms >= 0.5 && ms <= 1000)) {
        r.error("bench.batch_ms", "must be a number of milliseconds between 0.5 and 1000", "e.g. 5 for a GPU kernel, 20 for a CPU one");
      } else {
        m.bench.batchMs = ms;
      }
    }
  }
}

}  // namespace

const std::map<std::string, std::vector<std::string>>& manifestKeys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"",
       {"target_op", "target_backend", "target_lang", "target_gpu", "execution_mode", "project_skill",
        "performance_target", "primary_metric", "target_shapes", "kernel_source", "test_command",
        "benchmark_command", "quick_command", "build_command", "profile_command", "representative_shapes",
        "git_commit", "git_branch", "base_branch", "max_iterations", "max_duration", "created", "schema", "gate",
        "executor", "timeouts", "bench", "tips_root"}},
      {"schema", {"kind", "columns", "check_column", "metric_columns"}},
      {"gate",
       {"regression_pct", "near_noise_pct", "near_noise_remeasures", "chain_drop_pct", "pairs", "max_pairs",
        "family_alpha", "margin_pct", "target_mde_pct", "max_looks", "aa_sessions"}},
      {"executor", {"kind", "partition", "gres", "time", "account", "extra_args", "mode", "devices"}},
      {"timeouts", {"build", "test", "bench", "hang"}},
      {"bench", {"protocol", "batch_ms"}},
  };
  return keys;
}

ManifestResult parseManifest(const std::string& yamlText) {
  std::vector<FieldError> errors;
  YAML::Node root;
  try {
    root = YAML::Load(yamlText);
  } catch (const YAML::Exception& e) {
    errors.push_back({"manifest.yaml", std::string("is not valid YAML: ") + e.what(),
                      "fix the YAML syntax at the line shown"});
    return errors;
  }
  if (!root.IsMap()) {
    errors.push_back({"manifest.yaml", "must be a mapping of fields (target_op: ..., ...)",
                      "start from a manifest in manifests/"});
    return errors;
  }
  Reader r(errors);
  Manifest m;

  r.unknownKeys(root, "", "is not a manifest field");

  m.targetOp = r.str(root, "target_op", "target_op", true,
                     "set target_op to the operator's name, e.g. gemm_fp8_blockwise").value_or("");

  if (auto b = r.str(root, "target_backend", "target_backend", true,
                     "set target_backend to one of " + backendNames())) {
    if (auto backend = backendFromString(*b)) {
      m.targetBackend = *backend;
    } else {
      r.error("target_backend", "'" + *b + "' is not one of " + backendNames(),
              "set target_backend to one of " + backendNames());
    }
  }
  m.targetLang = languageFor(m.targetBackend);
  if (auto lang = r.str(root, "target_lang", "target_lang", false, "")) {
    if (!lang->empty() && util::toLower(*lang) != util::toLower(toString(m.targetLang))) {
      r.error("target_lang",
              "'" + *lang + "' does not match target_backend " + toString(m.targetBackend) +
                  " (which implies " + toString(m.targetLang) + ")",
              "remove target_lang (it is derived) or set it to " + std::string(toString(m.targetLang)));
    }
  }

  if (auto g = r.str(root, "target_gpu", "target_gpu", true, std::string("set target_gpu to ") + kGpuHint)) {
    if (auto arch = archForGpu(*g)) {
      m.targetGpu = *arch;
    } else {
      r.error("target_gpu", "'" + *g + "' is not a known GPU", std::string("use ") + kGpuHint);
    }
  }

  if (auto mode = r.str(root, "execution_mode", "execution_mode", false, "")) {
    std::string ml = util::toLower(*mode);
    if (ml == "repo") m.executionMode = ExecutionMode::Repo;
    else if (ml == "workspace") m.executionMode = ExecutionMode::Workspace;
    else r.error("execution_mode", "'" + *mode + "' is not one of repo, workspace",
                 "set execution_mode to repo or workspace");
  }

  m.projectSkill = r.str(root, "project_skill", "project_skill", false, "").value_or("");

  if (auto pt = r.str(root, "performance_target", "performance_target", false, "")) {
    if (!pt->empty() && util::toLower(*pt) != "null" && util::toLower(*pt) != "none") {
      if (auto t = parsePerformanceTarget(*pt)) {
        m.performanceTarget = *t;
      } else {
        r.error("performance_target", "'" + *pt + "' is not a target like \"> 500 TFLOPS\"",
                "write a comparison, a number and a unit (\"> 500 TFLOPS\"), or null");
      }
    }
  }

  if (auto pm = r.str(root, "primary_metric", "primary_metric", true,
                      "set primary_metric to Forward TFLOPS, Combined Step TFLOPS, Forward GB/s, "
                      "Backward GB/s, or a metric column of a custom schema")) {
    m.primaryMetric = primaryMetricFromString(*pm);
  } else {
  }

  {
    YAML::Node ts = root["target_shapes"];
    if (!isNull(ts)) {
      if (ts.IsScalar()) {
        if (util::toLower(util::trim(ts.Scalar())) != "all") {
          r.error("target_shapes", "'" + ts.Scalar() + "' is neither all nor a list",
                  "write target_shapes: all, or a YAML list of shape labels");
        }
      } else if (auto labels = r.strList(root, "target_shapes", "target_shapes", false,
                                         "write target_shapes: all, or a YAML list of shape labels")) {
        m.targetShapes.all = false;
        m.targetShapes.labels = *labels;
      } else {
      }
    }
  }

  if (auto ks = r.strList(root, "kernel_source", "kernel_source", true,
                          "set kernel_source to a repo-relative path or a list of them")) {
    m.kernelSource = *ks;
  } else if (isNull(root["kernel_source"])) {
    r.error("kernel_source", "is required but missing",
            "set kernel_source to the repo-relative path(s) of the kernel, e.g. "
            "primus_turbo/triton/gemm/gemm_fp8_kernel.py");
  }

  readCommand(r, root, "test_command", true, m.testCommand);
  readCommand(r, root, "benchmark_command", true, m.benchmarkCommand);
  readCommand(r, root, "quick_command", true, m.quickCommand);
  readCommand(r, root, "build_command", false, m.buildCommand);
  readCommand(r, root, "profile_command", false, m.profileCommand);

  if (auto rs = r.strList(root, "representative_shapes", "representative_shapes", false,
                          "write representative_shapes as a YAML list of labels (or leave it empty)")) {
    m.representativeShapes = *rs;
  }

  if (auto gc = r.boolean(root, "git_commit", "git_commit")) m.gitCommit = *gc;

  if (auto gb = r.str(root, "git_branch", "git_branch", false, "")) {
    std::string lower = util::toLower(*gb);
    if (gb->empty() || lower == "auto") m.gitBranch = {GitBranch::Kind::Auto, ""};
    else if (lower == "none") m.gitBranch = {GitBranch::Kind::None, ""};
    else m.gitBranch = {GitBranch::Kind::Named, *gb};
  } else if (root["git_branch"].IsDefined() && root["git_branch"].IsNull()) {
    m.gitBranch = {GitBranch::Kind::None, ""};
  }

  m.baseBranch = r.str(root, "base_branch", "base_branch", false, "").value_or("");

  {
    YAML::Node mi = root["max_iterations"];
    if (!isNull(mi)) {
      if (auto v = r.number<long long>(root, "max_iterations", "max_iterations",
                                       "set max_iterations to a whole number below 120, or null")) {
        if (*v < 1 || *v >= 120) {
          r.error("max_iterations", std::to_string(*v) + " is out of range (1..119)",
                  "set max_iterations to a whole number below 120, or null");
        } else {
          m.maxIterations = static_cast<int>(*v);
        }
      }
    }
  }

  if (auto md = r.str(root, "max_duration", "max_duration", false, "")) {
    if (!md->empty() && util::toLower(*md) != "null") {
      auto secs = parseDurationSeconds(*md);
      if (!secs || *secs <= 0) {
        r.error("max_duration", "'" + *md + "' is not a duration like 4h, 90m or 1h30m",
                "write max_duration as <number><d|h|m|s>, e.g. 4h, or null");
      } else {
        m.maxDuration = Duration{*md, *secs};
      }
    }
  }

  m.created = r.str(root, "created", "created", false, "").value_or("");

  readSchema(r, root, m);
  readGate(r, root, m);
  readExecutor(r, root, m);
  readTimeouts(r, root, m);
  readBench(r, root, m);
  m.tipsRoot = r.str(root, "tips_root", "tips_root", false, "").value_or("");

  // Meaning-level checks; a field already reported (missing or unreadable) is not reported twice.
  std::set<std::string> reported;
  for (const auto& e : errors) reported.insert(e.field);
  for (auto& e : validateManifest(m)) {
    if (reported.count(e.field)) continue;
    errors.push_back(e);
    reported.insert(e.field);
  }
  if (!errors.empty()) return errors;
  return m;
}

}  // namespace kopt::campaign
