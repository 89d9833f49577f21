#include "measure/verdict.h"

#include <doctest/doctest.h>

#include <string>

using namespace kopt::measure;

TEST_CASE("verdict: one name table prints and parses every verdict") {
  for (Verdict v : kVerdicts) {
    CHECK((verdictFromString(toString(v)) == v));
  }
  // The spellings in records and ledgers written so far.
  CHECK(std::string(toString(Verdict::Improved)) == "IMPROVED");
  CHECK(std::string(toString(Verdict::Same)) == "SAME");
  CHECK(std::string(toString(Verdict::Regressed)) == "REGRESSED");
  CHECK(std::string(toString(Verdict::Inconclusive)) == "INCONCLUSIVE");
  CHECK(std::string(toString(Verdict::Fail)) == "FAIL");
  CHECK(std::string(toString(Verdict::NotMeasured)) == "NOT_MEASURED");
  CHECK_FALSE(verdictFromString("improved").has_value());  // the records' exact spelling only
  CHECK_FALSE(verdictFromString("").has_value());
}
