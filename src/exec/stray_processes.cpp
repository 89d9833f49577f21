#include "exec/stray_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "exec/proc_stat.h"

namespace kopt::exec {
namespace {

std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

// Guarded by registryMutex(); the spawn lock is the same mutex, so a scan never sees a child that
// was forked but not registered yet.
std::set<pid_t>& registry() {
  static std::set<pid_t> pids;
  return pids;
}

// With registryMutex() held.
std::vector<StrayProcess> scan() {
  const pid_t self = ::getpid();
  const pid_t ownSession = ::getsid(0);
  std::map<pid_t, ProcStat> all;
  std::multimap<pid_t, pid_t> children;  // ppid -> pid
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    all.emplace(pid, st);
    children.emplace(st.ppid, pid);
  });
  std::vector<StrayProcess> strays;
  std::vector<pid_t> todo{self};
  std::set<pid_t> seen{self};
  while (!todo.empty()) {
    const pid_t parent = todo.back();
    todo.pop_back();
    auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      const pid_t pid = it->second;
      if (!seen.insert(pid).second) continue;
      todo.push_back(pid);
      const ProcStat& st = all[pid];
      if (st.zombie()) continue;
      const bool own = st.session == ownSession || registry().count(st.session) > 0;
      if (!own) strays.push_back(StrayProcess{pid, st.session, st.name});
    }
  }
  return strays;
}

// Reaps the zombies among this process's children that kopt did not start (adopted orphans):
// nobody else waits for them. Own children (registered, or in kopt's session: git) are left to
// the code that started them, which is waiting for them.
void reapAdopted() {
  const pid_t self = ::getpid();
  const pid_t ownSession = ::getsid(0);
  std::vector<pid_t> zombies;
  forEachProcess([&](pid_t pid, const ProcStat& st) {
    if (st.ppid == self && st.zombie() && st.session != ownSession && registry().count(pid) == 0) {
      zombies.push_back(pid);
    }
  });
  for (pid_t pid : zombies) {
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace

bool becomeSubreaper() { return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

std::unique_lock<std::mutex> OwnChildren::spawnLock() { return std::unique_lock<std::mutex>(registryMutex()); }

void OwnChildren::add(pid_t leader) { registry().insert(leader); }

void OwnChildren::remove(pid_t leader) {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().erase(leader);
}

std::string StrayProcess::text() const {
  return "pid " + std::to_string(pid) + " '" + name + "' (session " + std::to_string(session) + ")";
}

std::vector<StrayProcess> findStrayProcesses() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return scan();
}

std::vector<StrayProcess> endStrayProcesses() {
  std::lock_guard<std::mutex> lock(registryMutex());
  std::vector<StrayProcess> ended;
  std::set<pid_t> reported;
  // A killed stray's children are re-parented to kopt and may be strays themselves: a few rounds.
  for (int round = 0; round < 20; ++round) {
    const auto strays = scan();
    if (strays.empty()) break;
    for (const auto& s : strays) {
      ::kill(s.pid, SIGKILL);
      if (reported.insert(s.pid).second) ended.push_back(s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // SIGKILL is asynchronous
    reapAdopted();
  }
  reapAdopted();
  return ended;
}

std::string strayText(const std::vector<StrayProcess>& strays) {
  if (strays.empty()) return "";
  std::string text = std::to_string(strays.size()) +
                     (strays.size() == 1 ? " process escaped its command's session: " : " processes escaped their command's session: ");
  const std::size_t shown = std::min<std::size_t>(strays.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + strays[i].text();
  if (strays.size() > shown) text += ", ...";
  return text + "; kopt ended " + (strays.size() == 1 ? "it" : "them");
}

}  // namespace kopt::exec
