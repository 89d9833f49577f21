#include "measure/bench_table.h"

#include <cmath>

#include <doctest/doctest.h>

using namespace kopt::measure;

namespace {

const char* kGemmHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
    "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr\n";

std::string gemm(const std::string& rows) { return std::string(kGemmHeader) + rows; }

BenchTable ok(const TableResult& r) {
  if (auto* e = std::get_if<TableError>(&r)) FAIL("unexpected error: " << e->toString());
  return std::get<BenchTable>(r);
}

TableError err(const TableResult& r) {
  REQUIRE_MESSAGE(std::holds_alternative<TableError>(r), "expected a table error");
  return std::get<TableError>(r);
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("parseCheck accepts the turbo helper's aliases and nothing else") {
  for (const char* s : {"PASS", "pass", " Pass ", "ok", "OK", "true", "True", "\xE2\x9C\x93"}) CHECK_MESSAGE((parseCheck(s) == Check::Pass), s);
  for (const char* s : {"FAIL", "fail", "false", "FALSE", "\xE2\x9C\x97"}) CHECK_MESSAGE((parseCheck(s) == Check::Fail), s);
  for (const char* s : {"ERROR", "error", "err", "Err"}) CHECK_MESSAGE((parseCheck(s) == Check::Error), s);
  for (const char* s : {"", "passed", "1", "0", "yes", "FAILED", "nan"}) CHECK_FALSE(parseCheck(s).has_value());
  CHECK((std::string(toString(Check::Error)) == "ERROR"));
}

TEST_CASE("the GEMM schema is recognised verbatim and rows are typed") {
  BenchTable t = ok(parseBenchCsv(gemm("s1,1,4096,4096,4096,PASS,320,3.2,160,1.6,0.429,1.718,inf,45.1,44.9\n"
                                       "s2,8,512,2048,1408,fail,nan,nan,,,nan,nan,nan,nan,nan\n")));
  CHECK((t.schema.kind == SchemaKind::Gemm));
  CHECK(t.schema.headerBytes == kGemmHeader);
  CHECK_FALSE(t.schema.hasBom);
  CHECK_FALSE(t.schema.crlf);
  REQUIRE(t.rows.size() == 2);
  const BenchRow& r = t.rows[0];
  CHECK(r.label == "s1");
  CHECK(r.line == 2);
  CHECK(r.shape.B == 1);
  CHECK(r.shape.M == 4096);
  CHECK((r.check == Check::Pass));
  CHECK(*t.value(r, "Forward TFLOPS") == 320.0);
  CHECK(*t.stddev(r, "Forward TFLOPS") == doctest::Approx(3.2));
  CHECK(*t.stddevPercent(r, "Backward TFLOPS") == doctest::Approx(1.0));
  CHECK(std::isinf(*t.value(r, "out_snr")));
  CHECK_FALSE(t.value(r, "label").has_value());  // textual
  CHECK_FALSE(t.value(r, "no such column").has_value());
  const BenchRow& f = t.rows[1];
  CHECK((f.check == Check::Fail));
  CHECK(std::isnan(*t.value(f, "Forward TFLOPS")));
  CHECK(std::isnan(*t.value(f, "Backward TFLOPS")));  // empty cell
  CHECK_FALSE(t.stddevPercent(f, "Forward TFLOPS").has_value());
  CHECK_FALSE(t.allPass());
  CHECK(t.labels() == std::vector<std::string>{"s1", "s2"});
  CHECK(t.find("s2") == &t.rows[1]);
  CHECK(t.schema.metricColumns == std::vector<std::string>{"Forward TFLOPS", "Backward TFLOPS"});
}

TEST_CASE("the memory-bound schema is recognised") {
  BenchTable t = ok(parseBenchCsv(
      "label,B,M,N,Check,Forward GB/s,Forward GB/s_stddev,Backward GB/s,Backward GB/s_stddev,Forward Time (ms),"
      "Backward Time (ms),max_abs_err\nrms1,1,8192,4096,PASS,3100,12,2800,20,0.0216,0.048,0.0009\n"));
  CHECK((t.schema.kind == SchemaKind::MemoryBound));
  CHECK(t.rows[0].shape.N == 4096);
  CHECK_FALSE(t.rows[0].shape.K.has_value());
  CHECK(*t.value(t.rows[0], "Forward GB/s") == 3100.0);
}

TEST_CASE("asking for a kind names the first differing column") {
  std::string drifted = kGemmHeader;
  drifted.replace(drifted.find("Forward TFLOPS,"), 15, "Forward TFLOPS ,");
  TableError e = err(parseBenchCsv(drifted + "s,1,1,1,1,PASS,1,0,1,0,1,1,1,1,1\n", SchemaKind::Gemm));
  CHECK(e.line == 1);
  CHECK(mentions(e.message, "column 7 should be 'Forward TFLOPS' and is 'Forward TFLOPS '"));
  CHECK(mentions(e.fix, "label,B,M,N,K,Check"));
  // Auto-detection falls back to a generic schema instead (the frozen-header check names drift).
  CHECK((ok(parseBenchCsv(drifted + "s,1,1,1,1,PASS,1,0,1,0,1,1,1,1,1\n")).schema.kind == SchemaKind::Custom));
}

TEST_CASE("BOM and CRLF are tolerated and recorded for the frozen-header check") {
  std::string crlf = "\xEF\xBB\xBF" + gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\r\n");
  crlf.replace(crlf.find("db_snr\n"), 7, "db_snr\r\n");
  BenchTable t = ok(parseBenchCsv(crlf));
  CHECK((t.schema.kind == SchemaKind::Gemm));
  CHECK(t.schema.hasBom);
  CHECK(t.schema.crlf);
  CHECK(t.rows[0].label == "s1");
  CHECK(*t.value(t.rows[0], "db_snr") == 1.0);
}

TEST_CASE("every malformed table is a clear error naming line, column and fix") {
  SUBCASE("empty file") { CHECK(mentions(err(parseBenchCsv("")).message, "empty")); }
  SUBCASE("header only") {
    TableError e = err(parseBenchCsv(kGemmHeader));
    CHECK(mentions(e.message, "no rows"));
  }
  SUBCASE("bad check value names row and cell") {
    TableError e = err(parseBenchCsv(gemm("s1,1,2,2,2,PASSED,1,0,1,0,1,1,1,1,1\n")));
    CHECK(e.line == 2);
    CHECK(e.column == 6);
    CHECK(e.columnName == "Check");
    CHECK(mentions(e.message, "(s1)"));
    CHECK(mentions(e.message, "'PASSED' is not a check value"));
    CHECK(mentions(e.toString(), "Fix: write PASS, FAIL or ERROR"));
  }
  SUBCASE("ragged rows") {
    TableError shortRow = err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1\n")));
    CHECK(shortRow.line == 2);
    CHECK(mentions(shortRow.message, "has 14 cells, the header has 15"));
    TableError trailing = err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1,\n")));
    CHECK(mentions(trailing.message, "trailing ','"));
  }
  SUBCASE("duplicate labels name both lines") {
    TableError e = err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\ns2,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n"
                                          "s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n")));
    CHECK(e.line == 4);
    CHECK(mentions(e.message, "label 's1' on line 4 repeats line 2"));
  }
  SUBCASE("empty label") {
    CHECK(mentions(err(parseBenchCsv(gemm(" ,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n"))).message, "empty label"));
  }
  SUBCASE("a metric that is not a number") {
    TableError e = err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,fast,0,1,0,1,1,1,1,1\n")));
    CHECK(e.column == 7);
    CHECK(mentions(e.message, "'fast' is not a number"));
  }
  SUBCASE("out-of-range numbers are not clamped") {
    CHECK(mentions(err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1e999,0,1,0,1,1,1,1,1\n"))).message, "not a number"));
  }
  SUBCASE("a shape dimension that is not a non-negative integer") {
    CHECK(mentions(err(parseBenchCsv(gemm("s1,1,-4,2,2,PASS,1,0,1,0,1,1,1,1,1\n"))).message, "non-negative integer"));
    CHECK(mentions(err(parseBenchCsv(gemm("s1,1,2.5,2,2,PASS,1,0,1,0,1,1,1,1,1\n"))).message, "non-negative integer"));
  }
  SUBCASE("blank line inside the table") {
    TableError e = err(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n\ns2,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n")));
    CHECK(e.line == 3);
  }
  SUBCASE("unterminated quote") {
    CHECK(mentions(err(parseBenchCsv(gemm("\"s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n"))).message, "never closed"));
  }
  SUBCASE("header problems") {
    CHECK(mentions(err(parseBenchCsv("label,Check,x,x\na,PASS,1,2\n")).message, "repeats column 3"));
    CHECK(mentions(err(parseBenchCsv("label,Check,x,\na,PASS,1,\n")).message, "trailing ','"));
    CHECK(mentions(err(parseBenchCsv("name,Check,x\na,PASS,1\n")).message, "no 'label' column"));
    CHECK(mentions(err(parseBenchCsv("label,status,x\na,PASS,1\n")).message, "no 'Check' column"));
    CHECK(mentions(err(parseBenchCsv("\nlabel,Check\n")).message, "header line is empty"));
  }
}

TEST_CASE("trailing blank lines and a missing final newline are fine") {
  CHECK(ok(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n\n\n"))).rows.size() == 1);
  CHECK(ok(parseBenchCsv(gemm("s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1"))).rows.size() == 1);
}

TEST_CASE("quoted cells: labels with commas and escaped quotes") {
  BenchTable t = ok(parseBenchCsv(gemm("\"moe (8, \"\"skew\"\")\",8,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n")));
  CHECK(t.rows[0].label == "moe (8, \"skew\")");
  CHECK(t.rows[0].shape.B == 8);
}

TEST_CASE("NaN, inf and signs parse the way harnesses print them") {
  BenchTable t = ok(parseBenchCsv("label,Check,v\na,PASS,-nan\nb,PASS,+inf\nc,PASS,-Infinity\nd,PASS,NaN\ne,PASS,1.5e-3\nf,PASS,\n"));
  CHECK(std::isnan(*t.value(t.rows[0], "v")));
  CHECK(*t.value(t.rows[1], "v") == std::numeric_limits<double>::infinity());
  CHECK(*t.value(t.rows[2], "v") == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(*t.value(t.rows[3], "v")));
  CHECK(*t.value(t.rows[4], "v") == doctest::Approx(0.0015));
  CHECK(std::isnan(*t.value(t.rows[5], "v")));
}

TEST_CASE("a generic table turns descriptive columns into text and keeps metrics numeric") {
  BenchTable t = ok(parseBenchCsv("label,GPU,M,Check,Forward TFLOPS,Forward TFLOPS_stddev_pct,dtype\n"
                                  "a,MI355X,512,PASS,650,2.0,fp8\nb,MI355X,1024,true,700,1.0,fp8\n"));
  CHECK((t.schema.kind == SchemaKind::Custom));
  CHECK(t.schema.metricColumns == std::vector<std::string>{"Forward TFLOPS"});
  auto gpu = *t.schema.indexOf("GPU");
  CHECK(t.schema.isText[gpu]);
  CHECK(t.rows[1].text[gpu] == "MI355X");
  CHECK((t.rows[1].check == Check::Pass));
  CHECK_FALSE(t.value(t.rows[0], "dtype").has_value());
  CHECK(*t.stddevPercent(t.rows[0], "Forward TFLOPS") == doctest::Approx(2.0));
  CHECK(t.rows[0].shape.M == 512);
}

TEST_CASE("a declared custom schema is enforced column for column") {
  CustomSchema s;
  s.columns = {"label", "T", "Check", "Tokens/s", "Tokens/s_stddev", "dtype"};
  s.shapeColumns = {};
  s.metricColumns = {"Tokens/s"};
  s.textColumns = {"dtype"};
  BenchTable t = ok(parseBenchCsv("label,T,Check,Tokens/s,Tokens/s_stddev,dtype\nx,128,ERROR,nan,nan,bf16\n", s));
  CHECK((t.schema.kind == SchemaKind::Custom));
  CHECK((t.rows[0].check == Check::Error));
  CHECK(t.rows[0].text[5] == "bf16");
  CHECK(*t.value(t.rows[0], "T") == 128.0);

  TableError wrongHeader = err(parseBenchCsv("label,T,Check,Tokens/s,dtype\nx,1,PASS,1,bf16\n", s));
  CHECK(mentions(wrongHeader.message, "column 5 should be 'Tokens/s_stddev' and is 'dtype'"));
  TableError textInNumber = err(parseBenchCsv("label,T,Check,Tokens/s,Tokens/s_stddev,dtype\nx,big,PASS,1,0,bf16\n", s));
  CHECK(mentions(textInNumber.message, "'big' is not a number"));

  CustomSchema broken = s;
  broken.checkColumn = "correct";
  CHECK(mentions(err(parseBenchCsv("label\n", broken)).message, "check column 'correct' is not one of its columns"));
  broken = s;
  broken.metricColumns = {};
  CHECK(mentions(err(parseBenchCsv("label,T,Check,Tokens/s,Tokens/s_stddev,dtype\nx,1,PASS,1,0,a\n", broken)).message,
                 "names no metric column"));
  broken = s;
  broken.shapeColumns = {"T"};
  CHECK(mentions(err(parseBenchCsv("label,T,Check,Tokens/s,Tokens/s_stddev,dtype\nx,1,PASS,1,0,a\n", broken)).message,
                 "not one of B, M, N, K"));
}

TEST_CASE("TableError::toString reads as one sentence with the fix") {
  TableError e;
  e.line = 4;
  e.column = 6;
  e.columnName = "Check";
  e.message = "bad";
  e.fix = "do this";
  CHECK(e.toString() == "line 4, column 6 'Check': bad. Fix: do this");
}

TEST_CASE("numbers parse exactly as strtod reads them, fast path or not") {
  // Printed the ways harnesses print: %g, %.6g, %.17g, fixed, exponents, and some that must leave
  // the fast path (many digits, huge or tiny exponents).
  std::string csv = "label,Check,v\n";
  std::vector<std::string> printed;
  unsigned long long state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  const char* formats[] = {"%g", "%.6g", "%.17g", "%.3f", "%.9e", "%.15g"};
  for (int i = 0; i < 600; ++i) {
    const double magnitude = std::pow(10.0, static_cast<int>(next() * 60) - 30);
    const double v = next() * magnitude;
    char buf[64];
    std::snprintf(buf, sizeof buf, formats[i % 6], v);
    printed.push_back(buf);
  }
  for (const char* s : {"0", "0.0", "000123", "0.000123", "1e22", "1e23", "123456789012345", "1234567890123456789",
                        "9007199254740993", "4.9e-324", "1.7976931348623157e308", ".5", "5.", "1E+3", "2.5E-3"})
    printed.push_back(s);
  for (std::size_t i = 0; i < printed.size(); ++i) csv += "r" + std::to_string(i) + ",PASS," + printed[i] + "\n";
  BenchTable t = ok(parseBenchCsv(csv));
  REQUIRE(t.rows.size() == printed.size());
  for (std::size_t i = 0; i < printed.size(); ++i) {
    const double expected = std::strtod(printed[i].c_str(), nullptr);
    CHECK_MESSAGE(*t.value(t.rows[i], "v") == expected, printed[i]);
  }
  // Malformed exponents and stray characters are errors, not silently truncated numbers.
  for (const char* bad : {"1e", "1e+", "1.2.3", "12abc", "--1", "1,5"}) {
    auto r = parseBenchCsv(std::string("label,Check,v\nr,PASS,") + bad + "\n", CustomSchema{{"label", "Check", "v"}, "label", "Check", {}, {"v"}, {}});
    CHECK_MESSAGE(std::holds_alternative<TableError>(r), std::string(bad));
  }
}
