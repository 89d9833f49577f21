#include "cli/init_plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "campaign/manifest.h"
#include "util/text.h"

namespace kopt::cli {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kDtypes = {"fp32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2"};
const std::vector<std::string> kChecks = {"fp32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2", "fp4"};

bool oneOf(const std::string& v, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

std::optional<std::int64_t> positive(std::string_view text) {
  std::int64_t v = 0;
  const auto t = util::trim(text);
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v <= 0) return std::nullopt;
  return v;
}

bool plainName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

// A YAML scalar: JSON's quoting is valid YAML double-quoted style.
std::string yamlString(const std::string& s) { return nlohmann::json(s).dump(); }

std::string harnessWords(const InitRequest& q) {
  const InitFiles f = initFiles(q);
  return q.python + " " + f.harness + " --config " + f.config;
}

bool memoryKind(const InitRequest& q) { return q.kind == "memory"; }
bool forwardOnly(const InitRequest& q) { return q.backward == "none"; }

}  // namespace

bool PythonKernelTraits::has(std::string_view name) const {
  return std::find(functions.begin(), functions.end(), name) != functions.end();
}

std::variant<InitShape, std::string> parseShapeFlag(std::string_view text) {
  const auto eq = text.find('=');
  const std::string usage = "expected LABEL=B,M,N (memory-bound) or LABEL=B,M,N,K (GEMM), e.g. rms_4k=1,4096,4096";
  if (eq == std::string_view::npos) return "'" + std::string(text) + "': " + usage;
  InitShape s;
  s.label = util::trim(text.substr(0, eq));
  if (!plainName(s.label)) {
    return "'" + std::string(text) + "': the label must be letters, digits, '_', '-' or '.'";
  }
  const auto dims = util::split(text.substr(eq + 1), ',');
  if (dims.size() != 3 && dims.size() != 4) return "'" + std::string(text) + "': " + usage;
  std::vector<std::int64_t> v;
  for (const auto& d : dims) {
    auto n = positive(d);
    if (!n) return "'" + std::string(text) + "': '" + d + "' is not a positive integer";
    v.push_back(*n);
  }
  s.b = v[0];
  s.m = v[1];
  s.n = v[2];
  if (v.size() == 4) s.k = v[3];
  return s;
}

PythonKernelTraits inspectPythonKernel(std::string_view source) {
  PythonKernelTraits t;
  for (const auto& raw : util::splitLines(source)) {
    const std::string_view line(raw);
    if (util::startsWith(line, "def ") || util::startsWith(line, "async def ")) {
      const auto start = line.find("def ") + 4;
      const auto paren = line.find('(', start);
      if (paren == std::string_view::npos) continue;
      const std::string name = util::trim(line.substr(start, paren - start));
      if (plainName(name) && !t.has(name)) t.functions.push_back(name);
    }
    const std::string trimmed = util::trim(line);
    if (util::startsWith(trimmed, "@triton.jit") || util::startsWith(trimmed, "@triton.autotune") ||
        util::startsWith(trimmed, "@jit")) {
      t.triton = true;
    }
  }
  return t;
}

