#pragma once
// A tiny fake kernel for the engine's tests: a git repository with a "kernel" (kernel/config.ini,
// kernel/impl.txt), a build script that copies the config into build/, a test script and a bench
// script that writes the frozen GEMM CSV + samples with throughputs that depend on the *built*
// config. Numbers are deterministic for a given seed and tree path, with a small per-run noise,
// so the gate's plumbing can be tested without timing thresholds.
//
// config keys: speed (TFLOPS, default 100), speed_<label> (multiplier), noise (relative sd,
// default 0.002), correct (0 = every shape FAIL and the tests fail), fail_<label>=1,
// extra_column=1 (the bench writes an extra CSV column: schema drift), nocsv=1 (no CSV written),
// crash=1 (exit 3 without output), build_error=1 (the build fails).
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "campaign/engine.h"
#include "util/atomic_file.h"


namespace kopt::campaign::testing {

// The fake kernel's files live in tests/e2e/fake_kernel (shared with the e2e crash test).
inline std::filesystem::path fakeKernelDir() { return std::filesystem::path(KOPT_SOURCE_DIR) / "tests/e2e/fake_kernel"; }
inline std::string fakeKernelFile(const std::string& name) {
  return util::readFileIfExists(fakeKernelDir() / name).value_or("");
}

// Thrown by the fault hook. Not a std::exception on purpose: the engine's own error handling
// (catch std::exception -> ToolFailure) must not swallow a simulated death.
struct InjectedCrash {
  std::string point;
};

// Names for CHECKs (doctest's ADL toString would clash with kopt's const char* toString).
inline std::string name(RefusalCode c) { return toString(c); }
inline std::string name(Phase p) { return toString(p); }
inline std::string name(const std::optional<Phase>& p) { return p ? toString(*p) : "none"; }

inline int sh(const std::string& command) { return std::system(command.c_str()); }

inline void writeText(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string readText(const std::filesystem::path& p) { return util::readFileIfExists(p).value_or(""); }

inline bool anyStartsWith(const std::vector<std::string>& lines, const std::string& prefix) {
  for (const auto& l : lines)
    if (l.rfind(prefix, 0) == 0) return true;
  return false;
}

// A temporary workspace with a fresh fake-kernel repository at <root>/repo.
struct FakeWorkspace {
  std::filesystem::path root;
  std::filesystem::path repo;
  std::uint64_t nextSeed = 1000;
  std::vector<std::string> faults;  // points at which faultInjection throws (each once)

  FakeWorkspace() {
    char tmpl[] = "/tmp/kopt-engine-XXXXXX";
    root = std::filesystem::path(mkdtemp(tmpl));
    root = std::filesystem::canonical(root);
    repo = root / "repo";
    for (const char* f : {"bench.py", "build.py", "test.py", "kernel/config.ini", "kernel/impl.txt", "manifest.yaml"}) {
      writeText(repo / f, fakeKernelFile(f));
    }
    writeText(repo / ".gitignore", fakeKernelFile("gitignore"));
    sh("cd '" + repo.string() + "' && git init -q -b main && git add -A && git -c user.name=test -c user.email=test@example.com commit -q -m initial");
  }
  ~FakeWorkspace() {
    std::error_code ec;
    // Worktrees first (git keeps their admin data in the repo), then everything.
    std::filesystem::remove_all(root, ec);
  }

  EngineOptions options() {
    EngineOptions o;
    o.workspaceRoot = root;
    o.defaultTipsRoot = root / "tips";
    o.ledgerKeyDir = root / "state" / "ledger-keys";  // keys stay in the test's workspace
    o.seedSource = [this] { return nextSeed++; };
    o.faultInjection = [this](const std::string& point) {
      for (auto it = faults.begin(); it != faults.end(); ++it) {
        if (point == *it || (it->back() == '*' && point.rfind(it->substr(0, it->size() - 1), 0) == 0)) {
          faults.erase(it);
          throw InjectedCrash{point};
        }
      }
    };
    return o;
  }

  void setConfig(const std::string& text) { writeText(repo / "kernel" / "config.ini", text); }
  std::string git(const std::string& args) {
    const std::string out = (root / "git.out").string();
    sh("cd '" + repo.string() + "' && git " + args + " > '" + out + "' 2>&1");
    return readText(out);
  }
};

// define_target on the fake kernel's manifest.yaml; returns the campaign directory.
inline std::string defineFakeCampaign(CampaignEngine& engine) {
  DefineTargetRequest d;
  d.repoPath = "repo";
  d.manifestPath = "manifest.yaml";
  d.created = "2026-04-12 09:30";
  auto defined = engine.defineTarget(d);
  REQUIRE_MESSAGE(defined.ok(), defined.errorText());
  return defined.value().campaignDir;
}

// define -> confirm -> prepare -> tips; returns the campaign directory, run_baseline next.
inline std::string fakeCampaignAtBaselineCall(CampaignEngine& engine) {
  const std::string dir = defineFakeCampaign(engine);
  REQUIRE(engine.confirmTarget({dir, true, "tester", "argument"}).ok());
  REQUIRE(engine.prepareEnvironment(dir).ok());
  REQUIRE(engine.readTips(dir).ok());
  return dir;
}

// The fake campaign measured by two bench workers (4 ms batches), with `config` as the kernel's
// knobs and `edit` applied to the manifest's text first; committed, then brought to the
// run_baseline call. Returns the campaign directory.
inline std::string workerCampaignAtBaselineCall(FakeWorkspace& ws, CampaignEngine& engine, const std::string& config,
                                                const std::function<void(std::string&)>& edit = nullptr) {
  std::string manifest = fakeKernelFile("manifest.yaml");
  if (edit) edit(manifest);
  writeText(ws.repo / "manifest.yaml", manifest + "bench:\n  protocol: worker\n  batch_ms: 4\n");
  ws.setConfig(config);
  ws.git("-c user.name=test -c user.email=test@example.com commit -qam 'worker protocol'");
  return fakeCampaignAtBaselineCall(engine);
}

// define -> confirm -> prepare -> tips -> baseline; returns the campaign directory.
inline std::string fakeCampaignAtBaseline(CampaignEngine& engine) {
  const std::string dir = fakeCampaignAtBaselineCall(engine);
  auto baseline = engine.runBaseline(dir, {});
  REQUIRE_MESSAGE(baseline.ok(), baseline.errorText());
  return dir;
}

// A one-setting round on the fake kernel's knob file.
inline BeginRoundRequest speedKnobHypothesis(const std::string& dir,
                                             std::vector<std::string> files = {"kernel/config.ini"}) {
  BeginRoundRequest b;
  b.campaignDir = dir;
  b.hypothesis.statement = "I expect more TFLOPS because the knob is faster";
  b.hypothesis.change = "speed knob";
  b.hypothesis.expected.metric = "Forward TFLOPS";
  b.hypothesis.expected.sizePct = 10;
  b.hypothesis.bucket = records::Rule11Bucket::K1;
  b.hypothesis.files = std::move(files);
  return b;
}

}  // namespace kopt::campaign::testing
