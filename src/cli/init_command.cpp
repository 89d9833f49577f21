// kopt init: from a plain repository with a kernel to a campaign that can start. It looks at the
// repository (which Python files hold Triton kernels, which functions the kernel file defines),
// asks for what it cannot find (on a terminal; flags otherwise), writes kopt's harness, its config
// sidecar and a manifest draft into kopt/, runs the harness on one shape and reads the CSV the way
// the campaign will, and commits the three files, so every worktree of the campaign has them.
// The plan itself (init_plan.h) touches no disk; this file does the I/O.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "campaign/lineage/git_repo.h"
#include "campaign/manifest.h"
#include "cli/commands.h"
#include "cli/init_plan.h"
#include "cli/python_imports.h"
#include "cli/run_log_cause.h"
#include "device/device_runtime.h"
#include "exec/executor.h"
#include "measure/bench_table.h"
#include "tools/catalog.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::cli {

namespace fs = std::filesystem;

namespace {

const char* kInitUsage = R"(kopt init: set up a campaign on your own kernel (docs/byo-kernel.md)

  kopt init [--repo DIR] --kernel FILE.py --shape LABEL=B,M,N[,K] [--shape ...] [options]
      kopt's Python harness (Triton or any torch-callable kernel) on FILE.py, configured by
      kopt/bench.json; FILE.py defines forward(...) and optionally backward(...); memory-bound
      kernels also make_inputs(...) and reference_forward(...)
  kopt init [--repo DIR] --bench-command CMD --test-command CMD --kernel-source PATH --kind K
            --backend B --shape ... [--build-command CMD]
      your own benchmark (e.g. a HIP bench binary) that follows the bench contract

Options:
  --kind gemm|memory        the frozen CSV schema (default: memory when the kernel file defines
                            make_inputs and reference_forward, else gemm)
  --backend B               TRITON (default when FILE.py or the repository files it imports
                            hold an @triton.jit kernel), HIP, CUDA, CK, HIPBLASLT, TURBO, CPU
  --forward NAME            the function timed forward (default: forward)
  --backward NAME|autograd|none   (default: backward when defined, else none)
  --dtype D --check C       input dtype and correctness class (default bf16, check = dtype)
  --device cuda|cpu         where the harness runs (cpu goes with --backend CPU)
  --gpu ARCH                target_gpu (default: this machine's GPU)
  --op NAME --metric M      target_op (default: FILE's stem + dtype), primary_metric
  --kernel-source PATH      a file a round may change (repeatable; default: FILE.py and the
                            Triton kernels it imports from the repository); the rest is frozen
  --build-command CMD       rebuilds the kernel (compiled kernels)
  --batch-ms MS             one measured batch (default 40 memory-bound on a GPU, else 20)
  --validate-shape LABEL    the shape the validation runs (default: the first)
  --python P                the Python that runs the harness (default: python3)
  --dir D                   where the files go (default: kopt)
  --force                   overwrite kopt/'s files   --no-validate   skip the one-shape run
  --no-commit               leave the files uncommitted (commit them before define_target)
)";

bool interactive() { return isatty(0) && isatty(2); }

std::string now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

// Python files of the repository with a Triton kernel in them (a few, for the prompt).
std::vector<std::string> tritonFiles(const fs::path& repo) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(repo, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator() && found.size() < 10; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec) && (name == ".git" || name == ".kopt" || name == "node_modules" || name == "__pycache__" ||
                                 util::startsWith(name, "build"))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() != ".py" || !it->is_regular_file(ec)) continue;
    if (inspectPythonKernel(util::readFile(it->path())).triton) found.push_back(fs::relative(it->path(), repo).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string ask(const std::string& question) {
  std::cerr << question << std::flush;
  std::string line;
  std::getline(std::cin, line);
  return util::trim(line);
}

// The dotted name of `file` when every folder from the repository root down holds an __init__.py
// (a package: the module may use relative imports, so it must be imported by name).
std::string dottedName(const fs::path& repo, const std::string& file) {
  fs::path rel(file);
  if (!rel.has_parent_path()) return "";
  std::string name;
  fs::path dir = repo;
  for (const auto& part : rel.parent_path()) {
    dir /= part;
    std::error_code ec;
    if (!fs::is_regular_file(dir / "__init__.py", ec)) return "";
    name += part.string() + ".";
  }
  return name + rel.stem().string();
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Run {
  bool ok = false;
  std::string what;  // why not, in the command's own words
};

// The command's own lines on why it failed (run_log_cause.h), indented under the refusal.
std::string causeIn(const fs::path& log, const exec::ParsedCommand& command, const std::string& shape) {
  // kopt's harness names itself by its file's stem; another bench by its program's name.
  const auto& argv = command.argv;
  const std::string program =
      fs::path(argv.size() > 1 && util::endsWith(argv[1], ".py") ? argv[1] : argv.empty() ? "" : argv[0]).stem().string();
  std::string text;
  for (const auto& line : runLogCause(util::readFileIfExists(log).value_or(""), program, shape)) text += "\n    " + line;
  return text.empty() ? " (it wrote nothing)" : ":" + text;
}

Run runLogged(const exec::ParsedCommand& command, const fs::path& cwd, const fs::path& log, const std::string& shape = "") {
  exec::CommandSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.env["PYTHONDONTWRITEBYTECODE"] = "1";
  spec.cwd = cwd;
  spec.stdoutPath = log;
  spec.timeout = std::chrono::minutes(15);
  const exec::RunResult r = exec::makeLocalExecutor()->run(spec, {});
  if (r.ok()) return {true, ""};
  std::string why = r.outcome == exec::RunOutcome::Exited ? "exited with " + std::to_string(r.exitCode) : std::string(exec::toString(r.outcome));
  if (!r.error.empty()) why += " (" + r.error + ")";
  return {false, util::join(command.argv, " ") + " " + why + "; it said" + causeIn(log, command, shape)};
}

// Runs the harness (or the user's bench) on one shape and reads its CSV as the campaign will.
Run validate(const InitRequest& q, const fs::path& repo) {
  std::string pattern = (fs::temp_directory_path() / "kopt-init-XXXXXX").string();
  if (!mkdtemp(pattern.data())) return {false, "cannot create a temporary folder in " + fs::temp_directory_path().string()};
  const fs::path tmp = pattern;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  if (!q.buildCommand.empty()) {
    auto parsed = campaign::parseCommand(q.buildCommand);
    if (auto* err = std::get_if<std::string>(&parsed)) return {false, "--build-command: " + *err};
    std::cerr << "kopt init: building: " << q.buildCommand << "\n";
    Run b = runLogged(campaign::expandPlaceholders(std::get<campaign::Command>(parsed), {"", repo.string(), q.gpu}), repo,
                      tmp / "build.log");
    if (!b.ok) return {false, "the build failed: " + b.what};
  }
  const fs::path csv = tmp / "validate.csv", samples = tmp / "validate.jsonl";
  auto command = validationCommand(q, csv.string(), samples.string());
  if (auto* err = std::get_if<std::string>(&command)) return {false, *err};
  std::cerr << "kopt init: running shape " << q.validateShape << " once ...\n";
  Run r = runLogged(std::get<exec::ParsedCommand>(command), repo, tmp / "validate.log", q.validateShape);
  if (!r.ok) return r;
  const auto table = measure::parseBenchCsv(util::readFile(csv),
                                            q.kind == "memory" ? measure::SchemaKind::MemoryBound : measure::SchemaKind::Gemm);
  if (auto* err = std::get_if<measure::TableError>(&table)) {
    return {false, "its CSV does not have the frozen " + q.kind + " schema: " + err->toString()};
  }
  const auto& t = std::get<measure::BenchTable>(table);
  const measure::BenchRow* row = t.find(q.validateShape);
  if (t.rows.size() != 1 || !row) return {false, "its CSV should hold exactly the row " + q.validateShape};
  if (row->check != measure::Check::Pass) {
    // A FAIL row is any failure of the shape (an exception, a wrong output, a module that did
    // not import): the harness said which on its own lines, so quote them.
    return {false, "shape " + q.validateShape + " is " + measure::toString(row->check) + "; the harness said" +
                       causeIn(tmp / "validate.log", std::get<exec::ParsedCommand>(command), q.validateShape)};
  }
  std::string numbers;
  for (const auto& col : t.schema.metricColumns) {
    if (auto v = t.value(*row, col); v && *v == *v) numbers += ", " + col + " " + fixed(*v);
  }
  return {true, q.validateShape + " PASS" + numbers};
}

// Finds the kernel file (asking on a terminal, listing the Triton files found), makes it
// repository-relative and reads its traits. False: the problem was printed.
bool resolveKernel(InitRequest& q, const fs::path& repo, PythonKernelTraits& traits) {
  std::error_code ec;
  if (q.kernel.empty() && interactive()) {
    const auto found = tritonFiles(repo);
    q.kernel = ask("Kernel module (a .py file in the repository" +
                   (found.empty() ? std::string() : "; Triton kernels here: " + util::join(found, ", ")) + "): ");
  }
  if (q.kernel.empty()) {
    const auto found = tritonFiles(repo);
    std::cerr << "kopt init: --kernel FILE.py is required (or --bench-command for your own bench)"
              << (found.empty() ? std::string() : "; Triton kernels in this repository: " + util::join(found, ", ")) << "\n";
    return false;
  }
  const fs::path kernel = fs::absolute(repo / q.kernel).lexically_normal();
  const fs::path rel = kernel.lexically_relative(repo);
  if (rel.empty() || util::startsWith(rel.string(), "..") || kernel.extension() != ".py" || !fs::is_regular_file(kernel, ec)) {
    std::cerr << "kopt init: --kernel " << q.kernel << ": not a .py file inside " << repo.string() << "\n";
    return false;
  }
  q.kernel = rel.string();
  q.kernelModule = dottedName(repo, q.kernel);
  traits = inspectPythonKernel(util::readFile(kernel));
  // A kernel package's hooks file imports its kernels: those files decide the backend and are
  // what a round changes (completeInitRequest).
  const RepoFileReader read = [&repo](const std::string& path) -> std::optional<std::string> {
    std::error_code e;
    if (!fs::is_regular_file(repo / path, e)) return std::nullopt;
    return util::readFile(repo / path);
  };
  for (const auto& file : importedRepoFiles(q.kernel, read)) {
    if (inspectPythonKernel(read(file).value_or("")).triton) traits.importedKernels.push_back(file);
  }
  return true;
}

void askShapes(InitRequest& q) {
  std::cerr << "Shapes to benchmark, one per line as LABEL=B,M,N (memory-bound) or LABEL=B,M,N,K (GEMM); empty line ends:\n";
  for (std::string line; !(line = ask("  shape: ")).empty();) {
    auto shape = parseShapeFlag(line);
    if (auto* err = std::get_if<std::string>(&shape)) std::cerr << "  " << *err << "\n";
    else q.shapes.push_back(std::get<InitShape>(shape));
  }
}

}  // namespace

int initCommand(const Args& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kInitUsage;
      return 0;
    }
  }
  auto parsed = parseInitArgs(args);
  if (auto* err = std::get_if<std::string>(&parsed)) {
    std::cerr << "kopt init: " << *err << "\n";
    return 2;
  }
  InitRequest q = std::get<InitRequest>(parsed);
  std::error_code ec;
  const fs::path repo = fs::weakly_canonical(fs::absolute(q.repo.empty() ? fs::current_path() : fs::path(q.repo)), ec);
  if (!fs::exists(repo / ".git", ec)) {
    std::cerr << "kopt init: " << repo.string() << " is not the root of a git repository (no .git there): kopt commits "
              << "accepted rounds, so a campaign needs one; run `git init` and commit your kernel first, or pass --repo\n";
    return 2;
  }
  q.repo = repo.string();

