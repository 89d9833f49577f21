// The A/B runner with a fake executor (no processes): order of the arms, seeds, fresh files,
// stale or foreign files ignored, and how pairs become gate input.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "campaign/measurement.h"
#include "util/atomic_file.h"

namespace kopt::campaign {
namespace {

namespace fs = std::filesystem;

const char* kHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,Forward Time "
    "(ms),Backward Time (ms),out_snr,da_snr,db_snr\n";

// Writes a CSV + samples like a harness: throughput `speed[cwd]` on two shapes.
struct FakeBench : exec::Executor {
  std::map<std::string, double> speed;  // tree -> TFLOPS
  std::map<std::string, std::string> hooks;  // tree -> the samples header's hooks fingerprint
  std::vector<std::pair<std::string, std::string>> calls;  // (tree, seed)
  bool writeCsv = true;
  bool wrongSeed = false;
  std::string check = "PASS";
  std::string name() const override { return "fake"; }
  exec::RunResult run(const exec::CommandSpec& spec, const exec::RunObserver&) override {
    std::string csv, samples, seed;
    for (std::size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == "--summary-csv") csv = spec.argv[i + 1];
      if (spec.argv[i] == "--samples") samples = spec.argv[i + 1];
      if (spec.argv[i] == "--seed") seed = spec.argv[i + 1];
    }
    calls.emplace_back(spec.cwd.string(), seed);
    const double tf = speed[spec.cwd.string()];
    std::ofstream(spec.stdoutPath) << "ran\n";
    if (writeCsv) {
      std::ofstream out(csv);
      out << kHeader;
      for (const char* label : {"a", "b"}) {
        const double ms = 2.0 * 64 * 64 * 64 / (tf * 1e12) * 1e3;
        out << label << ",1,64,64,64," << check << "," << tf << ",0,nan,nan," << ms << ",nan,inf,inf,inf\n";
      }
    }
    std::ofstream s(samples);
    s << "{\"kopt_samples\":1,\"harness\":\"fake\",\"device\":\"x\",\"seed\":" << (wrongSeed ? "1" : seed);
    if (hooks.count(spec.cwd.string())) s << ",\"hooks\":\"" << hooks[spec.cwd.string()] << "\"";
    s << "}\n";
    for (const char* label : {"a", "b"}) {
      const double ms = 2.0 * 64 * 64 * 64 / (tf * 1e12) * 1e3;
      s << "{\"label\":\"" << label << "\",\"direction\":\"forward\",\"unit\":\"ms\",\"times\":[" << ms << "," << ms
        << "],\"flops\":" << 2.0 * 64 * 64 * 64 << ",\"bytes\":null,\"stop\":\"rsd\"}\n";
    }
    exec::RunResult r;
    r.outcome = exec::RunOutcome::Exited;
    r.exitCode = 0;
    return r;
  }
};

struct Dirs {
  fs::path root;
  Dirs() {
    char tmpl[] = "/tmp/kopt-measure-XXXXXX";
    root = mkdtemp(tmpl);
    fs::create_directories(root / "cand");
    fs::create_directories(root / "best");
  }
  ~Dirs() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  MeasurementPlan plan() const {
    MeasurementPlan p;
    p.tag = "t";
    p.command = std::get<Command>(parseCommand("bench"));
    p.candidateTree = root / "cand";
    p.bestTree = root / "best";
    p.runsDir = root / "runs";
    p.metric = measure::PrimaryMetric{};
    return p;
  }
};

}  // namespace

TEST_CASE("measurement: pairs alternate AB/BA with one secret seed per pair") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 120;
  bench.speed[(d.root / "best").string()] = 100;
  std::uint64_t next = 7;
  MeasurementRunner runner(bench, [&] { return next++; });
  auto pairs = runner.run(d.plan(), 0, 4, {}, 0, 8);
  REQUIRE(pairs.size() == 4);
  REQUIRE(bench.calls.size() == 8);
  const std::string cand = (d.root / "cand").string(), best = (d.root / "best").string();
  const std::vector<std::string> order{cand, best, best, cand, cand, best, best, cand};
  for (std::size_t i = 0; i < 8; ++i) CHECK(bench.calls[i].first == order[i]);
  for (std::size_t i = 0; i < 8; i += 2) CHECK(bench.calls[i].second == bench.calls[i + 1].second);
  CHECK(bench.calls[0].second != bench.calls[2].second);
  AssembledRuns a = assemble(pairs, kHeader, {"a", "b"});
  CHECK(a.usablePairs == 4);
  REQUIRE(a.runs.size() == 2);
  CHECK(a.runs[0].candidate.size() == 4);
  CHECK(a.runs[0].candidate[0] / a.runs[0].best[0] == doctest::Approx(1.2));
  CHECK(a.problems.empty());
}