std::variant<InitRequest, std::string> parseInitArgs(const Args& args) {
  InitRequest q;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    std::string* target = nullptr;
    if (a == "--repo") target = &q.repo;
    else if (a == "--kernel") target = &q.kernel;
    else if (a == "--bench-command") target = &q.benchCommand;
    else if (a == "--test-command") target = &q.testCommand;
    else if (a == "--build-command") target = &q.buildCommand;
    else if (a == "--kind") target = &q.kind;
    else if (a == "--backend") target = &q.backend;
    else if (a == "--forward") target = &q.forward;
    else if (a == "--backward") target = &q.backward;
    else if (a == "--dtype") target = &q.dtype;
    else if (a == "--check") target = &q.check;
    else if (a == "--device") target = &q.device;
    else if (a == "--gpu") target = &q.gpu;
    else if (a == "--op") target = &q.op;
    else if (a == "--metric") target = &q.metric;
    else if (a == "--validate-shape") target = &q.validateShape;
    else if (a == "--python") target = &q.python;
    else if (a == "--dir") target = &q.dir;
    if (target) {
      auto v = value();
      if (!v || v->empty()) return a + " needs a value (kopt init --help)";
      *target = *v;
      continue;
    }
    if (a == "--kernel-source" || a == "--shape") {
      auto v = value();
      if (!v || v->empty()) return a + " needs a value (kopt init --help)";
      if (a == "--kernel-source") {
        q.kernelSources.push_back(*v);
        continue;
      }
      auto shape = parseShapeFlag(*v);
      if (auto* err = std::get_if<std::string>(&shape)) return "--shape " + *err;
      q.shapes.push_back(std::get<InitShape>(shape));
      continue;
    }
    if (a == "--batch-ms") {
      auto v = value();
      char* end = nullptr;
      q.batchMs = v ? std::strtod(v->c_str(), &end) : 0;
      if (!v || end == v->c_str() || *end != '\0' || !(q.batchMs >= 1 && q.batchMs <= 1000)) {
        return "--batch-ms needs a number of milliseconds from 1 to 1000 (the time of one measured batch)";
      }
      continue;
    }
    if (a == "--force") q.force = true;
    else if (a == "--no-commit") q.commit = false;
    else if (a == "--no-validate") q.validate = false;
    else return "unknown option '" + a + "' (kopt init --help lists them)";
  }
  if (!q.kernel.empty() && q.ownBench()) {
    return "--kernel and --bench-command exclude each other: --kernel uses kopt's Python harness on a .py module, "
           "--bench-command your own benchmark that follows the bench contract";
  }
  if (!q.kind.empty() && q.kind != "gemm" && q.kind != "memory") return "--kind must be gemm or memory, got '" + q.kind + "'";
  if (!q.device.empty() && q.device != "cuda" && q.device != "cpu") return "--device must be cuda or cpu, got '" + q.device + "'";
  if (!oneOf(q.dtype, kDtypes)) return "--dtype must be one of " + util::join(kDtypes, ", ") + ", got '" + q.dtype + "'";
  if (!q.check.empty() && !oneOf(q.check, kChecks)) {
    return "--check must be one of " + util::join(kChecks, ", ") + ", got '" + q.check + "'";
  }
  if (!q.backend.empty()) {
    auto b = campaign::backendFromString(q.backend);
    if (!b) return "--backend '" + q.backend + "' is not one of " + campaign::backendNames();
    q.backend = campaign::toString(*b);
  }
  if (!q.op.empty() && !plainName(q.op)) return "--op must be letters, digits, '_', '-' or '.', got '" + q.op + "'";
  for (const auto& part : util::split(q.dir, '/')) {
    if (!plainName(part) || part == "." || part == "..") {
      return "--dir must be a folder inside the repository (names of letters, digits, '_', '-', '.'), got '" + q.dir + "'";
    }
  }
  return q;
}