  PythonKernelTraits traits;
  if (!q.ownBench()) {
    if (!resolveKernel(q, repo, traits)) return 2;
  }
  if (q.shapes.empty() && interactive()) askShapes(q);
  if (q.gpu.empty() && q.device != "cpu" && q.backend != "CPU") {
    const auto snapshot = device::makeSystemRuntime()->snapshot();
    if (snapshot.present && !snapshot.devices.empty()) q.gpu = snapshot.devices.front().arch;
  }
  std::vector<std::string> problems = completeInitRequest(q, traits);
  if (q.gpu.empty()) problems.push_back("--gpu ARCH is required: no GPU answered here (e.g. --gpu sm_90 or --gpu gfx942)");
  const InitFiles files = initFiles(q);
  const std::string manifest = manifestYaml(q, now());
  if (problems.empty()) {
    auto m = campaign::parseManifest(manifest);
    if (auto* errors = std::get_if<std::vector<campaign::FieldError>>(&m)) {
      for (const auto& e : *errors) problems.push_back("the manifest it would write: " + campaign::toString(e));
    }
  }
  std::vector<std::pair<std::string, std::string>> writes;  // repository-relative path, content
  if (!q.ownBench() && problems.empty()) {
    const fs::path tpl = tools::findHarnessTemplateDir() / "quick_test_bench.py";
    if (!fs::is_regular_file(tpl, ec)) {
      problems.push_back("kopt's harness (harness/python/quick_test_bench.py) is not found: set KOPT_TOOLS_DIR to the folder holding it");
    } else {
      writes.emplace_back(files.harness, util::readFile(tpl));
      writes.emplace_back(files.config, benchConfigJson(q));
    }
  }
  writes.emplace_back(files.manifest, manifest);
  for (const auto& [path, _] : writes) {
    if (!q.force && fs::exists(repo / path, ec)) problems.push_back(path + " exists: pass --force to overwrite it");
  }
  if (!problems.empty()) {
    std::cerr << "kopt init: nothing was written:\n";
    for (const auto& p : problems) std::cerr << "  - " << p << "\n";
    return 2;
  }