TEST_CASE("measurement: a file the harness did not write this run is never read") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 100;
  bench.speed[(d.root / "best").string()] = 100;
  bench.writeCsv = false;  // the harness writes nothing...
  // ...but a CSV sits where the run would write it.
  fs::create_directories(d.root / "runs");
  std::ofstream(d.root / "runs" / "t-p0-candidate.csv") << kHeader << "a,1,64,64,64,PASS,999,0,nan,nan,1,nan,inf,inf,inf\n";
  MeasurementRunner runner(bench, [] { return std::uint64_t{5}; });
  auto pairs = runner.run(d.plan(), 0, 1, {}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.find("no summary CSV") != std::string::npos);
  AssembledRuns a = assemble(pairs, kHeader, {"a", "b"});
  CHECK(a.candidateRunFailed);
  for (const auto& [label, check] : a.candidateChecks) CHECK(std::string(measure::toString(check)) == "ERROR");
}

TEST_CASE("measurement: a samples file from another run (wrong seed) fails the run") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 100;
  bench.speed[(d.root / "best").string()] = 100;
  bench.wrongSeed = true;
  MeasurementRunner runner(bench, [] { return std::uint64_t{42}; });
  auto pairs = runner.run(d.plan(), 0, 1, {}, 0, 2);
  REQUIRE(pairs.size() == 1);
  CHECK_FALSE(pairs[0].candidate.ok);
  CHECK(pairs[0].candidate.error.find("seed") != std::string::npos);
}

TEST_CASE("measurement: a candidate run whose harness hooks differ from the best's is refused") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 150;  // "faster": against a reference it rewrote
  bench.speed[(d.root / "best").string()] = 100;
  bench.hooks[(d.root / "cand").string()] = std::string(64, 'c');
  bench.hooks[(d.root / "best").string()] = std::string(64, 'b');
  MeasurementRunner runner(bench, [] { return std::uint64_t{9}; });
  auto pairs = runner.run(d.plan(), 0, 2, {}, 0, 4);
  REQUIRE(pairs.size() == 2);
  for (const auto& p : pairs) {
    CHECK_FALSE(p.candidate.ok);
    CHECK(p.candidate.error.find("changed its harness hooks") != std::string::npos);
    CHECK(p.best.ok);
  }
  CHECK(assemble(pairs, kHeader, {"a", "b"}).candidateRunFailed);
  // The same fingerprint on both sides is an ordinary pair.
  bench.hooks[(d.root / "cand").string()] = std::string(64, 'b');
  auto same = runner.run(d.plan(), 2, 1, {}, 0, 2);
  REQUIRE(same.size() == 1);
  CHECK(same[0].candidate.ok);
}

TEST_CASE("measurement: header drift and a shrinking shape set are named") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 100;
  bench.speed[(d.root / "best").string()] = 100;
  MeasurementRunner runner(bench, [] { return std::uint64_t{1}; });
  auto pairs = runner.run(d.plan(), 0, 1, {}, 0, 2);
  std::string frozen = kHeader;
  frozen.replace(frozen.find("out_snr"), 7, "out_SNR");
  AssembledRuns a = assemble(pairs, frozen, {"a", "b", "c"});
  CHECK(a.schemaDrift);
  CHECK(a.shapeSetDrift);
  bool namesC = false;
  for (const auto& p : a.problems) namesC |= p.find("c") != std::string::npos && p.find("shape set") != std::string::npos;
  CHECK(namesC);
}

TEST_CASE("measurement: the candidate's checks are the worst over its runs; the index round-trips") {
  Dirs d;
  FakeBench bench;
  bench.speed[(d.root / "cand").string()] = 100;
  bench.speed[(d.root / "best").string()] = 100;
  MeasurementRunner runner(bench, [] { return std::uint64_t{3}; });
  auto pairs = runner.run(d.plan(), 0, 1, {}, 0, 2);
  bench.check = "FAIL";
  auto more = runner.run(d.plan(), 1, 1, {}, 0, 2);
  pairs.push_back(more[0]);
  AssembledRuns a = assemble(pairs, kHeader, {"a", "b"});
  for (const auto& [label, check] : a.candidateChecks) CHECK(std::string(measure::toString(check)) == "FAIL");
  CHECK(a.bestPassLabels.empty());  // the best failed too in pair 2 (same fake)
  auto reloaded = pairsFromJson(pairsToJson(pairs), d.plan());
  REQUIRE(reloaded.size() == 2);
  CHECK(reloaded[0].seed == 3);
  CHECK(reloaded[1].candidateFirst == false);
  CHECK(reloaded[0].candidate.ok);
  REQUIRE(reloaded[0].candidate.summary.find("a"));
  CHECK(*reloaded[0].candidate.summary.find("a") == doctest::Approx(100.0));
}

}  // namespace kopt::campaign
