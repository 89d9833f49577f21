#include "cli/run_log_cause.h"

#include <doctest/doctest.h>

namespace kopt::cli {

TEST_CASE("a failed run's cause is the harness's own line about the shape, not the log's tail") {
  std::string log =
      "quick_test_bench: time: import 812 ms\n"
      "quick_test_bench: shape r4k: TypeError: backward() missing 1 required positional argument: 'rstd'\n"
      "quick_test_bench: shape r4k2: a batch failed: not this shape\n";
  for (int i = 0; i < 200; ++i) log += "UserWarning: a compiler's chatter that fills the tail " + std::to_string(i) + "\n";
  log += "quick_test_bench: time: total 2.1 s\n";
  const auto cause = runLogCause(log, "quick_test_bench", "r4k");
  REQUIRE(cause.size() == 2);
  CHECK(cause[0] == "quick_test_bench: shape r4k: TypeError: backward() missing 1 required positional argument: 'rstd'");
  CHECK(cause[1] == "quick_test_bench: shape r4k2: a batch failed: not this shape");  // the harness's, after the shape's

  // Another bench says nothing in kopt's harness's words: its last lines stand for it.
  const auto tail = runLogCause("one\n\ntwo\nthree\n", "my_bench", "r4k", 2);
  CHECK(tail == std::vector<std::string>{"two", "three"});
}

}  // namespace kopt::cli
