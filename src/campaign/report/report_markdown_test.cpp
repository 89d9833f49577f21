#include "campaign/report/report_markdown.h"

#include <doctest/doctest.h>

#include "campaign/report/report_test_support.h"

using namespace kopt::campaign::report;
using testing::countOf;

TEST_CASE("the report carries every part of the contract's Final Report") {
  std::string md = renderReportMarkdown(testing::sampleHistory());
  CHECK(md.rfind("# Campaign report: gemm_fp8_blockwise_triton_gfx942_20260412\n", 0) == 0);
  for (const char* heading :
       {"## Final Report", "### Result", "### Per-shape: baseline -> final", "### Rounds", "### Effective directions",
        "### Verified ineffective directions", "### Real-training audit (rule 11)", "### Prediction accuracy",
        "### Next three steps", "### Charts"}) {
    CAPTURE(heading);
    CHECK(countOf(md, std::string(heading) + "\n") == 1);
  }
  // Baseline vs best, counts.
  CHECK(md.find("- Baseline (round-1): 281.00 TFLOPS\n") != std::string::npos);
  CHECK(md.find("- Best (round-5): 303.50 TFLOPS (+8.007% vs baseline)") != std::string::npos);
  CHECK(md.find("- Rounds attempted: 4; accepted: 2 (1 with a note); rolled back: 2") != std::string::npos);
  CHECK(md.find("- Final acceptance (all target shapes): 302.80 TFLOPS (+7.758% vs baseline)") != std::string::npos);
  // Directions.
  CHECK(md.find("- round-2 (K1): BLOCK_K 64 -> 128: +5.302%") != std::string::npos);
  CHECK(md.find("- round-3 (K1): num_stages 2 -> 3: -1.656%; M1024_N4096_K512 REGRESSED -7.8%") != std::string::npos);
  CHECK(md.find("- round-4 (K3): fuse dequant into epilogue: n/a; Check FAIL") != std::string::npos);
  // Audit.
  CHECK(md.find("- S_real (K1-K4, transfers): +5.302%") != std::string::npos);
  CHECK(md.find("- W_real (W1, bounded): +1.200% of a benchmark +2.568%") != std::string::npos);
  CHECK(md.find("- R_real (W2/W3/unattributed, must be 0): +0.000%") != std::string::npos);
  CHECK(md.find("inflation gap 1.441 percentage points") != std::string::npos);
  CHECK(md.find("- Verdict: **ACCEPT-with-asterisk**") != std::string::npos);
  // Per-shape with % of peak.
  CHECK(md.find("| M4096_N4096_K4096 | 300.00 | 327.00 | +9.00% | 22.9% -> 25.0% | IMPROVED |") != std::string::npos);
  CHECK(md.find("Device peak: 1307.40 TFLOPS (AMD Instinct MI300X).") != std::string::npos);
  // Predictions: round 2 right, round 3 wrong, round 5 right; round 4 had none.
  CHECK(md.find("Direction right in 2 of 3 rounds") != std::string::npos);
  // Next steps: the agent's first, then kopt's.
  CHECK(md.find("1. Try a persistent-kernel schedule for the small-M shapes\n") != std::string::npos);
  CHECK(md.find("2. Target shape M1024_N4096_K512, which gained least (+1.00%)") != std::string::npos);
  CHECK(md.find("3. ") != std::string::npos);
  CHECK(md.find("4. ") == std::string::npos);
  CHECK(md.find("![Primary metric per round") != std::string::npos);
  CHECK(md.find("(report-heatmap.svg)") != std::string::npos);
}

TEST_CASE("the Final Report section stands alone for logs/optimize.md") {
  std::string section = renderFinalReportSection(testing::sampleHistory());
  CHECK(section.rfind("## Final Report\n", 0) == 0);
  CHECK(section.find("# Campaign report") == std::string::npos);
}

TEST_CASE("user text cannot break the markdown tables or lines") {
  auto h = testing::sampleHistory();
  h.rounds[1].description = "a|b\n# not a heading";
  h.rounds[1].decisionReason = "x|y";
  std::string md = renderReportMarkdown(h);
  CHECK(md.find("| a\\|b # not a heading |") != std::string::npos);
  CHECK(md.find("| x\\|y |") != std::string::npos);
  CHECK(md.find("\n# not a heading") == std::string::npos);
}

TEST_CASE("an empty history renders without crashing and says there is nothing to compare") {
  CampaignHistory h;
  std::string md = renderReportMarkdown(h);
  CHECK(md.find("No baseline was recorded") != std::string::npos);
  CHECK(md.find("Verdict: nothing to audit") != std::string::npos);
  CHECK(md.find("No round declared an expected effect.") != std::string::npos);
  CHECK(md.find("3. ") != std::string::npos);
  CHECK(md.find("nan") == std::string::npos);
}