  std::cout << "kopt init in " << repo.string() << "\n";
  if (!q.ownBench()) {
    std::cout << "  kernel   " << q.kernel << (q.kernelModule.empty() ? "" : " (imported as " + q.kernelModule + ")")
              << ": " << (traits.triton ? "Triton; " : "") << "defines " << util::join(traits.functions, ", ")
              << (traits.importedKernels.empty() ? "" : "; imports the Triton kernels of " + util::join(traits.importedKernels, ", "))
              << "\n";
  } else {
    std::cout << "  bench    " << q.benchCommand << "\n";
  }
  std::cout << "  target   " << q.op << " on " << q.backend << " / " << q.gpu << ", " << q.kind << " schema, primary metric "
            << q.metric << ", forward " << q.forward << ", backward " << q.backward << "\n";
  const auto scope = roundScopeLines(q);
  for (std::size_t i = 0; i < scope.size(); ++i) std::cout << (i == 0 ? "  rounds   " : "           ") << scope[i] << "\n";
  std::vector<std::string> written;
  try {
    for (const auto& [path, content] : writes) {
      fs::create_directories((repo / path).parent_path());
      util::writeFileAtomic(repo / path, content);
      written.push_back(path);
    }
  } catch (const std::exception& e) {
    std::cerr << "kopt init: cannot write " << (repo / writes[written.size()].first).string() << ": " << e.what() << "\n";
    return 1;
  }
  std::cout << "  wrote    " << util::join(written, ", ") << std::endl;  // before the validation's stderr lines

