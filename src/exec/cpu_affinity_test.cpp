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

namespace kopt::exec {

TEST_CASE("/proc/stat: per-CPU idle (idle + iowait) and total ticks, the summary line skipped") {
  const auto t = parseProcStat(
      "cpu  100 0 50 800 10 0 0 40 0 0\n"
      "cpu0 10 0 5 70 5 0 0 10 0 0\n"
      "cpu1 90 0 45 730 5 0 0 30 0 0\n"
      "intr 12345\n"
      "cpux junk\n");
  REQUIRE(t.size() == 2);
  CHECK(t.at(0).idle == 75);
  CHECK(t.at(0).total == 100);
  CHECK(t.at(1).idle == 735);
  CHECK(t.at(1).total == 900);
}

TEST_CASE("quietest CPU: the idlest allowed CPU between two snapshots; steal counts as busy") {
  // CPU 1 busy with another measurement, CPU 0 idle: CPU 0.
  std::map<int, CpuTicks> before{{0, {0, 0}}, {1, {0, 0}}, {2, {0, 0}}};
  std::map<int, CpuTicks> after{{0, {90, 100}}, {1, {10, 100}}, {2, {95, 100}}};
  CHECK(quietestCpu({0, 1}, before, after) == 0);
  // CPU 2 is idler still but not allowed; with it allowed, it wins.
  CHECK(quietestCpu({0, 1, 2}, before, after) == 2);
  // A tie goes to the higher number.
  CHECK(quietestCpu({0, 1}, before, {{0, {50, 100}}, {1, {50, 100}}}) == 1);
  // Steal: CPU 1 shows 40 ticks stolen by the host, so it is the busier one.
  const auto stolen = parseProcStat("cpu0 5 0 5 90 0 0 0 0\ncpu1 5 0 5 50 0 0 0 40\n");
  CHECK(quietestCpu({0, 1}, {{0, {0, 0}}, {1, {0, 0}}}, stolen) == 0);
  // Nothing known: the highest allowed; one CPU: no pinning.
  CHECK(quietestCpu({0, 3}, {}, {}) == 3);
  CHECK_FALSE(quietestCpu({4}, before, after).has_value());
}

TEST_CASE("quiet bench worker CPU: one of the allowed CPUs, or none with a single one") {
  const std::set<int> cpus = allowedCpus();
  const auto cpu = quietBenchWorkerCpu(1);
  if (cpus.size() < 2) CHECK_FALSE(cpu.has_value());
  else {
    REQUIRE(cpu.has_value());
    CHECK(cpus.count(*cpu) == 1);
  }
}

}  // namespace kopt::exec