std::vector<std::string> completeInitRequest(InitRequest& q, const PythonKernelTraits& traits) {
  std::vector<std::string> problems;
  if (q.kernel.empty() && !q.ownBench()) {
    problems.push_back("--kernel FILE.py (your kernel module, for kopt's harness) or --bench-command CMD (your own bench) is required");
    return problems;
  }
  const bool python = !q.ownBench();
  if (q.kind.empty()) {
    if (python) q.kind = traits.has("make_inputs") && traits.has("reference_forward") ? "memory" : "gemm";
    else problems.push_back("--kind gemm|memory is required with --bench-command (which frozen CSV schema it writes)");
  }
  if (q.backward.empty()) q.backward = python && traits.has("backward") ? "backward" : "none";
  if (q.backend.empty()) {
    if (python && (traits.triton || !traits.importedKernels.empty())) q.backend = "TRITON";
    else if (q.device == "cpu") q.backend = "CPU";
    else problems.push_back(std::string("--backend is required") +
                            (python ? ": neither " + q.kernel + " nor the repository files it imports hold an @triton.jit kernel" : "") +
                            "; name its backend: --backend " + campaign::backendNames());
  }
  if (q.device.empty()) q.device = q.backend == "CPU" ? "cpu" : "cuda";
  if ((q.device == "cpu") != (q.backend == "CPU") && !q.backend.empty()) {
    problems.push_back("--device cpu goes with --backend CPU (and a GPU backend with --device cuda)");
  }
  if (q.device == "cpu") {
    if (!q.gpu.empty() && q.gpu != "cpu") problems.push_back("--gpu must be cpu with --device cpu");
    q.gpu = "cpu";
  }
  if (q.check.empty()) q.check = q.dtype;
  if (q.kernelSources.empty()) {
    if (python) {
      // The hooks file's forward launches the kernel (grid, block sizes), and the kernels it
      // imports are the kernel itself: a round changes either. Its yardstick hooks stay frozen
      // on their own (the harness's hooks check).
      q.kernelSources.push_back(q.kernel);
      for (const auto& k : traits.importedKernels) {
        if (!oneOf(k, q.kernelSources)) q.kernelSources.push_back(k);
      }
      q.kernelSourceOrigin = q.kernelSources.size() > 1 ? KernelSourceOrigin::KernelFileAndImports : KernelSourceOrigin::KernelFile;
    } else {
      problems.push_back("--kernel-source PATH is required with --bench-command (the files a round may change)");
    }
  }
  if (q.op.empty()) {
    std::string stem = python ? fs::path(q.kernel).stem().string() : fs::path(q.kernelSources.empty() ? "kernel" : q.kernelSources[0]).stem().string();
    std::string clean;
    for (char c : stem) clean += plainName(std::string(1, c)) ? c : '_';
    q.op = (clean.empty() ? "kernel" : clean) + "_" + q.dtype;
  }
  if (q.metric.empty()) {
    if (memoryKind(q)) q.metric = forwardOnly(q) ? "Forward GB/s" : "Backward GB/s";
    else q.metric = forwardOnly(q) ? "Forward TFLOPS" : "Combined Step TFLOPS";
  }
  if (q.ownBench() && q.testCommand.empty()) {
    problems.push_back("--test-command is required with --bench-command (exit 0 when every shape is correct)");
  }
  if (python) {
    const bool dotted = q.forward.find('.') != std::string::npos;
    if (!dotted && !traits.has(q.forward)) {
      problems.push_back("--forward: " + q.kernel + " has no top-level function '" + q.forward + "' (it has: " +
                         (traits.functions.empty() ? std::string("none") : util::join(traits.functions, ", ")) + ")");
    }
    if (q.backward != "none" && q.backward != "autograd" && q.backward.find('.') == std::string::npos && !traits.has(q.backward)) {
      problems.push_back("--backward: " + q.kernel + " has no top-level function '" + q.backward +
                         "' (pass a function name, autograd, or none for a forward-only op)");
    }
    if (memoryKind(q)) {
      for (const char* hook : {"make_inputs", "reference_forward"}) {
        if (!traits.has(hook)) {
          problems.push_back(std::string("--kind memory: ") + q.kernel + " needs a top-level " + hook +
                             " (the harness's memory-bound contract, docs/byo-kernel.md)");
        }
      }
    }
  }
  if (q.shapes.empty()) {
    problems.push_back(std::string("--shape is required (repeatable): ") +
                       (memoryKind(q) ? "LABEL=B,M,N, e.g. --shape rms_4k=1,4096,4096" : "LABEL=B,M,N,K, e.g. --shape mm_4k=1,4096,4096,4096"));
  }
  std::vector<std::string> seen;
  for (const auto& s : q.shapes) {
    if (!q.kind.empty()) {  // else already reported: --kind decides the dims
      if (memoryKind(q) && s.k) problems.push_back("--shape " + s.label + ": a memory-bound shape is B,M,N (no K)");
      if (!memoryKind(q) && !s.k) problems.push_back("--shape " + s.label + ": a GEMM shape is B,M,N,K");
    }
    if (oneOf(s.label, seen)) problems.push_back("--shape " + s.label + " is given twice");
    seen.push_back(s.label);
  }
  if (q.validateShape.empty() && !q.shapes.empty()) q.validateShape = q.shapes.front().label;
  if (!q.validateShape.empty() && !oneOf(q.validateShape, seen)) {
    problems.push_back("--validate-shape " + q.validateShape + " is not one of the --shape labels");
  }
  return problems;
}

std::vector<std::string> roundScopeLines(const InitRequest& q) {
  std::string why;
  switch (q.kernelSourceOrigin) {
    case KernelSourceOrigin::Flags: why = "your --kernel-source flags"; break;
    case KernelSourceOrigin::KernelFile: why = q.kernel + ", which imports no Triton kernel from this repository"; break;
    case KernelSourceOrigin::KernelFileAndImports: why = q.kernel + " and the Triton kernels it imports"; break;
  }
  return {"a round may change only " + util::join(q.kernelSources, ", ") + " (kernel_source: " + why +
              "); every other tracked file is frozen at BASELINE",
          "another list: --kernel-source PATH, once per file (repeatable), with --force; or edit kernel_source in " +
              initFiles(q).manifest + " before define_target"};
}

InitFiles initFiles(const InitRequest& q) {
  InitFiles f;
  f.manifest = q.dir + "/manifest.yaml";
  if (!q.ownBench()) {
    f.harness = q.dir + "/quick_test_bench.py";
    f.config = q.dir + "/bench.json";
  }
  return f;
}