TEST_CASE("a baseline-only history reports the baseline as best") {
  auto h = testing::sampleHistory();
  h.rounds.resize(1);
  h.finalAggregate.reset();
  h.finalShapes.clear();
  std::string md = renderReportMarkdown(h);
  CHECK(md.find("- Best: the baseline; no round was accepted") != std::string::npos);
  CHECK(md.find("- Rounds attempted: 0; accepted: 0; rolled back: 0") != std::string::npos);
  CHECK(md.find("None: no round was accepted.") != std::string::npos);
  CHECK(md.find("| M4096_N4096_K4096 | 300.00 | 300.00 | +0.00% |") != std::string::npos);
}

TEST_CASE("NaN values print as n/a, never as nan") {
  auto h = testing::sampleHistory();
  h.rounds[0].aggregate = kNaN;
  h.rounds[0].shapes[0].value = kNaN;
  h.devicePeak.reset();
  std::string md = renderReportMarkdown(h);
  CHECK(md.find("nan") == std::string::npos);
  CHECK(md.find("NaN") == std::string::npos);
  CHECK(md.find("- Baseline (round-1): n/a") != std::string::npos);
  CHECK(md.find("% of peak") == std::string::npos);
}

TEST_CASE("stagnation after two rollbacks is suggested when the agent gave no next steps") {
  auto h = testing::sampleHistory();
  h.nextSteps.clear();
  h.rounds.pop_back();  // ends with rounds 3 and 4, both rolled back
  auto steps = nextThreeSteps(h);
  REQUIRE(steps.size() == 3);
  CHECK(steps[1].find("stagnation review") != std::string::npos);
  CHECK(steps[0].find("(suggested by kopt)") != std::string::npos);
}

TEST_CASE("long decision reasons are shortened in the tables, at a clause boundary") {
  auto h = testing::sampleHistory();
  std::string reason;
  for (int i = 0; i < 20; ++i) reason += "shape" + std::to_string(i) + ": slower by 45.07% (CI -66.91% .. -8.82%); ";
  h.rounds[2].decisionReason = reason;
  std::string md = renderReportMarkdown(h);
  CHECK(md.find("shape19") == std::string::npos);
  CHECK(md.find("shape0: slower by 45.07% (CI -66.91% .. -8.82%) \xE2\x80\xA6 (see the round summary)") == std::string::npos);
  CHECK(md.find("-8.82%); shape1") != std::string::npos);
  CHECK(md.find(" \xE2\x80\xA6 (see the round summary) |") != std::string::npos);
}

TEST_CASE("a round rolled back with a shape proven faster is listed apart, never as an ineffective direction") {
  auto h = testing::sampleHistory();
  RoundRecord r6;
  r6.number = 6;
  r6.status = RoundStatus::RolledBack;
  r6.description = "4 grid-stride programs per SM for short rows";
  r6.bucket = Rule11Bucket::K1;
  r6.aggregate = 310.0;
  r6.decisionReason = "still INCONCLUSIVE on M4096_N4096_K4096 after 3 looks";
  r6.shapes = {testing::shape("M4096_N4096_K4096", 330, 300, Verdict::Inconclusive),
               testing::shape("M1024_N4096_K512", 280, 120, Verdict::Improved)};
  r6.shapes[1].gainVsBestPct = 131.0;
  r6.shapes[1].ciLowPct = 123.0;
  r6.shapes[1].ciHighPct = 139.0;
  h.rounds.push_back(r6);
  h.nextSteps.clear();
  const std::string md = renderReportMarkdown(h);
  const auto section = md.find("### Rolled back with a shape proven faster\n");
  REQUIRE(section != std::string::npos);
  const auto ineffective = md.find("### Verified ineffective directions\n");
  REQUIRE(ineffective != std::string::npos);
  const std::string line = "- round-6 (K1): 4 grid-stride programs per SM for short rows: ";
  const auto listed = md.find(line);
  REQUIRE(listed != std::string::npos);
  CHECK(listed > section);
  CHECK(listed < ineffective);  // in its own section, before the ineffective list
  CHECK(md.find(line, ineffective) == std::string::npos);
  CHECK(md.find("proven faster: M1024_N4096_K512 +131.00% (CI +123.00% .. +139.00%); rolled back: still INCONCLUSIVE") !=
        std::string::npos);
  // The rounds that proved nothing faster stay ineffective.
  CHECK(md.find("- round-3 (K1): num_stages 2 -> 3", ineffective) != std::string::npos);
  // The first tip points at it.
  CHECK(md.find("1. Round 6 proved M1024_N4096_K512 +131.00% (CI +123.00% .. +139.00%) and was rolled back for another "
                "reason") != std::string::npos);
  // A history without such a round has no such section.
  CHECK(renderReportMarkdown(testing::sampleHistory()).find("### Rolled back with a shape proven faster") == std::string::npos);
}
