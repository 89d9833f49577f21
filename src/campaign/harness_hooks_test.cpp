#include "campaign/harness_hooks.h"

#include <doctest/doctest.h>

using kopt::campaign::changedHooksRefusal;

TEST_CASE("a candidate whose harness hooks differ from the best's is refused, naming both") {
  const std::string best(64, 'a'), other(64, 'b');
  CHECK_FALSE(changedHooksRefusal(best, best));
  const auto refusal = changedHooksRefusal(other, best);
  REQUIRE(refusal);
  CHECK(refusal->find("the measurement is refused") == 0);
  CHECK(refusal->find("bbbbbbbbbbbb against the best's aaaaaaaaaaaa") != std::string::npos);
  CHECK(refusal->find("put them back") != std::string::npos);
}

TEST_CASE("a side without a fingerprint has nothing to compare") {
  CHECK_FALSE(changedHooksRefusal("", std::string(64, 'a')));  // the candidate's module did not import
  CHECK_FALSE(changedHooksRefusal(std::string(64, 'a'), ""));  // a harness that reports no hooks
}
