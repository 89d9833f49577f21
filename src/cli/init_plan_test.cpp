#include "cli/init_plan.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "campaign/manifest.h"
#include "util/text.h"

namespace kopt::cli {

namespace {

const char* kRmsnorm = R"(import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, n):
    pass


def make_inputs(shape, dtype, device, generator):
    return ()


def forward(x, w):
    return x


def backward(x, w, grad_out):
    def inner(y):  # nested: not a top-level function
        return y
    return grad_out, w


def reference_forward(x, w):
    return x
)";

InitRequest parsed(const Args& args) {
  auto r = parseInitArgs(args);
  REQUIRE_MESSAGE(std::holds_alternative<InitRequest>(r), std::get<std::string>(r));
  return std::get<InitRequest>(r);
}

std::string parseError(const Args& args) {
  auto r = parseInitArgs(args);
  REQUIRE(std::holds_alternative<std::string>(r));
  return std::get<std::string>(r);
}

}  // namespace

TEST_CASE("a --shape is LABEL=B,M,N or LABEL=B,M,N,K of positive integers") {
  auto memory = std::get<InitShape>(parseShapeFlag("rms_4k=1,4096,4096"));
  CHECK(memory.label == "rms_4k");
  CHECK(memory.m == 4096);
  CHECK_FALSE(memory.k.has_value());
  auto gemm = std::get<InitShape>(parseShapeFlag("mm=2, 64, 32, 16"));
  CHECK(gemm.b == 2);
  CHECK(gemm.k == 16);
  CHECK(std::get<std::string>(parseShapeFlag("1,2,3")).find("expected LABEL=B,M,N") != std::string::npos);
  CHECK(std::get<std::string>(parseShapeFlag("a=1,2")).find("expected") != std::string::npos);
  CHECK(std::get<std::string>(parseShapeFlag("a=1,-2,3")).find("'-2' is not a positive integer") != std::string::npos);
  CHECK(std::get<std::string>(parseShapeFlag("a b=1,2,3")).find("label must be") != std::string::npos);
}

TEST_CASE("the kernel file's top-level functions and its Triton decorators are found") {
  const PythonKernelTraits t = inspectPythonKernel(kRmsnorm);
  CHECK(t.triton);
  CHECK(t.functions == std::vector<std::string>{"_kernel", "make_inputs", "forward", "backward", "reference_forward"});
  CHECK_FALSE(inspectPythonKernel("def forward(a, b):\n    return a @ b\n").triton);
}

TEST_CASE("parseInitArgs names the flag that is wrong") {
  CHECK(parseError({"--kernel"}).find("--kernel needs a value") != std::string::npos);
  CHECK(parseError({"--frobnicate"}).find("unknown option '--frobnicate'") != std::string::npos);
  CHECK(parseError({"--kernel", "k.py", "--bench-command", "b"}).find("exclude each other") != std::string::npos);
  CHECK(parseError({"--kind", "compute"}).find("--kind must be gemm or memory") != std::string::npos);
  CHECK(parseError({"--backend", "OPENCL"}).find("--backend 'OPENCL'") != std::string::npos);
  CHECK(parseError({"--dtype", "int8"}).find("--dtype must be one of") != std::string::npos);
  CHECK(parseError({"--dir", "../out"}).find("--dir must be a folder inside") != std::string::npos);
  CHECK(parseError({"--shape", "a=1,2"}).find("--shape") == 0);
  CHECK(parsed({"--backend", "triton"}).backend == "TRITON");
}

TEST_CASE("what the flags leave open comes from the kernel file") {
  InitRequest q = parsed({"--kernel", "ops/rmsnorm.py", "--gpu", "sm_90", "--shape", "r=1,64,64"});
  CHECK(completeInitRequest(q, inspectPythonKernel(kRmsnorm)).empty());
  CHECK(q.kind == "memory");  // make_inputs + reference_forward
  CHECK(q.backward == "backward");
  CHECK(q.backend == "TRITON");
  CHECK(q.device == "cuda");
  CHECK(q.op == "rmsnorm_bf16");
  CHECK(q.metric == "Backward GB/s");
  CHECK(q.kernelSources == std::vector<std::string>{"ops/rmsnorm.py"});
  CHECK(q.validateShape == "r");

  InitRequest gemm = parsed({"--kernel", "mm.py", "--device", "cpu", "--shape", "g=1,8,8,8"});
  CHECK(completeInitRequest(gemm, inspectPythonKernel("def forward(a, b):\n    return a @ b\n")).empty());
  CHECK(gemm.kind == "gemm");
  CHECK(gemm.backward == "none");
  CHECK(gemm.backend == "CPU");
  CHECK(gemm.gpu == "cpu");
  CHECK(gemm.metric == "Forward TFLOPS");
}

