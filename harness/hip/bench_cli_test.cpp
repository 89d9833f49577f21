#include "harness/hip/bench_cli.h"

#include <doctest/doctest.h>

using namespace kopt::hipbench;

namespace {
BenchArgs ok(std::vector<std::string> args) {
  auto parsed = parseBenchArgs(args);
  if (auto* e = std::get_if<CliError>(&parsed)) FAIL("unexpected error: " << e->message);
  return std::get<BenchArgs>(parsed);
}
std::string error(std::vector<std::string> args) {
  auto parsed = parseBenchArgs(args);
  REQUIRE(std::holds_alternative<CliError>(parsed));
  return std::get<CliError>(parsed).message;
}
}  // namespace

TEST_CASE("the contract's options") {
  auto a = ok({"--summary-csv", "out.csv", "--samples", "s.jsonl", "--shapes", "b,a", "--seed", "123"});
  CHECK(a.summaryCsv == "out.csv");
  CHECK(a.samplesPath == "s.jsonl");
  REQUIRE(a.shapes);
  CHECK(*a.shapes == std::vector<std::string>{"b", "a"});
  CHECK(a.seed == 123);
  CHECK_FALSE(a.checkOnly);
}

TEST_CASE("the harness's own options") {
  auto a = ok({"--check-only"});
  CHECK(a.checkOnly);
  auto b = ok({"--summary-csv", "x", "--samples", "y", "--target-rsd", "0.01", "--time-cap-s", "0.5", "--min-samples",
               "3", "--max-samples", "7", "--flush-mib", "512"});
  CHECK(b.sampling.targetRsd == doctest::Approx(0.01));
  CHECK(b.sampling.timeCapSeconds == doctest::Approx(0.5));
  CHECK(b.sampling.minSamples == 3);
  CHECK(b.sampling.maxSamples == 7);
  CHECK(*b.flushBytes == (512ull << 20));
  CHECK(b.launchCover);
  CHECK_FALSE(ok({"--summary-csv", "x", "--samples", "y", "--no-launch-cover"}).launchCover);
  CHECK((b.flushMode == FlushMode::Read));
  CHECK((ok({"--summary-csv", "x", "--samples", "y", "--write-flush"}).flushMode == FlushMode::Write));
  CHECK(ok({"--list-shapes"}).listShapes);
}

TEST_CASE("bad command lines name the option") {
  CHECK(error({"--samples", "s"}).find("--summary-csv") != std::string::npos);
  CHECK(error({"--summary-csv", "c"}).find("--samples") != std::string::npos);
  CHECK(error({"--summary-csv"}).find("--summary-csv needs") != std::string::npos);
  CHECK(error({"--check-only", "--seed", "-1"}).find("--seed") != std::string::npos);
  CHECK(error({"--check-only", "--seed", "12x"}).find("--seed") != std::string::npos);
  CHECK(error({"--check-only", "--shapes", "a,,b"}).find("empty label") != std::string::npos);
  CHECK(error({"--check-only", "--shapes", "a,a"}).find("'a' twice") != std::string::npos);
  CHECK(error({"--check-only", "--time-cap-s", "0"}).find("--time-cap-s") != std::string::npos);
  CHECK(error({"--check-only", "--frobnicate"}).find("unknown option '--frobnicate'") != std::string::npos);
  CHECK(error({"--check-only", "--min-samples", "9", "--max-samples", "3"}).find("exceeds") != std::string::npos);
}
