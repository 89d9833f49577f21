#include "campaign/report/metric_chart.h"

#include <doctest/doctest.h>

#include "campaign/report/report_test_support.h"

using namespace kopt::campaign::report;
using testing::countOf;

TEST_CASE("the metric chart is well-formed SVG with axes, legend, band and one marker per round") {
  auto h = testing::sampleHistory();
  std::string svg = renderMetricChartSvg(h);
  std::string error;
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("@import") == std::string::npos);
  CHECK(svg.find("href=") == std::string::npos);  // nothing external
  CHECK(svg.find(">Round</text>") != std::string::npos);
  CHECK(svg.find("Combined Step TFLOPS (TFLOPS), higher is better") != std::string::npos);
  CHECK(svg.find("class=\"noise-band\"") != std::string::npos);
  CHECK(svg.find("class=\"best-line\"") != std::string::npos);
  for (const char* label : {">Baseline<", ">Accepted<", ">Accepted with note<", ">Rolled back<", ">Current best<",
                            ">A/A noise band<"})
    CHECK(svg.find(label) != std::string::npos);
  CHECK(countOf(svg, "<g><title>Round ") == 5);
  // Round 4 has no aggregate: marked on the axis as FAIL.
  CHECK(svg.find(">FAIL</text>") != std::string::npos);
  CHECK(svg.find("baseline 281.0 TFLOPS") != std::string::npos);
  CHECK(svg.find("best 303.5 TFLOPS (+8.01%, round 5)") != std::string::npos);
}

TEST_CASE("labels from user data are XML-escaped in the metric chart") {
  auto h = testing::sampleHistory();
  h.campaignName = "a<b>&\"c\"";
  h.metricName = "GB/s <fwd & bwd>";
  h.rounds[1].description = "</title><script>alert(1)</script>";
  std::string svg = renderMetricChartSvg(h);
  std::string error;
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("a&lt;b&gt;&amp;&quot;c&quot;") != std::string::npos);
  CHECK(svg.find("GB/s &lt;fwd &amp; bwd&gt;") != std::string::npos);
}

TEST_CASE("empty, one-round and all-NaN histories still render a readable chart") {
  std::string error;
  SUBCASE("empty") {
    std::string svg = renderMetricChartSvg(CampaignHistory{});
    CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
    CHECK(svg.find("No rounds recorded yet") != std::string::npos);
  }
  SUBCASE("baseline only") {
    auto h = testing::sampleHistory();
    h.rounds.resize(1);
    std::string svg = renderMetricChartSvg(h);
    CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
    CHECK(countOf(svg, "<g><title>Round ") == 1);
    CHECK(svg.find("NaN") == std::string::npos);
  }
  SUBCASE("no finite aggregate anywhere") {
    auto h = testing::sampleHistory();
    for (auto& r : h.rounds) r.aggregate = r.noiseLo = r.noiseHi = kNaN;
    std::string svg = renderMetricChartSvg(h);
    CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
    CHECK(svg.find("No round has a valid aggregate") != std::string::npos);
    CHECK(svg.find("NaN") == std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("class=\"noise-band\"") == std::string::npos);
  }
  SUBCASE("infinite values are treated like missing ones") {
    auto h = testing::sampleHistory();
    h.rounds[2].aggregate = INFINITY;
    std::string svg = renderMetricChartSvg(h);
    CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
    CHECK(svg.find("inf") == std::string::npos);
  }
}

TEST_CASE("many rounds thin out the x labels instead of overlapping them") {
  auto h = testing::sampleHistory();
  auto base = h.rounds[1];
  for (int n = 6; n <= 120; ++n) {
    base.number = n;
    h.rounds.push_back(base);
  }
  std::string svg = renderMetricChartSvg(h);
  std::string error;
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(countOf(svg, "<g><title>Round ") == 120);
  size_t labels = countOf(svg.substr(svg.find("class=\"x-ticks\"")), "</text>");
  CHECK(labels < 120);
}

TEST_CASE("without per-round bands, the aggregate A/A noise gives a band around the best before each round") {
  auto h = testing::sampleHistory();
  for (auto& r : h.rounds) r.noiseLo = r.noiseHi = kNaN;
  CHECK(renderMetricChartSvg(h).find("class=\"noise-band\"") == std::string::npos);
  h.aggregateNoisePct = 1.0;
  auto b1 = noiseBandOf(h, 0), b3 = noiseBandOf(h, 2), b5 = noiseBandOf(h, 4);
  CHECK(b1.lo == doctest::Approx(281.0 * 0.99));  // the baseline: around itself
  CHECK(b3.hi == doctest::Approx(295.9 * 1.01));  // after round 2 was accepted
  CHECK(b5.lo == doctest::Approx(295.9 * 0.99));  // rounds 3 and 4 rolled back: still round 2's
  CHECK_FALSE(noiseBandOf(h, 99).known());
  CHECK(renderMetricChartSvg(h).find("class=\"noise-band\"") != std::string::npos);
}
