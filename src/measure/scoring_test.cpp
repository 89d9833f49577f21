#include "measure/scoring.h"

#include <cmath>

#include <doctest/doctest.h>

using namespace kopt::measure;

namespace {

const char* kGemmHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
    "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr\n";

BenchTable table(const std::string& text) {
  auto r = parseBenchCsv(text);
  if (auto* e = std::get_if<TableError>(&r)) FAIL(e->toString());
  return std::get<BenchTable>(r);
}

ScoreVector score(const BenchTable& t, PrimaryMetric m) {
  auto r = scoreTable(t, m);
  if (auto* e = std::get_if<ScoreError>(&r)) FAIL(e->message);
  return std::get<ScoreVector>(r);
}

// A row whose times are derived from the TFLOPS, so both combined-step formulas must agree.
std::string row(const std::string& label, double fwd, double bwd, const char* check = "PASS") {
  const double M = 4096, N = 4096, K = 4096;
  const double fwdMs = 2 * M * N * K / (fwd * 1e12) * 1e3;
  const double bwdMs = 4 * M * N * K / (bwd * 1e12) * 1e3;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s,1,4096,4096,4096,%s,%.17g,0,%.17g,0,%.17g,%.17g,30,30,30\n", label.c_str(), check, fwd,
                bwd, fwdMs, bwdMs);
  return buf;
}

}  // namespace

TEST_CASE("the contract's worked example: 182.69 vs 168.59 is +8.363%") {
  BenchTable t = table(std::string(kGemmHeader) + row("a", 320, 160) + row("b", 305, 152) + row("c", 290, 145));
  ScoreVector s = score(t, PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""});
  REQUIRE(s.shapes.size() == 3);
  CHECK(s.shapes[0].value == doctest::Approx(192.000).epsilon(1e-9));
  // The contract prints 182.515; 6 / (2/305 + 4/152) is 182.5197 (a rounding slip in the text,
  // 0.003%). The geomean 182.69 and the +8.363% below match the contract exactly.
  CHECK(s.shapes[1].value == doctest::Approx(182.5196850393701).epsilon(1e-12));
  CHECK(s.shapes[1].value == doctest::Approx(182.515).epsilon(5e-5));
  CHECK(s.shapes[2].value == doctest::Approx(174.000).epsilon(1e-9));
  CHECK(s.geomeanPass == doctest::Approx(182.69).epsilon(1e-4));
  CHECK(std::round(s.geomeanPass * 100) / 100 == doctest::Approx(182.69));
  CHECK(std::round(percentChange(182.69, 168.59) * 1000) / 1000 == doctest::Approx(8.363));
  CHECK(s.passCount == 3);
  CHECK(s.allPass());
}

TEST_CASE("combined step formulas agree and grouped shapes multiply by B") {
  CHECK(combinedStepFromTflops(320, 160) == doctest::Approx(192.0));
  // 6*M*N*K / (t_f + t_b): 6 * 2^36 flops over 1 ms + 2 ms.
  CHECK(combinedStepTflops(1, 4096, 4096, 4096, 1.0, 2.0) == doctest::Approx(6.0 * std::pow(4096.0, 3) / 3e-3 / 1e12));
  CHECK(combinedStepTflops(8, 512, 2048, 1408, 0.5, 1.0) ==
        doctest::Approx(8 * combinedStepTflops(1, 512, 2048, 1408, 0.5, 1.0)));
  CHECK(gemmForwardTflops(1, 1000, 1000, 1000, 1.0) == doctest::Approx(2.0));
  CHECK(gemmBackwardTflops(2, 1000, 1000, 1000, 1.0) == doctest::Approx(8.0));
  CHECK(gbPerSecond(3e9, 1.0) == doctest::Approx(3000.0));
  // A grouped row in a table: B = 8 scales the time-based combined step.
  BenchTable t = table(std::string(kGemmHeader) + "g,8,512,2048,1408,PASS,1,0,1,0,0.5,1.0,30,30,30\n");
  ScoreVector s = score(t, PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""});
  CHECK(s.shapes[0].value == doctest::Approx(combinedStepTflops(8, 512, 2048, 1408, 0.5, 1.0)));
}

TEST_CASE("geomean and percent change") {
  CHECK(geomean({2, 8}) == doctest::Approx(4.0));
  CHECK(std::isnan(geomean({})));
  CHECK(std::isnan(geomean({1, 0})));
  CHECK(std::isnan(geomean({1, std::nan("")})));
  CHECK(percentChange(110, 100) == doctest::Approx(10.0));
}

TEST_CASE("geomean is over PASS shapes; FAIL and unscorable PASS rows are counted as not PASS") {
  BenchTable t = table(std::string(kGemmHeader) + row("a", 200, 100) + row("b", 800, 400) + row("c", 1, 1, "FAIL") +
                       "d,1,4096,4096,4096,PASS,nan,0,nan,0,nan,nan,30,30,30\n");
  ScoreVector s = score(t, PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""});
  CHECK(s.passCount == 2);
  CHECK(s.geomeanPass == doctest::Approx(400.0));
  CHECK_FALSE(s.allPass());
  CHECK(s.passLabels() == std::vector<std::string>{"a", "b"});
  const ShapeScore* d = s.find("d");
  REQUIRE(d);
  CHECK((d->check == Check::Pass));
  CHECK_FALSE(d->countsAsPass());
  CHECK(d->problem.find("is PASS but its Forward TFLOPS is nan") != std::string::npos);
  CHECK(s.find("c")->problem.empty());  // a FAIL row needs no excuse
}