  if (q.validate) {
    const Run v = validate(q, repo);
    if (!v.ok) {
      std::cerr << "kopt init: the validation run failed, so nothing was committed: " << v.what
                << "\nFix the kernel and run kopt init again with --force; or edit "
                << (q.ownBench() ? files.manifest : files.config) << ", run the command above again, and commit "
                << util::join(written, ", ") << " yourself.\n";
      return 1;
    }
    std::cout << "  checked  " << v.what << " (the harness ran one shape and kopt read its CSV)\n";
  }
  if (q.commit) {
    try {
      campaign::lineage::GitRepo git(repo);
      const std::string commit = git.commitPaths(written, "kopt init: the harness, its config and the manifest for " + q.op);
      std::cout << "  commit   " << commit.substr(0, 12) << " (only " << util::join(written, ", ") << ")\n";
    } catch (const std::exception& e) {
      std::cerr << "kopt init: the files are written but could not be committed: " << e.what()
                << "\nCommit them yourself before define_target (every worktree of the campaign needs them).\n";
      return 1;
    }
  }
  std::cout << "\nNext: start kopt (kopt serve) in your agent and call define_target with\n"
            << "  {\"repo_path\": \"" << repo.string() << "\", \"manifest_path\": \"" << files.manifest << "\"}\n"
            << "then confirm_target, prepare_environment and run_baseline (docs/byo-kernel.md).\n";
  return 0;
}

}  // namespace kopt::cli
