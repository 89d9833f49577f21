// The baseline's summary names the worker sessions its A/A ran, not a fixed three.
#include "tools/result_summaries.h"

#include <doctest/doctest.h>

namespace kopt::tools {
namespace {

campaign::BaselineResult workerBaseline(int sessions) {
  campaign::BaselineResult r;
  r.commit = "0123456789abcdef";
  r.harness = {"s1: A/A bias 0.01% within 0.50%"};
  r.aaSessions = sessions;
  r.blocksPerLook = 12;
  return r;
}

TEST_CASE("baseline summary: the harness check names the A/A's worker sessions and the blocks a look runs") {
  CHECK(summaryText(workerBaseline(6)).find("Harness check (6 worker sessions; each validation look runs 12 blocks "
                                            "per shape):\n  s1: A/A bias") != std::string::npos);
  CHECK(summaryText(workerBaseline(3)).find("Harness check (3 worker sessions;") != std::string::npos);
}

TEST_CASE("baseline summary: no harness check without worker sessions") {
  campaign::BaselineResult r = workerBaseline(0);
  r.harness.clear();
  CHECK(summaryText(r).find("Harness check") == std::string::npos);
}

}  // namespace
}  // namespace kopt::tools
