#include "harness/hip/bench_driver.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

using namespace kopt::hipbench;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Shape shape(const std::string& label, long long m) {
  Shape s;
  s.label = label;
  s.m = s.n = s.k = m;
  return s;
}

// A fake GPU half: each shape's behaviour is scripted by its label.
BenchDefinition fakeBench(std::vector<std::string>* calls) {
  BenchDefinition b;
  b.harness = "fake_gemm";
  b.schema = Schema::Gemm;
  b.shapes = {shape("small", 64), shape("wrong", 128), shape("crash", 256), shape("big", 512)};
  b.edgeShapes = {shape("edge_odd", 7)};
  b.deviceName = [] { return std::string("Fake GPU"); };
  b.runShape = [calls](const Shape& s, const RunContext& ctx) {
    calls->push_back(s.label);
    ShapeOutcome o;
    if (s.label == "crash") throw std::runtime_error("hipMalloc failed: out of memory");
    o.pass = s.label != "wrong";
    o.checkValues = {o.pass ? 50.0 : 3.0, 51.0, 52.0};
    if (o.pass && !ctx.checkOnly) {
      const double flops = 2.0 * s.m * s.n * s.k;
      o.forward = DirectionTiming{{1.0, 1.0, 1.0}, StopReason::Rsd, flops};
      o.backward = DirectionTiming{{2.0, 2.0, 2.0}, StopReason::TimeCap, 2 * flops};
    }
    return o;
  };
  return b;
}

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("kopt_hipbench_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  static inline int n = 0;
  TempDir() { fs::create_directories(dir); }
  ~TempDir() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("every shape gets a row, in the harness's order; failures and crashes are FAIL rows with nan") {
  std::vector<std::string> calls;
  TempDir tmp;
  std::ostringstream out, err;
  const std::string csv = (tmp.dir / "b.csv").string(), samples = (tmp.dir / "s.jsonl").string();
  const int rc = runBench({"--summary-csv", csv, "--samples", samples, "--seed", "9"}, fakeBench(&calls), out, err);
  CHECK(rc == 0);
  CHECK(calls == std::vector<std::string>{"small", "wrong", "crash", "big"});
  const std::string table = slurp(csv);
  std::istringstream lines(table);
  std::string header, small, wrong, crash, big;
  std::getline(lines, header);
  std::getline(lines, small);
  std::getline(lines, wrong);
  std::getline(lines, crash);
  std::getline(lines, big);
  CHECK(header == kGemmHeader);
  // 2*64^3 FLOP in 1 ms = 0.000524288 TFLOPS; backward 2x the work in 2 ms: the same rate.
  CHECK(small == "small,1,64,64,64,PASS,0.000524288,0,0.000524288,0,1,2,50,51,52");
  CHECK(wrong == "wrong,1,128,128,128,FAIL,nan,nan,nan,nan,nan,nan,3,51,52");
  CHECK(crash == "crash,1,256,256,256,FAIL,nan,nan,nan,nan,nan,nan,nan,nan,nan");
  CHECK(big.rfind("big,1,512,512,512,PASS,", 0) == 0);
  CHECK(err.str().find("crash: FAIL: hipMalloc failed: out of memory") != std::string::npos);

  const std::string s = slurp(samples);
  CHECK(s.rfind("{\"kopt_samples\":1,\"harness\":\"fake_gemm\",\"device\":\"Fake GPU\",\"seed\":9}\n", 0) == 0);
  // Series for the two PASS shapes only, forward then backward.
  CHECK(std::count(s.begin(), s.end(), '\n') == 5);
  CHECK(s.find("\"label\":\"small\",\"direction\":\"backward\"") != std::string::npos);
  CHECK(s.find("\"label\":\"wrong\"") == std::string::npos);
  CHECK(s.find("\"stop\":\"time_cap\"") != std::string::npos);
  // No temporary files left behind.
  int files = 0;
  for (auto& e : fs::directory_iterator(tmp.dir)) files += e.is_regular_file();
  CHECK(files == 2);
}

TEST_CASE("--shapes picks and orders rows; an unknown label is a usage error naming it") {
  std::vector<std::string> calls;
  TempDir tmp;
  std::ostringstream out, err;
  const std::string csv = (tmp.dir / "b.csv").string(), samples = (tmp.dir / "s.jsonl").string();
  CHECK(runBench({"--summary-csv", csv, "--samples", samples, "--shapes", "big,small"}, fakeBench(&calls), out, err) == 0);
  CHECK(calls == std::vector<std::string>{"big", "small"});
  const std::string table = slurp(csv);
  CHECK(table.find("big,") < table.find("small,"));

  calls.clear();
  std::ostringstream out2, err2;
  CHECK(runBench({"--summary-csv", csv, "--samples", samples, "--shapes", "small,nope"}, fakeBench(&calls), out2, err2) == 2);
  CHECK(err2.str().find("unknown shape label 'nope'") != std::string::npos);
  CHECK(calls.empty());
}

TEST_CASE("--check-only runs the edge shapes too and exits 1 when any shape fails") {
  std::vector<std::string> calls;
  std::ostringstream out, err;
  CHECK(runBench({"--check-only"}, fakeBench(&calls), out, err) == 1);
  CHECK(calls == std::vector<std::string>{"small", "wrong", "crash", "big", "edge_odd"});
  calls.clear();
  std::ostringstream out2, err2;
  CHECK(runBench({"--check-only", "--shapes", "small,edge_odd"}, fakeBench(&calls), out2, err2) == 0);
}

TEST_CASE("a harness that cannot set up or write its files exits 1; a bad option exits 2") {
  std::vector<std::string> calls;
  auto bench = fakeBench(&calls);
  std::ostringstream out, err;
  CHECK(runBench({"--summary-csv", "/nonexistent-dir/x.csv", "--samples", "/nonexistent-dir/y"}, bench, out, err) == 1);
  CHECK(err.str().find("cannot write") != std::string::npos);

  bench.setUp = [](const RunContext&) { throw std::runtime_error("no GPU device visible to the runtime"); };
  std::ostringstream out2, err2;
  CHECK(runBench({"--summary-csv", "x", "--samples", "y"}, bench, out2, err2) == 1);
  CHECK(err2.str().find("setup failed: no GPU device") != std::string::npos);

  std::ostringstream out3, err3;
  CHECK(runBench({"--bogus"}, bench, out3, err3) == 2);
}

TEST_CASE("a result with missing or non-positive times is not a PASS") {
  Shape s = shape("x", 8);
  ShapeOutcome o;
  o.pass = true;
  o.forward = DirectionTiming{{1.0}, StopReason::Rsd, 100.0};
  o.backward = DirectionTiming{{0.0}, StopReason::Rsd, 100.0};
  auto row = summaryRow(Schema::Gemm, s, o);
  CHECK_FALSE(row.pass);
  CHECK(std::isnan(row.bwdMetric));
  CHECK(row.fwdMetric > 0);
}
