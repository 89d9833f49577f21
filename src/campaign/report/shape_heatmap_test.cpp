#include "campaign/report/shape_heatmap.h"

#include <doctest/doctest.h>

#include "campaign/report/report_test_support.h"
#include "campaign/report/svg_support.h"

#include <cmath>

using namespace kopt::campaign::report;
using testing::countOf;

TEST_CASE("the heatmap has one cell per shape and round, labelled rows, columns and a legend") {
  auto h = testing::sampleHistory();
  std::string svg = renderShapeHeatmapSvg(h);
  std::string error;
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(countOf(svg, "<g><title>M") == 4 * 5);  // cell tooltips start with the shape label
  for (const char* label : {"M4096_N4096_K4096", "M16384_N2048_K7168", ">R1<", ">R5<"})
    CHECK(svg.find(label) != std::string::npos);
  CHECK(svg.find("+6.0%") != std::string::npos);    // round 2, first shape
  CHECK(svg.find(">-10.0%<") != std::string::npos);  // round 3, M1024
  CHECK(svg.find(">0.0%<") != std::string::npos);    // the baseline column
  CHECK(svg.find(">FAIL<") != std::string::npos);   // round 4
  CHECK(svg.find("linearGradient id=\"gain-scale\"") != std::string::npos);
  CHECK(svg.find("FAIL / not measured") != std::string::npos);
  CHECK(svg.find("\xE2\x89\xA5+10%") != std::string::npos);  // scale limit 10% (max |gain| 10%)
  CHECK(svg.find("<script") == std::string::npos);
}

TEST_CASE("gain colours diverge around zero") {
  CampaignHistory h;
  RoundRecord base;
  base.number = 1;
  base.status = RoundStatus::Baseline;
  base.shapes = {testing::shape("up", 110, 100, Verdict::Improved),
                 testing::shape("down", 90, 100, Verdict::Regressed),
                 testing::shape("flat", 100, 100, Verdict::Same)};
  h.rounds = {base};
  std::string svg = renderShapeHeatmapSvg(h);
  // limit 10%: +10% is the full blue, -10% the full red, 0 the neutral centre.
  CHECK(svg.find("fill=\"#2166ac\"") != std::string::npos);
  CHECK(svg.find("fill=\"#b2182b\"") != std::string::npos);
  CHECK(svg.find("fill=\"#f7f7f7\"") != std::string::npos);
}

TEST_CASE("shape labels are XML-escaped and long ones shortened with the full text in a tooltip") {
  auto h = testing::sampleHistory();
  std::string evil = "M<1>&N=\"2\"_with_a_label_that_is_much_longer_than_the_column";
  for (auto& r : h.rounds) r.shapes[0].label = evil;
  std::string svg = renderShapeHeatmapSvg(h);
  std::string error;
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(svg.find("M&lt;1&gt;&amp;N=&quot;2&quot;_with_a_label_that_is_much_longer_than_the_column</title>") !=
        std::string::npos);
  CHECK(svg.find("\xE2\x80\xA6</text>") != std::string::npos);
}

TEST_CASE("empty, one-round, NaN and shapes appearing later") {
  std::string error;
  std::string empty = renderShapeHeatmapSvg(CampaignHistory{});
  CHECK_MESSAGE(testing::wellFormedXml(empty, &error), error);
  CHECK(empty.find("No rounds recorded yet") != std::string::npos);

  auto h = testing::sampleHistory();
  h.rounds.resize(1);
  std::string one = renderShapeHeatmapSvg(h);
  CHECK_MESSAGE(testing::wellFormedXml(one, &error), error);
  CHECK(countOf(one, "<g><title>M") == 4);

  auto n = testing::sampleHistory();
  n.rounds[1].shapes[1].speedupVsBaseline = kNaN;
  n.rounds[1].shapes[1].value = kNaN;
  n.rounds[2].shapes.push_back(testing::shape("late_shape", 50, 50, Verdict::Same));
  std::string svg = renderShapeHeatmapSvg(n);
  CHECK_MESSAGE(testing::wellFormedXml(svg, &error), error);
  CHECK(svg.find("NaN") == std::string::npos);
  CHECK(svg.find("late_shape") != std::string::npos);
  CHECK(countOf(svg, "not measured") >= 5);  // the NaN cell + late_shape in 4 other rounds (+ legend)
}

TEST_CASE("big gains switch the colour scale to log ratio, so 10x and 1/10x weigh the same") {
  CampaignHistory h;
  RoundRecord base;
  base.number = 1;
  base.status = RoundStatus::Baseline;
  base.shapes = {testing::shape("fast", 1000, 100, Verdict::Improved),   // +900%
                 testing::shape("slow", 10, 100, Verdict::Regressed),     // -90%
                 testing::shape("double", 200, 100, Verdict::Improved)};  // +100%
  h.rounds = {base};
  std::string svg = renderShapeHeatmapSvg(h);
  CHECK(svg.find("; log scale)") != std::string::npos);
  CHECK(svg.find("\xE2\x89\xA5+1000%") != std::string::npos);   // limit: a gain of 1000% (11x)
  CHECK(svg.find("\xE2\x89\xA4-91%") != std::string::npos);     // and its mirror, 1/11
  // 10x and 1/10x sit at the same distance from the centre: same intensity, opposite hues.
  auto fast = svg::diverging(std::log(10.0) / std::log(11.0)), slow = svg::diverging(-std::log(10.0) / std::log(11.0));
  CHECK(svg.find("fill=\"" + svg::hex(fast) + "\"") != std::string::npos);
  CHECK(svg.find("fill=\"" + svg::hex(slow) + "\"") != std::string::npos);
  CHECK(svg.find(">+900%<") != std::string::npos);
}
