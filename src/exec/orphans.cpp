#include "exec/orphans.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

namespace kopt::exec {
namespace {

// Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses).
std::optional<std::string> startTime(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  std::ifstream in(path);
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  // Fields after ')' start at field 3 (state); starttime is field 22, the 20th of those.
  std::size_t pos = close + 2;
  for (int field = 3; field < 22; ++field) {
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return std::nullopt;
    ++pos;
  }
  const auto end = stat.find(' ', pos);
  if (end == std::string::npos) return std::nullopt;
  if (stat[close + 2] == 'Z' || stat[close + 2] == 'X') return std::nullopt;  // a zombie runs nothing
  return stat.substr(pos, end - pos);
}

// The KOPT_SERVER value in /proc/<pid>/environ, if any (unreadable for other users' processes).
std::optional<std::string> serverOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/environ", static_cast<int>(pid));
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string prefix = std::string(kServerVariable) + "=";
  std::string entry;
  while (std::getline(in, entry, '\0')) {
    if (entry.compare(0, prefix.size(), prefix) == 0) return entry.substr(prefix.size());
  }
  return std::nullopt;
}

bool alive(const std::string& identity) {
  const auto colon = identity.find(':');
  if (colon == std::string::npos) return false;
  const long pid = std::strtol(identity.c_str(), nullptr, 10);
  if (pid <= 0) return false;
  const auto now = processIdentity(static_cast<pid_t>(pid));
  return now && *now == identity;
}

}  // namespace

std::optional<std::string> processIdentity(pid_t pid) {
  auto start = startTime(pid);
  if (!start) return std::nullopt;
  return std::to_string(pid) + ":" + *start;
}

void markServer() {
  if (auto me = processIdentity(::getpid())) ::setenv(kServerVariable, me->c_str(), 1);
}

OrphanReport endOrphansOfDeadServers() {
  OrphanReport report;
  const pid_t self = ::getpid();
  std::set<std::string> deadServers;
  DIR* dir = opendir("/proc");
  if (!dir) return report;
  std::vector<pid_t> doomed;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0' || pid == self) continue;
    const auto server = serverOf(static_cast<pid_t>(pid));
    if (!server || alive(*server)) continue;
    doomed.push_back(static_cast<pid_t>(pid));
    deadServers.insert(*server);
  }
  closedir(dir);
  for (pid_t pid : doomed) ::kill(pid, SIGKILL);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (pid_t pid : doomed) {
    // Gone, or a zombie its (new) parent has yet to reap: neither runs anything.
    while (startTime(pid) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    (startTime(pid) ? report.stillAlive : report.ended).push_back(pid);
  }
  report.deadServers.assign(deadServers.begin(), deadServers.end());
  return report;
}

std::string takeOverFromDeadServers(const std::string& who) {
  const OrphanReport orphans = endOrphansOfDeadServers();
  markServer();
  if (orphans.ended.empty() && orphans.stillAlive.empty()) return "";
  std::string line = who + ": ended " + std::to_string(orphans.ended.size()) +
                     " process(es) left by kopt server(s) that died (";
  for (std::size_t i = 0; i < orphans.deadServers.size(); ++i) line += (i ? ", " : "") + orphans.deadServers[i];
  line += ")";
  if (!orphans.stillAlive.empty()) line += "; " + std::to_string(orphans.stillAlive.size()) + " did not go";
  return line;
}

}  // namespace kopt::exec