TEST_CASE("a kernel package: the hooks file imports its Triton kernels, which make the backend and what a round may change") {
  // The hooks file defines no @triton.jit of its own: the kernels are in the package it imports.
  const char* hooks = "from rmsnorm import rms_norm\ndef make_inputs(s, d, dev, g):\n    pass\n"
                      "def forward(x, w):\n    return rms_norm(x, w)\ndef reference_forward(x, w):\n    return x\n";
  PythonKernelTraits traits = inspectPythonKernel(hooks);
  REQUIRE_FALSE(traits.triton);
  traits.importedKernels = {"rmsnorm/forward.py", "rmsnorm/backward.py"};
  InitRequest q = parsed({"--kernel", "bench_hooks.py", "--gpu", "sm_90", "--shape", "r=1,64,64"});
  CHECK(completeInitRequest(q, traits).empty());
  CHECK(q.backend == "TRITON");
  CHECK(q.kernelSources == std::vector<std::string>{"bench_hooks.py", "rmsnorm/forward.py", "rmsnorm/backward.py"});
  CHECK((q.kernelSourceOrigin == KernelSourceOrigin::KernelFileAndImports));
  const std::string scope = util::join(roundScopeLines(q), "\n");
  CHECK(scope.find("may change only bench_hooks.py, rmsnorm/forward.py, rmsnorm/backward.py") != std::string::npos);
  CHECK(scope.find("the Triton kernels it imports") != std::string::npos);
  CHECK(scope.find("--kernel-source PATH, once per file (repeatable)") != std::string::npos);
  auto m = campaign::parseManifest(manifestYaml(q, "2026-12-07 10:00"));
  REQUIRE(std::holds_alternative<campaign::Manifest>(m));
  CHECK(std::get<campaign::Manifest>(m).kernelSource.size() == 3);

  // --kernel-source replaces the guess, and the summary says the list is the user's.
  InitRequest own = parsed({"--kernel", "bench_hooks.py", "--gpu", "sm_90", "--shape", "r=1,64,64", "--kernel-source",
                            "rmsnorm/forward.py"});
  CHECK(completeInitRequest(own, traits).empty());
  CHECK(own.kernelSources == std::vector<std::string>{"rmsnorm/forward.py"});
  CHECK(util::join(roundScopeLines(own), "\n").find("your --kernel-source flags") != std::string::npos);

  // Nothing Triton reached: the refusal offers TRITON with the others, and --backend TRITON is taken.
  InitRequest plain = parsed({"--kernel", "bench_hooks.py", "--gpu", "sm_90", "--shape", "r=1,64,64"});
  const auto problems = completeInitRequest(plain, inspectPythonKernel(hooks));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("--backend TRITON, CK, HIPBLASLT, TURBO, HIP, CUDA, CPU") != std::string::npos);
  CHECK((plain.kernelSourceOrigin == KernelSourceOrigin::KernelFile));
  InitRequest named = parsed({"--kernel", "bench_hooks.py", "--backend", "TRITON", "--gpu", "sm_90", "--shape", "r=1,64,64"});
  CHECK(completeInitRequest(named, inspectPythonKernel(hooks)).empty());
  CHECK(named.backend == "TRITON");
}

TEST_CASE("what is still missing is listed all at once, each with its flag") {
  InitRequest q = parsed({"--kernel", "k.py", "--kind", "memory", "--forward", "fwd", "--shape", "g=1,8,8,8"});
  const auto problems = completeInitRequest(q, inspectPythonKernel("def forward(x):\n    return x\n"));
  auto mentions = [&](const std::string& fragment) {
    for (const auto& p : problems) {
      if (p.find(fragment) != std::string::npos) return true;
    }
    return false;
  };
  CHECK(mentions("--backend is required"));
  CHECK(mentions("--forward: k.py has no top-level function 'fwd' (it has: forward)"));
  CHECK(mentions("needs a top-level make_inputs"));
  CHECK(mentions("needs a top-level reference_forward"));
  CHECK(mentions("a memory-bound shape is B,M,N"));

  InitRequest own = parsed({"--bench-command", "build/bench", "--shape", "a=1,8,8"});
  const auto ownProblems = completeInitRequest(own, {});
  CHECK_MESSAGE(ownProblems.size() == 4, util::join(ownProblems, " / "));  // --kind, --backend, --kernel-source, --test-command

  InitRequest triton = parsed({"--kernel", "k.py", "--device", "cpu", "--shape", "r=1,64,64"});
  CHECK(completeInitRequest(triton, inspectPythonKernel(kRmsnorm)).front().find("--device cpu goes with --backend CPU") == 0);
}

