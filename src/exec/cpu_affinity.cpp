#include "exec/cpu_affinity.h"

#include <sched.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

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

std::map<int, CpuTicks> parseProcStat(const std::string& text) {
  std::map<int, CpuTicks> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // "cpu3 user nice system idle iowait irq softirq steal ..." ("cpu " is the sum: skipped).
    if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || line[3] < '0' || line[3] > '9') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    fields >> cpu;
    CpuTicks t;
    long long value = 0;
    int column = 0;
    for (; column < 8 && fields >> value; ++column) {
      t.total += value;
      if (column == 3 || column == 4) t.idle += value;
    }
    if (cpu >= 0 && column >= 5) out[cpu] = t;
  }
  return out;
}

std::optional<int> quietestCpu(const std::set<int>& allowed, const std::map<int, CpuTicks>& before,
                               const std::map<int, CpuTicks>& after) {
  if (allowed.size() < 2) return std::nullopt;
  std::optional<int> best;
  double bestIdle = -1.0;
  for (int cpu : allowed) {
    auto b = before.find(cpu), a = after.find(cpu);
    if (b == before.end() || a == after.end()) continue;
    const long long total = a->second.total - b->second.total;
    if (total <= 0) continue;
    const double idle = static_cast<double>(a->second.idle - b->second.idle) / static_cast<double>(total);
    if (idle >= bestIdle) {  // >=: the higher-numbered CPU wins ties (CPU 0 takes most interrupts)
      bestIdle = idle;
      best = cpu;
    }
  }
  return best ? best : benchWorkerCpu(allowed);
}

namespace {
std::string readProcStat() {
  std::ifstream in("/proc/stat");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

std::optional<int> quietBenchWorkerCpu(int sampleMs) {
  const std::set<int> allowed = allowedCpus();
  if (allowed.size() < 2) return std::nullopt;
  const auto before = parseProcStat(readProcStat());
  std::this_thread::sleep_for(std::chrono::milliseconds(sampleMs));
  return quietestCpu(allowed, before, parseProcStat(readProcStat()));
}

}  // namespace kopt::exec