TEST_CASE("no PASS shape gives an aggregate of 0") {
  BenchTable t = table(std::string(kGemmHeader) + row("a", 1, 1, "FAIL"));
  CHECK((score(t, PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""}).geomeanPass == 0.0));
}

TEST_CASE("memory-bound GB/s and custom metrics") {
  BenchTable t = table(
      "label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,Forward Time (ms),"
      "Backward Time (ms),max_abs_err\na,1,8,8,PASS,1000,0,500,0,1,1,0\nb,1,8,8,PASS,4000,0,2000,0,1,1,0\n");
  CHECK((score(t, PrimaryMetric{PrimaryMetricKind::ForwardGbps, ""}).geomeanPass == doctest::Approx(2000.0)));
  CHECK((score(t, PrimaryMetric{PrimaryMetricKind::BackwardGbps, ""}).geomeanPass == doctest::Approx(1000.0)));
  CHECK((defaultPrimaryMetric(t).kind == PrimaryMetricKind::ForwardGbps));
  auto missing = scoreTable(t, PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""});
  REQUIRE(std::holds_alternative<ScoreError>(missing));
  CHECK(std::get<ScoreError>(missing).message.find("needs the numeric column 'Forward TFLOPS'") != std::string::npos);

  BenchTable c = table("label,Check,Tokens/s\na,PASS,10\nb,PASS,1000\n");
  auto metric = PrimaryMetric::parse("Tokens/s", &c.schema);
  REQUIRE(metric);
  CHECK((metric->kind == PrimaryMetricKind::Custom));
  CHECK(score(c, *metric).geomeanPass == doctest::Approx(100.0));
  CHECK_FALSE(PrimaryMetric::parse("nope", &c.schema).has_value());
}

TEST_CASE("combined step falls back to the TFLOPS form when times are missing") {
  BenchTable t = table("label,M,N,K,Check,Forward TFLOPS,Backward TFLOPS\na,1,1,1,PASS,320,160\n");
  CHECK((score(t, PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""}).shapes[0].value == doctest::Approx(192.0)));
}

TEST_CASE("primary metric names: manifest and turbo spellings") {
  CHECK((PrimaryMetric::parse("Forward TFLOPS")->kind == PrimaryMetricKind::ForwardTflops));
  CHECK((PrimaryMetric::parse("combined_step_tflops")->kind == PrimaryMetricKind::CombinedStepTflops));
  CHECK(PrimaryMetric::parse("Combined Step TFLOPS")->name() == "Combined Step TFLOPS");
  CHECK((PrimaryMetric::parse("forward_gbps")->kind == PrimaryMetricKind::ForwardGbps));
  CHECK(PrimaryMetric::parse("Backward GB/s")->unit() == "GB/s");
  CHECK((PrimaryMetric::parse("Backward TFLOPS")->kind == PrimaryMetricKind::Custom));
  CHECK(PrimaryMetric::parse("Backward TFLOPS")->unit() == "TFLOPS");
  CHECK_FALSE(PrimaryMetric::parse("").has_value());
}

TEST_CASE("default primary metric of a GEMM table follows the backward times") {
  BenchTable both = table(std::string(kGemmHeader) + row("a", 320, 160));
  CHECK((defaultPrimaryMetric(both).kind == PrimaryMetricKind::CombinedStepTflops));
  BenchTable fwdOnly = table(std::string(kGemmHeader) + "a,1,2,2,2,PASS,1,0,nan,nan,1,nan,30,nan,nan\n");
  CHECK((defaultPrimaryMetric(fwdOnly).kind == PrimaryMetricKind::ForwardTflops));
}

TEST_CASE("a run summary from raw samples uses the median time") {
  auto parsed = parseSamplesFile(
      R"({"kopt_samples":1,"harness":"h","device":"d","seed":0})" "\n"
      R"({"label":"a","direction":"forward","times":[1,1,100],"flops":2e9,"bytes":4e6})" "\n"
      R"({"label":"a","direction":"backward","times":[2,2,2],"flops":4e9,"bytes":8e6})" "\n"
      R"({"label":"b","direction":"forward","times":[1],"flops":null})" "\n");
  REQUIRE(std::holds_alternative<SamplesFile>(parsed));
  const SamplesFile& f = std::get<SamplesFile>(parsed);
  RunSummary fwd = summarizeRun(f, PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""});
  CHECK(*fwd.find("a") == doctest::Approx(2e9 / 1e-3 / 1e12));  // the 100 ms outlier is ignored
  CHECK(fwd.missing == std::vector<std::string>{"b"});
  RunSummary step = summarizeRun(f, PrimaryMetric{PrimaryMetricKind::CombinedStepTflops, ""});
  CHECK(*step.find("a") == doctest::Approx(6e9 / 3e-3 / 1e12));
  RunSummary gbs = summarizeRun(f, PrimaryMetric{PrimaryMetricKind::BackwardGbps, ""});
  CHECK(*gbs.find("a") == doctest::Approx(4.0));
  CHECK(summarizeRun(f, PrimaryMetric{PrimaryMetricKind::Custom, "x"}).throughput.empty());
}

TEST_CASE("a run summary from a score vector keeps PASS shapes only") {
  BenchTable t = table(std::string(kGemmHeader) + row("a", 320, 160) + row("b", 1, 1, "FAIL"));
  RunSummary r = summarizeRun(score(t, PrimaryMetric{PrimaryMetricKind::ForwardTflops, ""}));
  CHECK(*r.find("a") == doctest::Approx(320.0));
  CHECK(r.missing == std::vector<std::string>{"b"});
}