std::string benchConfigJson(const InitRequest& q) {
  nlohmann::ordered_json shapes = nlohmann::ordered_json::array();
  for (const auto& s : q.shapes) {
    nlohmann::ordered_json j{{"label", s.label}, {"B", s.b}, {"M", s.m}, {"N", s.n}};
    if (s.k) j["K"] = *s.k;
    shapes.push_back(j);
  }
  // Paths are relative to this file (it sits in q.dir): the kernel and the tree's root.
  std::string up;
  for (const auto& part : fs::path(q.dir)) {
    if (!part.empty() && part != ".") up += "../";
  }
  nlohmann::ordered_json j{
      {"kopt_harness_config", 1},
      {"backend", q.backend},
      {"kind", q.kind},
      {"kernel_module", q.kernelModule.empty() ? up + q.kernel : q.kernelModule},
      {"forward", q.forward},
      {"backward", forwardOnly(q) ? std::string() : q.backward},
      {"input_dtype", q.dtype},
      {"check", q.check},
      {"device", q.device},
      {"repo_root", up.empty() ? std::string(".") : up.substr(0, up.size() - 1)},
      {"shapes", nullptr},  // written below, one per line
  };
  // One shape per line: the file is read and edited by people.
  std::string text = j.dump(2);
  const std::string key = "\"shapes\": ";
  text = text.substr(0, text.find(key) + key.size()) + "[\n";
  for (std::size_t i = 0; i < shapes.size(); ++i) text += "    " + shapes[i].dump() + (i + 1 < shapes.size() ? ",\n" : "\n");
  return text + "  ]\n}\n";
}

std::string manifestYaml(const InitRequest& q, const std::string& created) {
  const bool python = !q.ownBench();
  const std::string bench = python ? harnessWords(q) : q.benchCommand;
  const std::string test =
      python ? harnessWords(q) + " --require-pass --min-samples 2 --max-samples 3 --time-cap-s 0.5" : q.testCommand;
  std::string y;
  y += "# Written by `kopt init` (" + created + "). Read it, change what you want, then start the campaign\n";
  y += "# with define_target {repo_path: <this repository>, manifest_path: " + initFiles(q).manifest + "}.\n";
  y += "# Every key: docs/manifest.md. " +
       std::string(python ? "The harness and its config (" + initFiles(q).config + ") are frozen at BASELINE."
                          : "Your bench must follow the bench contract (docs/byo-kernel.md).") +
       "\n";
  y += "target_op: " + q.op + "\n";
  y += "target_backend: " + q.backend + "\n";
  y += "target_gpu: " + q.gpu + "\n";
  y += "execution_mode: repo\n";
  y += "performance_target: null\n";
  y += "primary_metric: " + q.metric + "\n";
  y += "target_shapes: all\n";
  y += "kernel_source:\n";
  for (const auto& k : q.kernelSources) y += "  - " + yamlString(k) + "\n";
  if (!q.buildCommand.empty()) y += "build_command: " + yamlString(q.buildCommand) + "\n";
  y += "test_command: " + yamlString(test) + "\n";
  y += "benchmark_command: " + yamlString(bench) + "\n";
  y += "quick_command: " + yamlString(bench) + "\n";
  y += "representative_shapes: []\n";
  y += "git_commit: true\n";
  y += "git_branch: auto\n";
  y += "max_iterations: 30\n";
  y += "max_duration: 6h\n";
  y += "created: " + yamlString(created) + "\n";
  y += "schema: " + q.kind + "\n";
  y += std::string("bench:\n  protocol: ") + (python ? "worker" : "csv") + "\n";
  if (python) {
    // Longer batches average more calls per block: on the H200 a 5 ms batch left a softmax shape at
    // 1.7 % sd per block, above what a 2 % minimum detectable change needs (docs/byo-kernel.md).
    const double batch = q.batchMs > 0 ? q.batchMs : (memoryKind(q) && q.device != "cpu" ? 40 : 20);
    char text[32];
    std::snprintf(text, sizeof text, "%g", batch);
    y += std::string("  batch_ms: ") + text + "  # one measured batch; longer is quieter and slower\n";
  }
  if (q.device == "cpu") {
    // A CPU shared with the rest of the machine cannot time a 2 % change; manifests/cpu_gemm.yaml
    // makes the same choice. On a GPU the default (2 %) stands.
    y += "gate:  # CPU timings are noisy: docs/statistics.md\n  target_mde_pct: 40\n  regression_pct: 40\n";
  }
  return y;
}

std::variant<exec::ParsedCommand, std::string> validationCommand(const InitRequest& q, const std::string& csv,
                                                                 const std::string& samples) {
  exec::ParsedCommand c;
  if (!q.ownBench()) {
    const InitFiles f = initFiles(q);
    c.argv = {q.python, f.harness, "--config", f.config, "--min-samples", "3", "--max-samples", "10", "--time-cap-s", "2"};
  } else {
    auto parsed = campaign::parseCommand(q.benchCommand);
    if (auto* err = std::get_if<std::string>(&parsed)) return "--bench-command: " + *err;
    c = campaign::expandPlaceholders(std::get<campaign::Command>(parsed), {"", q.repo, q.gpu});
  }
  for (const std::string& w : {std::string("--shapes"), q.validateShape, std::string("--summary-csv"), csv,
                               std::string("--samples"), samples, std::string("--seed"), std::string("1")}) {
    c.argv.push_back(w);
  }
  return c;
}

}  // namespace kopt::cli
