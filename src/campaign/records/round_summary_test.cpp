#include "campaign/records/round_summary.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "campaign/records/sample_records_test.h"
#include "util/atomic_file.h"

using namespace kopt::campaign::records;
namespace fs = std::filesystem;

namespace {
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a rolled-back round's summary has every contract section, once, in order") {
  std::string s = renderRoundSummary(testing::rolledBackRecord());
  const char* sections[] = {"## Hypothesis", "## Single change", "## Results", "## Aggregate", "## Decision",
                            "## Attribution", "## Next direction", "## Rollback Analysis",
                            "## Real-training transfer check"};
  std::size_t last = 0;
  for (const char* sec : sections) {
    CAPTURE(sec);
    std::string heading = std::string("\n") + sec + "\n";
    REQUIRE(count(s, heading) == 1);
    CHECK(s.find(heading) > last);
    last = s.find(heading);
  }
  CHECK(s.rfind("# Round 3 \xE2\x80\x94 ROLLED BACK\n", 0) == 0);
  CHECK(s.find("\\## Decision") != std::string::npos);  // the forged heading was neutralised
  CHECK(s.find("- Expected effect: increase Forward TFLOPS by about 5.0%") != std::string::npos);
  CHECK(s.find("| s1 | 4096 | 4096 | 4096 | PASS | 280.000 \xC2\xB1 1.500 | 150.000 \xC2\xB1 2.000 | 175.000 | "
               "-2.800% | [-3.80%, -1.80%] | REGRESSED |") != std::string::npos);
  CHECK(s.find("- Current best before this round: 176.970 (-1.283%)") != std::string::npos);
  CHECK(s.find("**ROLLED BACK** \xE2\x80\x94 s1 regressed beyond the noise band") != std::string::npos);
  CHECK(s.find("- Root cause: spills") != std::string::npos);
  CHECK(s.find("- Restored to: `aaaa111`") != std::string::npos);
}

TEST_CASE("baseline and accepted summaries: no Rollback Analysis; transfer check rendered") {
  std::string b = renderRoundSummary(testing::baselineRecord());
  CHECK(b.find("## Rollback Analysis") == std::string::npos);
  CHECK(b.find("Baseline measurement of the unmodified kernel") != std::string::npos);
  CHECK(b.find("Not applicable (baseline).") != std::string::npos);
  CHECK(b.find("Verdict") == std::string::npos);

  RoundRecord a = testing::rolledBackRecord();
  a.status = RoundStatus::Accepted;
  a.rollback.reset();
  a.transfer = TransferCheck{"K1", "none", "no id() keys", "n/a", "uniform and skewed OK", "+6.0%", "+5.5%",
                             "ACCEPT-as-real"};
  std::string s = renderRoundSummary(a);
  CHECK(s.find("## Rollback Analysis") == std::string::npos);
  CHECK(s.find("- Decision: ACCEPT-as-real") != std::string::npos);
  CHECK(s.find("- Estimated real gain: +5.5%") != std::string::npos);

  auto dir = fs::temp_directory_path() / ("kopt_summary_" + std::to_string(::getpid()));
  writeRoundSummary(dir / "round-3" / "summary.md", a);
  CHECK(kopt::util::readFile(dir / "round-3" / "summary.md") == s);
  fs::remove_all(dir);
}
