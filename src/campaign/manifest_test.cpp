#include "campaign/manifest.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::campaign;

namespace {

const char* const kValid = R"(target_op: gemm_fp8_blockwise
target_backend: TRITON
target_gpu: MI300X
execution_mode: repo
project_skill: primus-turbo-develop
performance_target: "> 500 TFLOPS"
primary_metric: Combined Step TFLOPS
target_shapes: all
kernel_source: primus_turbo/triton/gemm/gemm_fp8_kernel.py
test_command: pytest tests/pytorch/ops/test_gemm_fp8.py -v
benchmark_command: python benchmark/ops/bench_gemm_turbo.py --dtype fp8
quick_command: python ${CAMPAIGN_DIR}/quick_test_bench.py
created: "2026-04-12 09:30"
)";

Manifest parseOk(const std::string& yaml) {
  auto r = parseManifest(yaml);
  if (auto* errs = std::get_if<std::vector<FieldError>>(&r)) {
    for (const auto& e : *errs) MESSAGE(toString(e));
    FAIL("expected a valid manifest");
  }
  return std::get<Manifest>(r);
}

std::vector<FieldError> parseErr(const std::string& yaml) {
  auto r = parseManifest(yaml);
  REQUIRE(std::holds_alternative<std::vector<FieldError>>(r));
  return std::get<std::vector<FieldError>>(r);
}

