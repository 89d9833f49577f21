#include "campaign/records/optimize_log.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <regex>

#include "campaign/records/sample_records_test.h"
#include "util/atomic_file.h"

using namespace kopt::campaign;
using namespace kopt::campaign::records;
namespace fs = std::filesystem;

namespace {
Manifest sampleManifest() {
  auto r = parseManifest(
      "target_op: gemm_fp8_blockwise\ntarget_backend: TRITON\ntarget_gpu: gfx942\n"
      "primary_metric: Combined Step TFLOPS\nkernel_source: [k.py]\ntest_command: pytest -q\n"
      "benchmark_command: python bench.py\nquick_command: python ${CAMPAIGN_DIR}/quick_test_bench.py\n"
      "created: '2026-04-12 09:30'\nmax_iterations: 40\n");
  REQUIRE(std::holds_alternative<Manifest>(r));
  return std::get<Manifest>(r);
}
}  // namespace

TEST_CASE("Basic Information lists the manifest") {
  std::string s = renderBasicInformation(sampleManifest(), "camp", "/r/.kopt/campaigns/camp", "optimize/camp");
  CHECK(s.rfind("## Basic Information\n", 0) == 0);
  CHECK(s.find("| Backend | TRITON (Triton) |") != std::string::npos);
  CHECK(s.find("| GPU | gfx942 |") != std::string::npos);
  CHECK(s.find("| Quick command | `python ${CAMPAIGN_DIR}/quick_test_bench.py` |") != std::string::npos);
  CHECK(s.find("| Git branch | `optimize/camp` |") != std::string::npos);
  CHECK(s.find("| Max iterations | 40 |") != std::string::npos);
  CHECK(s.find("| Performance target | none |") != std::string::npos);
}

TEST_CASE("history blocks keep the shapes the turbo helper parses") {
  using namespace testing;
  std::string base = renderBaseline(baselineRecord());
  CHECK(base.find("## Baseline") == 0);
  CHECK(base.find("- Result: Combined Step TFLOPS: 176.970 (geomean over 2/2 PASS shapes)") != std::string::npos);
  CHECK(base.find("| s1 | 4096 | 4096 | 4096 | PASS |") != std::string::npos);

  RoundRecord acc = rolledBackRecord();
  acc.status = RoundStatus::Accepted;
  acc.commit = "bbbb222";
  std::string block = renderHistoryBlock(acc);
  std::smatch m;
  CHECK(std::regex_search(block, m, std::regex(R"(^### round-(\d+)\s+—)")));
  CHECK(m[1] == "3");
  CHECK(block.find("- Decision: ACCEPTED") != std::string::npos);
  CHECK(std::regex_search(block, m, std::regex(R"(Result:\s*([A-Za-z][A-Za-z0-9_ ]+):\s*([\d.]+))")));
  CHECK(m[1] == "Combined Step TFLOPS");
  CHECK(m[2] == "174.700");
  CHECK(block.find("- Commit: `bbbb222`") != std::string::npos);
  // Agent prose cannot open a new section.
  CHECK(block.find("\n## Decision") == std::string::npos);
  CHECK(renderHistoryBlock(rolledBackRecord()).find("- Restored to: `aaaa111`") != std::string::npos);
}

TEST_CASE("directions, ineffective directions, current best, termination, final report") {
  std::string d = renderDirectionsToTry({{"split-K for small M", "tiling", false}, {"done one", "", true}}, 4);
  CHECK(d.find("## Directions to Try (after round-4)") == 0);
  CHECK(d.find("- [ ] split-K for small M (tiling)\n") != std::string::npos);
  CHECK(d.find("- [x] done one\n") != std::string::npos);

  std::string i = renderIneffectiveDirections({{3, "BLOCK_K=128", "spills", {"k.py"}}}, 3);
  std::smatch m;
  CHECK(std::regex_search(i, m, std::regex(R"(\|\s*([^|]+)\|\s*round-(\d+)\s*\|\s*([^|]+)\|)")));
  CHECK(m[2] == "3");

  CurrentBest b{2, "bbbb222", "Combined Step TFLOPS", 190.0, 7.36, "after round-3"};
  std::string cb = renderCurrentBest(b);
  CHECK(cb.find("## Current Best (after round-3)") == 0);
  CHECK(cb.find("- Combined Step TFLOPS: 190.000 (vs baseline +7.360%)") != std::string::npos);

  TerminationRecord t;
  t.afterRound = 5;
  t.conditions = {{"T1", false, "190 < 500 TFLOPS"}, {"T3", false, "5 of 40"}};
  t.decision = "continue";
  t.stagnationReview = true;
  t.stagnationDirections = {{"a", "tiling"}, {"b", "memory"}, {"c", "memory"}};
  std::string tc = renderTerminationCheck(t);
  CHECK(tc.find("| T1 | no | 190 < 500 TFLOPS |") != std::string::npos);
  CHECK(tc.find("- Stagnation review: required") != std::string::npos);

  FinalReportRecord f;
  f.metric = "Combined Step TFLOPS";
  f.baselineValue = 176.97;
  f.bestValue = 190;
  f.improvementPct = 7.36;
  f.bestRound = 2;
  f.totalRounds = 5;
  f.acceptedRounds = 1;
  f.rolledBackRounds = 3;
  f.effectiveDirections = {"tile 128"};
  std::string fr = renderFinalReport(f);
  CHECK(fr.find("## Final Report") == 0);
  CHECK(fr.find("improvement: +7.360%") != std::string::npos);
  CHECK(fr.find("- Rounds: 5 total, 1 accepted, 3 rolled back") != std::string::npos);
  CHECK(fr.find("Rolled back with a shape proven faster") == std::string::npos);  // only when there is one
  f.rolledBackWithProvenShape = {"round-4: grid-stride: s65k IMPROVED +131.00%; rolled back: s4k INCONCLUSIVE"};
  fr = renderFinalReport(f);
  const auto proven = fr.find("**Rolled back with a shape proven faster**\n\n- round-4: grid-stride: s65k IMPROVED");
  CHECK(proven != std::string::npos);
  CHECK(proven > fr.find("**Ineffective directions**"));
}

TEST_CASE("appendSection writes the title once and each event's block once") {
  auto dir = fs::temp_directory_path() / ("kopt_optlog_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto path = dir / "optimize.md";
  appendSection(path, "camp", "## Basic Information\n\nx\n", 3);
  appendSection(path, "camp", renderHistoryHeading(), 5);
  appendSection(path, "camp", "## Basic Information\n\nx\n", 3);
  std::string text = kopt::util::readFile(path);
  CHECK(text == "# Optimization Log: camp\n\n<!-- kopt:event 3 -->\n## Basic Information\n\nx\n"
                "<!-- kopt:event 5 -->\n## Optimization History\n\n");
  fs::remove_all(dir);
}
