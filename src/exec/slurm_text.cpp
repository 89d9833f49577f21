#include "exec/slurm_text.h"

#include <cctype>
#include <sstream>

namespace kopt::exec::slurm {

const char* const kQueueFormat = "%i|%T|%r|%N";

JobState parseJobState(const std::string& raw) {
  std::string text = raw;
  while (!text.empty() && (text.back() == '+' || std::isspace(static_cast<unsigned char>(text.back())))) {
    text.pop_back();  // "CANCELLED+" (cancelled by someone else) and stray blanks
  }
  static const std::pair<const char*, JobState> kStates[] = {
      {"PENDING", JobState::Pending},     {"RUNNING", JobState::Running},
      {"SUSPENDED", JobState::Suspended}, {"COMPLETING", JobState::Completing},
      {"CONFIGURING", JobState::Configuring}, {"COMPLETED", JobState::Completed},
      {"FAILED", JobState::Failed},       {"CANCELLED", JobState::Cancelled},
      {"TIMEOUT", JobState::Timeout},     {"NODE_FAIL", JobState::NodeFail},
      {"BOOT_FAIL", JobState::BootFail},  {"PREEMPTED", JobState::Preempted},
      {"OUT_OF_MEMORY", JobState::OutOfMemory}, {"DEADLINE", JobState::Deadline},
      {"REQUEUED", JobState::Pending},    {"REQUEUE_HOLD", JobState::Pending},
      {"REQUEUE_FED", JobState::Pending}, {"RESIZING", JobState::Running},
      {"SIGNALING", JobState::Running},   {"STAGE_OUT", JobState::Completing},
      {"STOPPED", JobState::Suspended},   {"RESV_DEL_HOLD", JobState::Pending},
      {"SPECIAL_EXIT", JobState::Failed}, {"REVOKED", JobState::Cancelled},
  };
  for (const auto& [name, state] : kStates) {
    if (text == name) return state;
  }
  return JobState::Unknown;
}

bool isFinal(JobState s) {
  switch (s) {
    case JobState::Completed: case JobState::Failed: case JobState::Cancelled: case JobState::Timeout:
    case JobState::NodeFail: case JobState::BootFail: case JobState::Preempted:
    case JobState::OutOfMemory: case JobState::Deadline:
      return true;
    default:
      return false;
  }
}

const char* toString(JobState s) {
  switch (s) {
    case JobState::Pending: return "PENDING";
    case JobState::Running: return "RUNNING";
    case JobState::Suspended: return "SUSPENDED";
    case JobState::Completing: return "COMPLETING";
    case JobState::Configuring: return "CONFIGURING";
    case JobState::Completed: return "COMPLETED";
    case JobState::Failed: return "FAILED";
    case JobState::Cancelled: return "CANCELLED";
    case JobState::Timeout: return "TIMEOUT";
    case JobState::NodeFail: return "NODE_FAIL";
    case JobState::BootFail: return "BOOT_FAIL";
    case JobState::Preempted: return "PREEMPTED";
    case JobState::OutOfMemory: return "OUT_OF_MEMORY";
    case JobState::Deadline: return "DEADLINE";
    case JobState::Unknown: return "UNKNOWN";
  }
  return "UNKNOWN";
}

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  return parts;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The value of ` Key=value` in scontrol's one-line output (values here never contain blanks).
std::optional<std::string> field(const std::string& line, const std::string& key) {
  size_t pos = 0;
  const std::string needle = key + "=";
  while ((pos = line.find(needle, pos)) != std::string::npos) {
    if (pos == 0 || line[pos - 1] == ' ') {
      const size_t begin = pos + needle.size();
      size_t end = begin;
      while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
      return line.substr(begin, end - begin);
    }
    pos += needle.size();
  }
  return std::nullopt;
}
}  // namespace

std::vector<QueueEntry> parseQueue(const std::string& out) {
  std::vector<QueueEntry> entries;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) continue;
    auto parts = split(line, '|');
    if (parts.size() < 4) continue;
    QueueEntry e;
    e.jobId = trim(parts[0]);
    e.state = parseJobState(trim(parts[1]));
    e.reason = trim(parts[2]);
    e.nodes = trim(parts[3]);
    if (e.nodes == "(null)" || e.nodes == "None assigned") e.nodes.clear();
    entries.push_back(std::move(e));
  }
  return entries;
}

std::optional<JobInfo> parseJobInfo(const std::string& line) {
  auto id = field(line, "JobId");
  auto state = field(line, "JobState");
  if (!id || !state) return std::nullopt;
  JobInfo info;
  info.jobId = *id;
  info.state = parseJobState(*state);
  info.reason = field(line, "Reason").value_or("");
  info.nodes = field(line, "NodeList").value_or("");
  if (info.nodes == "(null)") info.nodes.clear();
  if (auto code = field(line, "ExitCode")) {
    auto parts = split(*code, ':');
    try {
      info.exitCode = std::stoi(parts[0]);
      if (parts.size() > 1) info.signal = std::stoi(parts[1]);
    } catch (const std::exception&) {
      // leave 0:0; the state still tells what happened
    }
  }
  return info;
}

bool isNodesDownReason(const std::string& reason) {
  return reason.rfind("ReqNodeNotAvail", 0) == 0 || reason.rfind("Nodes required for job are DOWN", 0) == 0 ||
         reason.rfind("Nodes_required_for_job_are_DOWN", 0) == 0;
}

bool isImpossibleReason(const std::string& reason) {
  static const char* const kNever[] = {
      "PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "BadConstraints",
      "InvalidAccount", "InvalidQOS", "QOSMaxGRESPerJob", "QOSMaxCpuPerJobLimit",
      "QOSMaxNodePerJobLimit", "QOSMaxWallDurationPerJobLimit", "AssocMaxWallDurationPerJobLimit",
      "AssocMaxCpuPerJobLimit", "AssocMaxNodePerJobLimit", "AssocMaxGRESPerJob",
      "PartitionDown", "PartitionInactive", "DependencyNeverSatisfied",
  };
  for (const char* r : kNever) {
    if (reason == r) return true;
  }
  return false;
}

NodeHealth parseNodeState(const std::string& raw) {
  NodeHealth h;
  std::string s = trim(raw);
  // The first line is enough: one node was asked for.
  if (auto nl = s.find('\n'); nl != std::string::npos) s = trim(s.substr(0, nl));
  if (!s.empty() && (s.back() == '*' || s.back() == '~' || s.back() == '#' || s.back() == '!' ||
                     s.back() == '%' || s.back() == '$' || s.back() == '@' || s.back() == '^' ||
                     s.back() == '-')) {
    h.notResponding = s.back() == '*';
    s.pop_back();
  }
  h.down = s.rfind("down", 0) == 0 || s == "fail" || s == "failg" || s == "boot_fail" || s == "unk" || s == "unknown";
  return h;
}

std::optional<std::string> parseSubmittedJobId(const std::string& out) {
  const std::string line = trim(out.substr(0, out.find('\n')));
  const std::string id = line.substr(0, line.find(';'));
  if (id.empty()) return std::nullopt;
  for (char c : id) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  }
  return id;
}

std::string shellQuote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.,/:=+@%") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::string escapeOutputPath(const std::string& path) {
  std::string out;
  for (char c : path) {
    out.push_back(c);
    if (c == '%') out.push_back('%');
  }
  return out;
}

std::string timeLimitFor(std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) return "UNLIMITED";
  const auto minutes = (timeout.count() + 59999) / 60000 + 1;
  return std::to_string(minutes);
}

}  // namespace kopt::exec::slurm