bool hasError(const std::vector<FieldError>& errs, const std::string& field,
              const std::string& fragment = "") {
  for (const auto& e : errs) {
    if (e.field == field && e.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

// The valid manifest with one line removed (by key) or replaced.
std::string without(const std::string& key) {
  std::string out, line;
  std::string text = kValid;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    line = text.substr(start, nl - start);
    if (line.rfind(key + ":", 0) != 0) out += line + "\n";
    start = nl + 1;
  }
  return out;
}
std::string with(const std::string& key, const std::string& value) {
  return without(key) + key + ": " + value + "\n";
}

}  // namespace

TEST_CASE("a valid manifest parses with derived defaults") {
  Manifest m = parseOk(kValid);
  CHECK(m.targetOp == "gemm_fp8_blockwise");
  CHECK((m.targetBackend == Backend::Triton));
  CHECK((m.targetLang == Language::Triton));
  CHECK(m.targetGpu == "gfx942");
  CHECK((m.executionMode == ExecutionMode::Repo));
  REQUIRE(m.performanceTarget.has_value());
  CHECK(m.performanceTarget->comparison == ">");
  CHECK(m.performanceTarget->value == doctest::Approx(500));
  CHECK(m.performanceTarget->unit == "TFLOPS");
  CHECK((m.primaryMetric.kind == MetricKind::CombinedStepTflops));
  CHECK(m.targetShapes.all);
  CHECK(m.kernelSource == std::vector<std::string>{"primus_turbo/triton/gemm/gemm_fp8_kernel.py"});
  CHECK(m.testCommand.parsed.argv ==
        std::vector<std::string>{"pytest", "tests/pytorch/ops/test_gemm_fp8.py", "-v"});
  CHECK(m.quickCommand.text == "python ${CAMPAIGN_DIR}/quick_test_bench.py");
  CHECK(m.quickCommand.parsed.argv[1] == "${CAMPAIGN_DIR}/quick_test_bench.py");
  CHECK(m.buildCommand.empty());
  CHECK(m.representativeShapes.empty());
  CHECK(m.gitCommit);
  CHECK((m.gitBranch.kind == GitBranch::Kind::Auto));
  CHECK_FALSE(m.maxIterations.has_value());
  CHECK(m.created == "2026-04-12 09:30");
  CHECK((m.schema.kind == SchemaKind::Gemm));
  CHECK(m.gate.regressionPct == 5.0);
  CHECK(m.gate.nearNoisePct == 2.0);
  CHECK(m.gate.nearNoiseRemeasures == 3);
  CHECK(m.gate.chainDropPct == 1.0);
  CHECK(m.gate.pairs == 8);
  CHECK(m.gate.maxPairs == 24);
  CHECK(m.gate.maxLooks == 3);
  CHECK(m.gate.marginPct == 1.5);
  CHECK(m.gate.targetMdePct == 2.0);
  CHECK(m.gate.familyAlpha == 0.05);
  CHECK((m.executor.kind == ExecutorKind::Local));
  CHECK(effectiveBranch(m, "x_triton_gfx942_20260412") ==
        std::optional<std::string>("optimize/x_triton_gfx942_20260412"));
}

TEST_CASE("backend -> language and product -> arch derivations") {
  CHECK((languageFor(Backend::Triton) == Language::Triton));
  for (Backend b : {Backend::CK, Backend::HipBlasLt, Backend::Turbo, Backend::Hip})
    CHECK((languageFor(b) == Language::Hip));
  CHECK((languageFor(Backend::Cuda) == Language::Cuda));
  CHECK((languageFor(Backend::Cpu) == Language::Cpp));
  CHECK(std::string(toString(Language::Cpp)) == "C++");
  CHECK(archForGpu("MI300X") == std::optional<std::string>("gfx942"));
  CHECK(archForGpu("mi325x") == std::optional<std::string>("gfx942"));
  CHECK(archForGpu("AMD Instinct MI355X") == std::optional<std::string>("gfx950"));
  CHECK(archForGpu("MI350X") == std::optional<std::string>("gfx950"));
  CHECK(archForGpu("NVIDIA H100 80GB HBM3") == std::optional<std::string>("sm_90"));
  CHECK(archForGpu("H200") == std::optional<std::string>("sm_90"));
  CHECK(archForGpu("B200") == std::optional<std::string>("sm_100"));
  CHECK(archForGpu("GFX942") == std::optional<std::string>("gfx942"));
  CHECK(archForGpu("cpu") == std::optional<std::string>("cpu"));
  CHECK_FALSE(archForGpu("MI250Y").has_value());
  CHECK_FALSE(archForGpu("H1000").has_value());  // not "H100" followed by a digit
  CHECK(backendFromString("hipblaslt") == std::optional<Backend>(Backend::HipBlasLt));
  CHECK(backendLower(Backend::CK) == "ck");
}

TEST_CASE("each required field missing is an error naming it") {
  for (const char* key : {"target_op", "target_backend", "target_gpu", "primary_metric",
                          "kernel_source", "test_command", "benchmark_command", "quick_command"}) {
    CAPTURE(key);
    auto errs = parseErr(without(key));
    CHECK(hasError(errs, key, "required"));
    for (const auto& e : errs) CHECK_FALSE(e.fix.empty());
  }
}

TEST_CASE("wrong values are errors naming the field, the value and the choices") {
  auto errs = parseErr(with("target_backend", "TRITONN"));
  REQUIRE(hasError(errs, "target_backend"));
  CHECK(toString(errs[0]).find("target_backend: 'TRITONN' is not one of TRITON, CK") == 0);

  CHECK(hasError(parseErr(with("target_gpu", "MI250Y")), "target_gpu", "not a known GPU"));
  CHECK(hasError(parseErr(with("target_gpu", "cpu")), "target_gpu", "does not fit"));
  CHECK(hasError(parseErr(with("execution_mode", "cloud")), "execution_mode"));
  CHECK(hasError(parseErr(with("performance_target", "fast please")), "performance_target"));
  CHECK(hasError(parseErr(with("primary_metric", "Forward GB/s")), "primary_metric"));
  CHECK(hasError(parseErr(with("target_shapes", "some")), "target_shapes"));
  CHECK(hasError(parseErr(with("target_shapes", "[a, a]")), "target_shapes[1]", "twice"));
  CHECK(hasError(parseErr(with("target_shapes", "[\"a,b\"]")), "target_shapes[0]", "comma"));
  CHECK(hasError(parseErr(with("target_shapes", "[a, b]") + "representative_shapes: [c]\n"),
                 "representative_shapes[0]", "not in target_shapes"));
  CHECK(hasError(parseErr(with("kernel_source", "../outside.py")), "kernel_source[0]"));
  CHECK(hasError(parseErr(with("kernel_source", "/abs/path.py")), "kernel_source[0]"));
  CHECK(hasError(parseErr(with("test_command", "pytest x | tee log")), "test_command", "shell"));
  CHECK(hasError(parseErr(with("test_command", "\"\"")), "test_command", "required"));
  CHECK(hasError(parseErr(with("git_commit", "maybe")), "git_commit"));
  CHECK(hasError(parseErr(with("git_branch", "bad..name")), "git_branch"));
  CHECK(hasError(parseErr(with("max_iterations", "120")), "max_iterations", "out of range"));
  CHECK(hasError(parseErr(with("max_iterations", "0")), "max_iterations"));
  CHECK(hasError(parseErr(with("max_iterations", "ten")), "max_iterations"));
  CHECK(hasError(parseErr(with("max_duration", "forever")), "max_duration"));
  // Numbers out of any range are refusals naming the field, never exceptions or wrapped values.
  CHECK(hasError(parseErr(with("max_duration", "99999999999999999999999h")), "max_duration"));
  CHECK(hasError(parseErr(with("max_duration", "999999999999999d")), "max_duration"));
  CHECK(hasError(parseErr(with("max_duration", "99999999999999999999999")), "max_duration"));
  CHECK(hasError(parseErr(with("timeouts", "{build: 99999999999999999999999s}")), "timeouts.build"));
  CHECK(hasError(parseErr(with("performance_target", "\"> 1e999 TFLOPS\"")), "performance_target"));
  CHECK(hasError(parseErr(with("created", "\"12/04/2026\"")), "created"));
  CHECK(hasError(parseErr(with("target_lang", "CUDA")), "target_lang", "does not match"));
  CHECK(hasError(parseErr(with("schema", "tensor")), "schema"));
  CHECK(hasError(parseErr(with("gate", "{pairs: 0}")), "gate.pairs"));
  CHECK(hasError(parseErr(with("gate", "{pairs: 10, max_pairs: 5}")), "gate.max_pairs"));
  CHECK(hasError(parseErr(with("gate", "{family_alpha: 2}")), "gate.family_alpha"));
  CHECK(hasError(parseErr(with("gate", "{pair: 5}")), "gate.pair"));
  CHECK(hasError(parseErr(with("executor", "{kind: k8s}")), "executor.kind"));
  CHECK(hasError(parseErr(with("timeouts", "{build: -5}")), "timeouts.build"));
  CHECK(hasError(parseErr(std::string(kValid) + "benchmark_comand: x\n"), "benchmark_comand",
                 "not a manifest field"));
}

TEST_CASE("not YAML, or not a mapping, is one clear error") {
  CHECK(hasError(parseErr("target_op: [unclosed"), "manifest.yaml", "not valid YAML"));
  CHECK(hasError(parseErr("- a\n- b\n"), "manifest.yaml", "mapping"));
}

TEST_CASE("several problems are reported together") {
  auto errs = parseErr("target_backend: NOPE\nmax_iterations: 500\n");
  CHECK(hasError(errs, "target_backend"));
  CHECK(hasError(errs, "max_iterations"));
  CHECK(hasError(errs, "target_op", "required"));
  CHECK(hasError(errs, "quick_command", "required"));
  // One error per field.
  int backendErrors = 0;
  for (const auto& e : errs) backendErrors += e.field == "target_backend";
  CHECK(backendErrors == 1);
}

TEST_CASE("kopt's own settings parse: custom schema, gate, slurm executor, timeouts") {
  std::string yaml = with("primary_metric", "Forward GB/s") +
                     "schema: {kind: custom, columns: [label, N, Check, Forward GB/s, Forward "
                     "GB/s_stddev], check_column: Check, metric_columns: [Forward GB/s]}\n"
                     "gate: {regression_pct: 4, pairs: 6, max_pairs: 12, family_alpha: 0.1, margin_pct: 2, "
                     "target_mde_pct: 3, max_looks: 2}\n"
                     "executor: {kind: slurm, partition: mi300, gres: 'gpu:1', time: '01:00:00', "
                     "extra_args: '--exclusive --qos high'}\n"
                     "timeouts: {build: 30m, test: 600, bench: 1h, hang: 15m}\n"
                     "max_iterations: 40\nmax_duration: 1h30m\ngit_branch: none\n"
                     "build_command: GPU_ARCHS=gfx942 pip install --no-build-isolation -e . -v\n"
                     "tips_root: /data/tips\n";
  Manifest m = parseOk(yaml);
  CHECK((m.schema.kind == SchemaKind::Custom));
  CHECK(m.schema.checkColumn == "Check");
  // In a custom schema the metric is a column name, even when it spells a built-in one.
  CHECK(m.primaryMetric.column == "Forward GB/s");
  CHECK(m.gate.regressionPct == 4);
  CHECK(m.gate.pairs == 6);
  CHECK(m.gate.maxPairs == 12);
  CHECK(m.gate.marginPct == 2);
  CHECK(m.gate.targetMdePct == 3);
  CHECK(m.gate.maxLooks == 2);
  CHECK((m.executor.kind == ExecutorKind::Slurm));
  CHECK(m.executor.gres == "gpu:1");
  CHECK(m.executor.extraArgs == std::vector<std::string>{"--exclusive", "--qos", "high"});
  CHECK((m.executor.mode == kopt::exec::SlurmMode::Auto));  // the default: sbatch for long runs
  CHECK(m.timeouts.buildSeconds == 1800);
  CHECK(m.timeouts.testSeconds == 600);
  CHECK(m.timeouts.hangSeconds == 900);
  CHECK(m.maxIterations == std::optional<int>(40));
  CHECK(m.maxDuration->seconds == 5400);
  CHECK((m.gitBranch.kind == GitBranch::Kind::None));
  CHECK_FALSE(effectiveBranch(m, "n").has_value());
  CHECK(m.buildCommand.parsed.env.at("GPU_ARCHS") == "gfx942");
  CHECK(m.buildCommand.parsed.argv.front() == "pip");
  CHECK(m.tipsRoot == "/data/tips");
}

TEST_CASE("a custom schema whose metric lacks a _stddev column is refused") {
  std::string yaml = with("primary_metric", "GB/s") +
                     "schema: {kind: custom, columns: [label, Check, GB/s], check_column: Check, "
                     "metric_columns: [GB/s]}\n";
  CHECK(hasError(parseErr(yaml), "schema.metric_columns", "_stddev"));
}

TEST_CASE("toYaml round-trips every field") {
  std::string yaml = with("target_shapes", "[s1, s2, s3, s4]") +
                     "representative_shapes: [s1, s3, s4]\n"
                     "gate: {regression_pct: 4.5, near_noise_pct: 1.5, near_noise_remeasures: 4, "
                     "chain_drop_pct: 0.5, pairs: 6, max_pairs: 12, family_alpha: 0.01, margin_pct: 2.5, "
                     "target_mde_pct: 3, max_looks: 2}\n"
                     "executor: {kind: slurm, partition: p, gres: 'gpu:1', time: '1:00:00', "
                     "account: acc, extra_args: [--exclusive]}\n"
                     "timeouts: {build: 100, test: 200, bench: 300, hang: 400}\n"
                     "max_iterations: 12\nmax_duration: 4h\ngit_branch: feature/x\n"
                     "base_branch: main\ngit_commit: false\n"
                     "build_command: \"CC=gcc make -j 'a b'\"\nprofile_command: rocprofv3 --x\n"
                     "tips_root: tips\n";
  Manifest m = parseOk(yaml);
  std::string emitted = toYaml(m);
  Manifest back = parseOk(emitted);
  CHECK(toYaml(back) == emitted);
  CHECK(back.targetShapes.labels == m.targetShapes.labels);
  CHECK(back.representativeShapes == m.representativeShapes);
  CHECK(back.gate.familyAlpha == m.gate.familyAlpha);
  CHECK(back.gate.nearNoisePct == m.gate.nearNoisePct);
  CHECK(back.gate.marginPct == 2.5);
  CHECK(back.gate.targetMdePct == 3.0);
  CHECK(back.gate.maxLooks == 2);
  CHECK(back.executor.account == "acc");
  CHECK((back.gitBranch.kind == GitBranch::Kind::Named));
  CHECK(back.gitBranch.name == "feature/x");
  CHECK_FALSE(back.gitCommit);
  CHECK(back.buildCommand.text == m.buildCommand.text);
  CHECK(back.buildCommand.parsed.argv == m.buildCommand.parsed.argv);
  CHECK(back.performanceTarget->text == "> 500 TFLOPS");
  CHECK(back.maxDuration->seconds == 4 * 3600);
  CHECK(back.created == "2026-04-12 09:30");
  CHECK((back.targetLang == Language::Triton));
  CHECK(emitted.find("target_lang: \"Triton\"") != std::string::npos);
}

TEST_CASE("command placeholders survive parsing and are filled later") {
  auto c = parseCommand("python <campaign_dir>/quick_test_bench.py --arch $TARGET_GPU");
  REQUIRE(std::holds_alternative<Command>(c));
  auto cmd = std::get<Command>(c);
  CHECK(cmd.parsed.argv[1] == "${CAMPAIGN_DIR}/quick_test_bench.py");
  CHECK(cmd.parsed.argv[3] == "${TARGET_GPU}");
  auto filled = expandPlaceholders(cmd, {"/c/d", "/repo", "gfx942"});
  CHECK(filled.argv[1] == "/c/d/quick_test_bench.py");
  CHECK(filled.argv[3] == "gfx942");
  CHECK(std::holds_alternative<std::string>(parseCommand("echo $HOME")));
}

TEST_CASE("validateManifest catches a manifest built in code") {
  Manifest m;
  auto errs = validateManifest(m);
  CHECK(hasError(errs, "target_op"));
  CHECK(hasError(errs, "kernel_source"));
  CHECK(hasError(errs, "test_command"));
  m.maxIterations = 200;
  CHECK(hasError(validateManifest(m), "max_iterations"));
}

TEST_CASE("executor.mode picks srun or sbatch, and survives the manifest's round trip") {
  Manifest m = parseOk(with("executor", "{kind: slurm, partition: debug, mode: SBATCH}"));
  CHECK((m.executor.mode == kopt::exec::SlurmMode::Sbatch));
  Manifest back = parseOk(toYaml(m));
  CHECK((back.executor.mode == kopt::exec::SlurmMode::Sbatch));
  CHECK(back.executor.partition == "debug");
}

TEST_CASE("executor.devices lists the ids a full validation is sharded over") {
  Manifest m = parseOk(with("executor", "{kind: local, devices: [0, 1]}"));
  CHECK(m.executor.devices == std::vector<std::string>{"0", "1"});
  CHECK(parseOk(toYaml(m)).executor.devices == m.executor.devices);
  CHECK(hasError(parseErr(with("executor", "{devices: [0, 0]}")), "executor.devices", "listed twice"));
}

TEST_CASE("a bad executor block names the field and the fix before any job runs") {
  CHECK(hasError(parseErr(with("executor", "{kind: slurm, mode: salloc}")), "executor.mode", "srun, sbatch or auto"));
  CHECK(hasError(parseErr(with("executor", "{kind: slurm, time: soon}")), "executor.time", "Slurm time"));
  CHECK(hasError(parseErr(with("executor", "{kind: slurm, partition: 'a b'}")), "executor.partition"));
  CHECK(hasError(parseErr(with("executor", "{kind: slurm, qos: high}")), "executor.qos", "not an executor setting"));
  CHECK(hasError(parseErr(with("executor", "kubernetes")), "executor.kind", "local or slurm"));
}

TEST_CASE("gate.pairs: at least 4 blocks per look, and an even number") {
  // 1-3 blocks leave 0-2 df t-tests (every shape INCONCLUSIVE up to the cap); an odd count
  // leaves the ABBA/BAAB order effect uncancelled.
  for (const char* bad : {"{pairs: 1}", "{pairs: 2, max_pairs: 6}", "{pairs: 3, max_pairs: 6}"})
    CHECK(hasError(parseErr(with("gate", bad)), "gate.pairs", "between 4 and 1000"));
  CHECK(hasError(parseErr(with("gate", "{pairs: 5, max_pairs: 15}")), "gate.pairs", "even"));
  bool fixNamed = false;
  for (const auto& e : parseErr(with("gate", "{pairs: 5, max_pairs: 15}")))
    fixNamed = fixNamed || (e.field == "gate.pairs" && e.fix == "use 6 or 4");
  CHECK(fixNamed);
  Manifest four = parseOk(with("gate", "{pairs: 4}"));
  CHECK(four.gate.pairs == 4);
  CHECK(four.gate.maxPairs == 12);  // pairs * max_looks when max_pairs is not given
}

TEST_CASE("gate: the cap, the looks, the margin and the target MDE are checked for consistency") {
  CHECK(parseOk(with("gate", "{pairs: 6, max_looks: 4}")).gate.maxPairs == 24);
  CHECK(parseOk(with("gate", "{pairs: 4, max_pairs: 6}")).gate.maxPairs == 6);  // rounds down to one look
  CHECK(hasError(parseErr(with("gate", "{pairs: 8, max_pairs: 32}")), "gate.max_pairs", "looks end at"));
  CHECK(hasError(parseErr(with("gate", "{max_looks: 0}")), "gate.max_looks"));
  CHECK(hasError(parseErr(with("gate", "{max_looks: 11}")), "gate.max_looks"));
  CHECK(hasError(parseErr(with("gate", "{margin_pct: 0}")), "gate.margin_pct"));
  CHECK(hasError(parseErr(with("gate", "{margin_pct: 6}")), "gate.margin_pct"));  // above regression_pct 5
  CHECK(hasError(parseErr(with("gate", "{target_mde_pct: 1.5}")), "gate.target_mde_pct"));  // not above the margin
  CHECK(hasError(parseErr(with("gate", "{margin_pct: x}")), "gate.margin_pct"));
  CHECK(hasError(parseErr(with("gate", "{aa_sessions: 2}")), "gate.aa_sessions", "between 3 and 12"));
  CHECK(hasError(parseErr(with("gate", "{aa_sessions: 13}")), "gate.aa_sessions", "between 3 and 12"));
  CHECK(parseOk(with("gate", "{aa_sessions: 6}")).gate.aaSessions == 6);
  CHECK(toYaml(parseOk(with("gate", "{aa_sessions: 5}"))).find("aa_sessions: 5") != std::string::npos);
  Manifest m = parseOk(with("gate", "{margin_pct: 1, target_mde_pct: 1.8, max_looks: 2}"));
  CHECK(m.gate.marginPct == 1.0);
  CHECK(m.gate.targetMdePct == 1.8);
  CHECK(m.gate.maxLooks == 2);
  CHECK(m.gate.maxPairs == 16);
  // A manifest built in code is validated the same way.
  Manifest code = parseOk(kValid);
  code.gate.pairs = 7;
  bool named = false;
  for (const auto& e : validateManifest(code)) named = named || e.field == "gate.pairs";
  CHECK(named);
}

TEST_CASE("hostile YAML is refused field by field: keys that are lists, values of 100 KB") {
  // fuzz_manifest's finds (2026-12-06): a list as a key aborted the server (an exception nobody
  // caught), and std::regex overflowed the stack on a long target_op or timeout.
  for (const char* section : {"gate", "executor", "timeouts", "bench"}) {
    CAPTURE(section);
    const auto errs = parseErr(std::string(kValid) + section + ": {[a, b]: 1}\n");
    CHECK(hasError(errs, section, "a list where a field's name belongs"));
  }
  CHECK(hasError(parseErr(std::string(kValid) + "? {x: 1}\n: 3\n"), "manifest.yaml", "a mapping where"));
  CHECK(hasError(parseErr(std::string(kValid) + "gate: {bogus: 1}\n"), "gate.bogus", "is not a gate setting"));

  const std::string longName(100000, 'a');
  CHECK(parseOk(with("target_op", longName)).targetOp.size() == longName.size());
  CHECK(hasError(parseErr(with("target_op", longName + "/x")), "target_op", "characters a path cannot hold"));
  CHECK(hasError(parseErr(with("target_op", "_" + longName)), "target_op"));
  std::string longDuration;
  for (int i = 0; i < 20000; ++i) longDuration += "1s";
  CHECK(hasError(parseErr(std::string(kValid) + "timeouts: {build: " + longDuration + "x}\n"), "timeouts.build"));
  CHECK(parseOk(std::string(kValid) + "timeouts: {build: " + longDuration + "}\n").timeouts.buildSeconds == 20000);
  CHECK(parseOk(with("performance_target", "\"> 5 " + longName + "\\n\"")).performanceTarget->unit == longName);
  CHECK(hasError(parseErr(with("created", "\"2026-04-12 09:30" + longName + "\"")), "created"));
  CHECK(hasError(parseErr(with("target_gpu", "gfx942" + longName)), "target_gpu"));
}

TEST_CASE("durations and performance targets: each form, and the near misses") {
  auto timeout = [](const std::string& text) {
    return parseOk(std::string(kValid) + "timeouts: {build: \"" + text + "\"}\n").timeouts.buildSeconds;
  };
  CHECK(timeout("3600") == 3600);
  CHECK(timeout(" 90m ") == 5400);
  CHECK(timeout("1h30m") == 5400);
  CHECK(timeout("1d 2h 3m 4s") == 86400 + 7200 + 184);
  for (const char* bad : {"h", "1h 2", "1x", "1 h h", "-1h", "1.5h", "m1"}) {
    CAPTURE(bad);
    CHECK(hasError(parseErr(std::string(kValid) + "timeouts: {build: \"" + bad + "\"}\n"), "timeouts.build"));
  }
  auto target = [](const std::string& text) {
    return *parseOk(with("performance_target", "\"" + text + "\"")).performanceTarget;
  };
  CHECK(target("<= 80us").comparison == "<=");
  CHECK(target("<= 80us").value == doctest::Approx(80));
  CHECK(target("<= 80us").unit == "us");
  CHECK(target(".5 ms").value == doctest::Approx(0.5));
  CHECK(target("2e3 GB/s").value == doctest::Approx(2000));
  CHECK(target("2e3 GB/s").unit == "GB/s");
  CHECK(target("5em").value == doctest::Approx(5));  // no exponent digits: the 'e' is the unit's
  CHECK(target("5em").unit == "em");
  CHECK(target("1. x").unit == ". x");
  CHECK(target("> 1.5e-2   TFLOPS  ").unit == "TFLOPS");
  CHECK(target("7").comparison == ">");
  for (const char* bad : {"> .", ">=", "TFLOPS 5", "> 5\\nTFLOPS"}) {
    CAPTURE(bad);
    CHECK(hasError(parseErr(with("performance_target", std::string("\"") + bad + "\"")), "performance_target"));
  }
}
