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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "campaign/engine.h"
#include "util/atomic_file.h"


namespace kopt::campaign::testing {

inline const char* kFakeBench = R"PY(import argparse, json, math, os, random, sys
SHAPES = [("s1", 64, 64, 64), ("s2", 128, 128, 128), ("s3", 96, 80, 72), ("s4", 16, 256, 128)]
HEADER = "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr"
def config():
    cfg = {}
    with open(os.path.join(os.getcwd(), "build", "config.ini")) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                cfg[k.strip()] = v.strip()
    return cfg
ap = argparse.ArgumentParser()
ap.add_argument("--summary-csv")
ap.add_argument("--samples")
ap.add_argument("--shapes")
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()
cfg = config()
if cfg.get("crash") == "1":
    sys.exit(3)
shapes = SHAPES
if a.shapes:
    known = {s[0]: s for s in SHAPES}
    for w in a.shapes.split(","):
        if w not in known:
            print("unknown shape " + w, file=sys.stderr)
            sys.exit(2)
    shapes = [known[w] for w in a.shapes.split(",")]
speed = float(cfg.get("speed", "100"))
noise = float(cfg.get("noise", "0.002"))
rng = random.Random("%d|%s" % (a.seed, os.getcwd()))
header = HEADER + (",extra" if cfg.get("extra_column") == "1" else "")
lines = [header]
series = []
for (label, M, N, K) in shapes:
    tf = speed * float(cfg.get("speed_" + label, "1"))
    flops = 2.0 * M * N * K
    base_ms = flops / (tf * 1e12) * 1e3
    run = math.exp(rng.gauss(0, noise))
    times = [base_ms * run * math.exp(rng.gauss(0, noise / 4)) for _ in range(8)]
    tflops = [flops / (t * 1e-3) / 1e12 for t in times]
    mean = sum(tflops) / len(tflops)
    sd = math.sqrt(sum((x - mean) ** 2 for x in tflops) / len(tflops))
    st = sorted(times)
    med = 0.5 * (st[3] + st[4])
    bad = cfg.get("correct", "1") == "0" or cfg.get("fail_" + label) == "1"
    row = "%s,1,%d,%d,%d,%s,%.6g,%.6g,nan,nan,%.6g,nan,inf,inf,inf" % (label, M, N, K, "FAIL" if bad else "PASS", flops / (med * 1e-3) / 1e12, sd, med)
    if cfg.get("extra_column") == "1":
        row += ",0"
    lines.append(row)
    series.append({"label": label, "direction": "forward", "unit": "ms", "times": times, "flops": flops, "bytes": None, "stop": "max_samples"})
if cfg.get("nocsv") != "1":
    with open(a.summary_csv, "w") as f:
        f.write("\n".join(lines) + "\n")
if a.samples:
    with open(a.samples, "w") as f:
        f.write(json.dumps({"kopt_samples": 1, "harness": "fake_bench", "device": "fake", "seed": a.seed}) + "\n")
        for s in series:
            f.write(json.dumps(s) + "\n")
print("bench done: %d shapes" % len(shapes))
)PY";

inline const char* kFakeBuild = R"PY(import os, shutil, sys
cfg = open("kernel/config.ini").read()
if "build_error=1" in cfg:
    print("error: the kernel does not compile", file=sys.stderr)
    sys.exit(2)
os.makedirs("build", exist_ok=True)
shutil.copyfile("kernel/config.ini", "build/config.ini.tmp")
os.replace("build/config.ini.tmp", "build/config.ini")
print("built")
)PY";

inline const char* kFakeTest = R"PY(import sys
cfg = open("build/config.ini").read()
if "correct=0" in cfg:
    print("FAILED: wrong results on every shape")
    sys.exit(1)
print("4 passed")
)PY";

inline const char* kFakeManifest = R"YAML(target_op: fake_gemm
target_backend: CPU
target_gpu: cpu
primary_metric: Forward TFLOPS
kernel_source: [kernel]
build_command: python3 build.py
test_command: python3 test.py
benchmark_command: python3 bench.py
quick_command: python3 bench.py
git_branch: auto
max_iterations: 10
gate:
  pairs: 6
  max_pairs: 15
timeouts:
  build: 60
  test: 60
  bench: 60
  hang: 30
)YAML";

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
    writeText(repo / "bench.py", kFakeBench);
    writeText(repo / "build.py", kFakeBuild);
    writeText(repo / "test.py", kFakeTest);
    writeText(repo / "kernel" / "config.ini", "speed=100\n");
    writeText(repo / "kernel" / "impl.txt", "the kernel body\n");
    writeText(repo / ".gitignore", "build/\n");
    writeText(repo / "manifest.yaml", kFakeManifest);
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

}  // namespace kopt::campaign::testing