TEST_CASE("the manifest draft parses as a manifest and runs kopt's harness through its config") {
  InitRequest q = parsed({"--kernel", "ops/rmsnorm.py", "--gpu", "sm_90", "--shape", "r=1,64,64", "--build-command",
                          "bash build.sh ${TARGET_GPU}"});
  REQUIRE(completeInitRequest(q, inspectPythonKernel(kRmsnorm)).empty());
  const std::string yaml = manifestYaml(q, "2026-12-03 10:00");
  auto m = campaign::parseManifest(yaml);
  REQUIRE_MESSAGE(std::holds_alternative<campaign::Manifest>(m), yaml);
  const auto& manifest = std::get<campaign::Manifest>(m);
  CHECK(manifest.quickCommand.text == "python3 kopt/quick_test_bench.py --config kopt/bench.json");
  CHECK(manifest.testCommand.text.find("--require-pass") != std::string::npos);
  CHECK(manifest.buildCommand.text == "bash build.sh ${TARGET_GPU}");
  CHECK((manifest.bench.protocol == campaign::BenchProtocol::Worker));
  CHECK(manifest.gate.targetMdePct == doctest::Approx(2.0));  // a GPU keeps the default
  CHECK(manifest.bench.batchMs == doctest::Approx(40.0));     // memory-bound on a GPU: long batches

  InitRequest cpu = parsed({"--kernel", "k.py", "--device", "cpu", "--shape", "r=1,64,64"});
  const char* torchOp = "def make_inputs(s, d, dev, g):\n    pass\ndef forward(x):\n    pass\ndef reference_forward(x):\n    pass\n";
  REQUIRE(completeInitRequest(cpu, inspectPythonKernel(torchOp)).empty());
  auto cm = campaign::parseManifest(manifestYaml(cpu, "2026-12-03 10:00"));
  REQUIRE(std::holds_alternative<campaign::Manifest>(cm));
  CHECK(std::get<campaign::Manifest>(cm).gate.targetMdePct == doctest::Approx(40.0));
  CHECK(std::get<campaign::Manifest>(cm).bench.batchMs == doctest::Approx(20.0));
  CHECK(parseError({"--batch-ms", "0.5"}).find("--batch-ms") == 0);
  CHECK(parsed({"--batch-ms", "12.5"}).batchMs == doctest::Approx(12.5));

  InitRequest own = parsed({"--bench-command", "build/my_bench --fast", "--test-command", "build/my_bench --check-only",
                            "--kernel-source", "src/k.hip", "--kind", "gemm", "--backend", "HIP", "--gpu", "gfx942",
                            "--shape", "g=1,64,64,64"});
  REQUIRE(completeInitRequest(own, {}).empty());
  auto om = campaign::parseManifest(manifestYaml(own, "2026-12-03 10:00"));
  REQUIRE(std::holds_alternative<campaign::Manifest>(om));
  CHECK(std::get<campaign::Manifest>(om).benchmarkCommand.text == "build/my_bench --fast");
  CHECK((std::get<campaign::Manifest>(om).bench.protocol == campaign::BenchProtocol::Csv));
  CHECK(initFiles(own).harness.empty());
}

TEST_CASE("the config sidecar's paths are relative to its folder") {
  InitRequest q = parsed({"--kernel", "ops/rmsnorm.py", "--gpu", "sm_90", "--dir", "tools/kopt", "--shape", "r=2,64,128"});
  REQUIRE(completeInitRequest(q, inspectPythonKernel(kRmsnorm)).empty());
  const auto j = nlohmann::json::parse(benchConfigJson(q));
  CHECK(j["kopt_harness_config"] == 1);
  CHECK(j["kernel_module"] == "../../ops/rmsnorm.py");
  CHECK(j["repo_root"] == "../..");
  CHECK(j["shapes"][0] == nlohmann::json({{"label", "r"}, {"B", 2}, {"M", 64}, {"N", 128}}));
  CHECK(initFiles(q).config == "tools/kopt/bench.json");
  q.kernelModule = "ops.rmsnorm";  // in a package: imported by name
  CHECK(nlohmann::json::parse(benchConfigJson(q))["kernel_module"] == "ops.rmsnorm");
}

TEST_CASE("the validation runs one shape, with the user's bench words and placeholders filled") {
  InitRequest own = parsed({"--bench-command", "${REPO_DIR}/build/bench", "--test-command", "t", "--kernel-source", "k.hip",
                            "--kind", "memory", "--backend", "HIP", "--gpu", "sm_90", "--shape", "a=1,8,8", "--shape",
                            "b=1,16,16", "--validate-shape", "b"});
  REQUIRE(completeInitRequest(own, {}).empty());
  own.repo = "/r";
  auto c = std::get<exec::ParsedCommand>(validationCommand(own, "o.csv", "o.jsonl"));
  CHECK(c.argv == std::vector<std::string>{"/r/build/bench", "--shapes", "b", "--summary-csv", "o.csv", "--samples", "o.jsonl",
                                           "--seed", "1"});
  InitRequest bad = own;
  bad.validateShape = "zz";
  CHECK_FALSE(completeInitRequest(bad, {}).empty());
}

}  // namespace kopt::cli
