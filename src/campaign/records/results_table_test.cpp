#include "campaign/records/results_table.h"

#include <doctest/doctest.h>

#include <cmath>

#include "campaign/records/sample_records_test.h"

using namespace kopt::campaign::records;

TEST_CASE("metric formatting keeps small CPU numbers readable and shows missing as a dash") {
  CHECK(formatMetric(301.25) == "301.250");
  CHECK(formatMetric(0.001234567) == "0.001235");
  CHECK(formatMetric(0.0) == "0.000");
  CHECK(formatMetric(std::nullopt) == "\xE2\x80\x94");
  CHECK(formatMetric(NAN) == "\xE2\x80\x94");
}

TEST_CASE("results table: header from the first row, comparison columns only when asked") {
  auto rows = testing::rolledBackRecord().results;
  rows[1].check = "FAIL";
  rows[1].metrics[0].value.reset();
  rows[1].label = "odd|label";
  std::string t = renderResultsTable(rows, "Combined Step TFLOPS", true);
  CHECK(t.rfind("| Label | M | N | K | Check | Forward TFLOPS | Backward TFLOPS | Combined Step TFLOPS | "
                "\xCE\x94 vs best | 95% CI | Verdict |\n",
                0) == 0);
  CHECK(t.find("| odd\\|label | 4096 | 4096 | 4096 | FAIL | \xE2\x80\x94 | 146.000 \xC2\xB1 2.000 |") !=
        std::string::npos);
  std::string plain = renderResultsTable(rows, "Forward TFLOPS", false);
  CHECK(plain.find("Verdict") == std::string::npos);
  // The primary metric is a CSV column here: not repeated.
  CHECK(plain.rfind("| Label | M | N | K | Check | Forward TFLOPS | Backward TFLOPS |\n", 0) == 0);
  CHECK(renderResultsTable({}, "x", true) == "_No shape results._\n");
}
