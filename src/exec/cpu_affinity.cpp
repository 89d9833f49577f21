#include "exec/cpu_affinity.h"

#include <sched.h>

namespace kopt::exec {

std::set<int> allowedCpus() {
  std::set<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out.insert(cpu);
  return out;
}

std::optional<int> benchWorkerCpu(const std::set<int>& allowed) {
  if (allowed.size() < 2) return std::nullopt;
  return *allowed.rbegin();
}

}  // namespace kopt::exec
