#include "exec/cpu_affinity.h"

#include <doctest/doctest.h>

namespace kopt::exec {

TEST_CASE("bench worker CPU: the highest allowed, none when there is no choice") {
  CHECK(benchWorkerCpu({0, 1}) == 1);
  CHECK(benchWorkerCpu({2, 5, 9}) == 9);
  CHECK_FALSE(benchWorkerCpu({3}).has_value());
  CHECK_FALSE(benchWorkerCpu({}).has_value());
}

TEST_CASE("allowed CPUs: this process may run somewhere") {
  const std::set<int> cpus = allowedCpus();
  REQUIRE_FALSE(cpus.empty());
  CHECK(*cpus.begin() >= 0);
}

}  // namespace kopt::exec
