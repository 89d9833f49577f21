#include "campaign/records/trend_table.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <regex>

#include "util/atomic_file.h"
#include "util/text.h"

using namespace kopt::campaign;
using namespace kopt::campaign::records;
namespace fs = std::filesystem;

TEST_CASE("GEMM trend columns are exactly the contract's") {
  BenchSchema gemm;
  std::string header = renderTrendHeader(trendColumnsFor(gemm), "c");
  CHECK(header.find("| Round | Status | Description | Fwd Avg TFLOPS | Fwd Peak TFLOPS | Bwd Avg TFLOPS | "
                    "Bwd Peak TFLOPS | Combined Step TFLOPS | vs Baseline | Key Finding |\n|---|---|---|---|---|"
                    "---|---|---|---|---|\n") != std::string::npos);
  BenchSchema mem;
  mem.kind = SchemaKind::MemoryBound;
  CHECK(trendColumnsFor(mem).valueHeaders ==
        std::vector<std::string>{"Fwd Avg GB/s", "Fwd Peak GB/s", "Bwd Avg GB/s", "Bwd Peak GB/s"});
  BenchSchema custom;
  custom.kind = SchemaKind::Custom;
  custom.metricColumns = {"tokens/s"};
  CHECK(trendColumnsFor(custom).valueHeaders == std::vector<std::string>{"tokens/s Avg", "tokens/s Peak"});
}

TEST_CASE("rows: vs Baseline format, dash on the baseline row, escaped cells") {
  TrendRow base{1, RoundStatus::Baseline, "baseline", {301.25, 320.0, 150.5, 160.0, 180.0}, {}, "start"};
  CHECK(renderTrendRow(base) ==
        "| 1 | BASELINE | baseline | 301.250 | 320.000 | 150.500 | 160.000 | 180.000 | \xE2\x80\x94 | start |\n");
  TrendRow r{4, RoundStatus::Accepted, "tile | 128", {319.0, 330.0, std::nullopt, 161.0, 195.0},
             {{"step", 8.3629}, {"fwd", 5.892}, {"bwd", -0.5}}, "line1\nline2"};
  std::string row = renderTrendRow(r);
  CHECK(row.find("| 4 | ACCEPTED | tile \\| 128 | 319.000 | 330.000 | \xE2\x80\x94 | 161.000 | 195.000 | "
                 "step +8.363%, fwd +5.892%, bwd -0.500% | line1 line2 |") == 0);
  // The turbo helper's parser reads this vs Baseline cell.
  std::regex component(R"((step|fwd|bwd)\s*([+-])?([\d.]+)%)");
  std::string cell = formatVsBaseline(r.vsBaseline);
  CHECK(std::distance(std::sregex_iterator(cell.begin(), cell.end(), component), std::sregex_iterator()) == 3);
  CHECK(formatVsBaseline({{"fwd", std::nullopt}}) == "fwd n/a");
}

TEST_CASE("appendTrendRow writes the header once and each row once") {
  auto dir = fs::temp_directory_path() / ("kopt_trend_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto path = dir / "logs" / "performance_trend.md";
  BenchSchema gemm;
  auto cols = trendColumnsFor(gemm);
  TrendRow base{1, RoundStatus::Baseline, "baseline", {1, 2, 3, 4, 5}, {}, ""};
  TrendRow r2{2, RoundStatus::RolledBack, "x", {1, 2, 3, 4, 5}, {{"step", 0.0}, {"fwd", 0.0}, {"bwd", 0.0}}, ""};
  appendTrendRow(path, cols, "camp", base, 10);
  appendTrendRow(path, cols, "camp", r2, 14);
  appendTrendRow(path, cols, "camp", r2, 14);  // replay after a crash
  std::string text = kopt::util::readFile(path);
  auto lines = kopt::util::splitLines(text);
  REQUIRE(lines.size() == 6);  // title, blank, header, separator, two rows
  CHECK(lines[0] == "# Performance Trend: camp");
  CHECK(lines[4].find("| 1 | BASELINE |") == 0);
  CHECK(lines[4].find("<!-- kopt:event 10 -->") != std::string::npos);
  CHECK(lines[5].find("| 2 | ROLLED BACK |") == 0);
  fs::remove_all(dir);
}

TEST_CASE("trend numbers: three decimals at GPU scale, four significant digits below 1") {
  CHECK(formatTrendNumber(301.25) == "301.250");
  CHECK(formatTrendNumber(0.0) == "0.000");
  CHECK(formatTrendNumber(0.0038920668) == "0.003892");  // a CPU kernel's TFLOPS: not 0.004
  CHECK(formatTrendNumber(0.0035389852) == "0.003539");
  CHECK(formatTrendNumber(std::nullopt) == "\xE2\x80\x94");
}
