#pragma once
// `kopt init`: what it writes into a user's repository, decided without touching the disk. From
// the command line and what it read in the kernel file, it plans the harness config sidecar
// (kopt/bench.json, read by harness/python/quick_test_bench.py --config) and the manifest draft
// (kopt/manifest.yaml, for define_target); init_command.cpp writes, validates and commits them.
// docs/byo-kernel.md is the user's side of this.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "exec/command_line.h"

namespace kopt::cli {

struct InitShape {
  std::string label;
  std::int64_t b = 1, m = 0, n = 0;
  std::optional<std::int64_t> k;  // GEMM shapes only
};

// "label=B,M,N" (memory-bound) or "label=B,M,N,K" (GEMM) -> a shape, or what is wrong with it.
std::variant<InitShape, std::string> parseShapeFlag(std::string_view text);

// What kopt init read in a Python kernel file: its top-level functions, and whether it is Triton.
struct PythonKernelTraits {
  std::vector<std::string> functions;  // top-level `def NAME(`, in file order
  bool triton = false;                 // a `@triton.jit` (or `@triton.autotune`) decorator
  // The repository files the kernel file imports (directly or not, python_imports.h) that hold a
  // Triton kernel: a kernel package's hooks file defines none itself. Filled by init_command.cpp.
  std::vector<std::string> importedKernels;
  bool has(std::string_view name) const;
};
PythonKernelTraits inspectPythonKernel(std::string_view source);

// Where kernel_source came from: the user's --kernel-source flags, or kopt init's default (the
// kernel file, and the Triton kernels it imports when there are any).
enum class KernelSourceOrigin { Flags, KernelFile, KernelFileAndImports };

struct InitRequest {
  std::string repo;                        // --repo (default: the current directory)
  std::string kernel;                      // --kernel: the .py file kopt's harness imports (repo-relative)
  std::string kernelModule;                // its dotted name when it sits in a package; "" = by path
  std::string benchCommand;                // --bench-command: the user's own contract-following bench
  std::string testCommand, buildCommand;   // --test-command, --build-command
  std::vector<std::string> kernelSources;  // --kernel-source (repeatable); default: --kernel and its imported kernels
  KernelSourceOrigin kernelSourceOrigin = KernelSourceOrigin::Flags;
  std::string kind;                        // gemm | memory; "" = from the kernel's functions
  std::string backend;                     // TRITON, HIP, CUDA, CPU, ...; "" = from the kernel
  std::string forward = "forward";
  std::string backward;                    // a function, "autograd" or "none"; "" = from the kernel
  std::string dtype = "bf16";              // INPUT_DTYPE of the harness
  std::string check;                       // correctness class; "" = dtype
  std::string device;                      // cuda | cpu; "" = cuda, or cpu with --backend CPU
  std::string gpu;                         // target_gpu; "" = the machine's (init_command.cpp)
  std::string op;                          // target_op; "" = the kernel file's stem
  std::string metric;                      // primary_metric; "" = from kind and backward
  std::vector<InitShape> shapes;
  double batchMs = 0;                      // bench.batch_ms of the worker protocol; 0 = by kind and device
  std::string validateShape;               // the shape the validation runs; "" = the first
  std::string python = "python3";
  std::string dir = "kopt";                // where the files go, relative to the repository
  bool force = false, commit = true, validate = true;

  bool ownBench() const { return !benchCommand.empty(); }
};

// Flags -> request; the error names the flag and the fix. Shapes and enums are checked here.
std::variant<InitRequest, std::string> parseInitArgs(const Args& args);

// Fills what the flags left open from the kernel's traits (kind, backward, backend, device, op,
// metric); returns what is still missing or contradictory, each naming the flag to pass.
std::vector<std::string> completeInitRequest(InitRequest& request, const PythonKernelTraits& traits);

// The lines of init's summary that say which files a round may change (kernel_source), why those,
// and how to name others: everything else is frozen at BASELINE, so a wrong list refuses every round.
std::vector<std::string> roundScopeLines(const InitRequest& request);

// The harness config sidecar (JSON, version 1; keys as harness/python/quick_test_bench.py load_config_file).
std::string benchConfigJson(const InitRequest& request);
// The manifest draft; `created` is "YYYY-MM-DD HH:MM". parseManifest accepts it (init_plan_test).
std::string manifestYaml(const InitRequest& request, const std::string& created);
// The command the validation runs on `validateShape`, writing `csv` and `samples`; for
// --bench-command, the user's words with placeholders filled; an error names what is wrong.
std::variant<exec::ParsedCommand, std::string> validationCommand(const InitRequest& request, const std::string& csv,
                                                                 const std::string& samples);

// The repository-relative paths kopt init writes.
struct InitFiles {
  std::string harness, config, manifest;  // harness and config are empty for --bench-command
};
InitFiles initFiles(const InitRequest& request);

}  // namespace kopt::cli
