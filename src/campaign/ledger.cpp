#include "campaign/ledger.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "campaign/ledger_key.h"
#include "util/atomic_file.h"
#include "util/file_lock.h"
#include "util/json_text.h"
#include "util/sha256.h"
#include "util/time_format.h"

namespace kopt::campaign {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Agents' prose can carry invalid UTF-8; replacing it keeps dump() from throwing and is stable
// (re-dumping the parsed line gives the same bytes).
std::string dumpCanonical(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json objectWithoutHash(const LedgerEvent& e) {
  return json{{"seq", e.seq},
              {"ts", e.ts},
              {"type", e.type},
              {"round", e.round ? json(*e.round) : json(nullptr)},
              {"payload", e.payload},
              {"prev", e.prev}};
}

struct ParsedLine {
  std::optional<LedgerEvent> event;
  std::string error;
};

ParsedLine parseLine(const std::string& line) {
  ParsedLine out;
  const json j = util::parseJsonText(line).value_or(json());
  if (!j.is_object()) {
    out.error = "not a JSON object";
    return out;
  }
  auto need = [&](const char* key, bool ok) {
    if (out.error.empty() && !ok) out.error = std::string("field '") + key + "' missing or of the wrong type";
  };
  need("seq", j.contains("seq") && j["seq"].is_number_unsigned());
  need("ts", j.contains("ts") && j["ts"].is_string());
  need("type", j.contains("type") && j["type"].is_string());
  need("round", j.contains("round") && (j["round"].is_null() || j["round"].is_number_integer()));
  need("payload", j.contains("payload"));
  need("prev", j.contains("prev") && j["prev"].is_string());
  need("hash", j.contains("hash") && j["hash"].is_string());
  const bool hasMac = j.contains("mac");
  need("mac", !hasMac || j["mac"].is_string());
  if (out.error.empty() && j.size() != (hasMac ? 8u : 7u)) out.error = "unexpected extra fields";
  if (!out.error.empty()) return out;
  LedgerEvent e;
  e.seq = j["seq"].get<std::uint64_t>();
  e.ts = j["ts"].get<std::string>();
  e.type = j["type"].get<std::string>();
  if (!j["round"].is_null()) e.round = j["round"].get<int>();
  e.payload = j["payload"];
  e.prev = j["prev"].get<std::string>();
  e.hash = j["hash"].get<std::string>();
  if (hasMac) e.mac = j["mac"].get<std::string>();
  out.event = std::move(e);
  return out;
}

struct Scan {
  LedgerVerification verification;
  std::vector<LedgerEvent> events;  // intact prefix
  std::size_t intactBytes = 0;      // bytes of complete, intact lines
};

Scan scan(const fs::path& path, const std::string& key) {
  Scan s;
  auto text = util::readFileIfExists(path);
  if (!text) return s;
  const std::string& t = *text;
  std::size_t pos = 0;
  std::size_t lineNo = 0;
  std::string prevHash = Ledger::genesisPrev();
  auto fail = [&](LedgerProblem p, std::string reason) {
    s.verification.problem = p;
    s.verification.firstBadLine = lineNo;
    s.verification.firstBadSeq = s.events.size() + 1;
    s.verification.reason = "line " + std::to_string(lineNo) + " (seq " +
                            std::to_string(s.events.size() + 1) + "): " + reason;
  };
  while (pos < t.size()) {
    ++lineNo;
    std::size_t nl = t.find('\n', pos);
    if (nl == std::string::npos) {
      fail(LedgerProblem::TornTail,
           "last line has no newline: an append interrupted by a crash (" +
               std::to_string(t.size() - pos) + " bytes); repair truncates it");
      break;
    }
    std::string line = t.substr(pos, nl - pos);
    ParsedLine parsed = parseLine(line);
    if (!parsed.event) {
      fail(LedgerProblem::BadJson, "unreadable: " + parsed.error);
      break;
    }
    const LedgerEvent& e = *parsed.event;
    std::uint64_t expected = s.events.size() + 1;
    if (e.seq != expected) {
      fail(LedgerProblem::BadSeq, "has seq " + std::to_string(e.seq) + ", expected " +
                                      std::to_string(expected) +
                                      ": a line was removed, duplicated or reordered");
      break;
    }
    // The MAC first: a line kopt did not write is a forgery, whatever else is wrong with it (an
    // edited line keeps its MAC'd hash and fails the hash check below).
    if (!key.empty() && e.mac.empty()) {
      fail(LedgerProblem::BadMac, "carries no MAC in a keyed ledger: it was not written by kopt (MACs stripped, or "
                                  "the ledger re-chained without its key)");
      break;
    }
    if (!key.empty() && e.mac != hmacSha256Hex(key, e.hash)) {
      fail(LedgerProblem::BadMac, "its MAC does not match: the line was written without the campaign's key (a forged "
                                  "or re-chained line)");
      break;
    }
    if (util::sha256Hex(Ledger::canonicalWithoutHash(e)) != e.hash) {
      fail(LedgerProblem::BadHash, "hash does not match its content: the line was edited");
      break;
    }
    if (e.prev != prevHash) {
      fail(LedgerProblem::BadPrev,
           "prev does not match the previous line's hash: an earlier line was edited or removed");
      break;
    }
    prevHash = e.hash;
    s.events.push_back(e);
    pos = nl + 1;
    s.intactBytes = pos;
  }
  s.verification.lastGoodSeq = s.events.size();
  return s;
}

fs::path lockPathFor(const fs::path& ledger) {
  fs::path p = ledger;
  p += ".lock";
  return p;
}

}  // namespace

const char* toString(LedgerProblem p) {
  switch (p) {
    case LedgerProblem::None: return "none";
    case LedgerProblem::BadJson: return "bad_json";
    case LedgerProblem::BadSeq: return "bad_seq";
    case LedgerProblem::BadPrev: return "bad_prev";
    case LedgerProblem::BadHash: return "bad_hash";
    case LedgerProblem::TornTail: return "torn_tail";
    case LedgerProblem::BadMac: return "bad_mac";
  }
  return "unknown";
}

Ledger::Ledger(fs::path path) : path_(std::move(path)) {}

std::string Ledger::genesisPrev() { return std::string(64, '0'); }

std::string Ledger::canonicalWithoutHash(const LedgerEvent& e) {
  return dumpCanonical(objectWithoutHash(e));
}

std::uint64_t Ledger::appendEvent(const std::string& type, std::optional<int> round,
                                  const json& payload) {
  auto lock = util::FileLock::acquire(lockPathFor(path_));
  Scan s = scan(path_, key_);
  if (!s.verification.ok()) {
    throw std::runtime_error(path_.string() + ": refusing to append to a ledger that is not intact: " +
                             s.verification.reason);
  }
  LedgerEvent e;
  e.seq = s.events.size() + 1;
  e.ts = util::formatIso8601Utc(std::chrono::system_clock::now());
  e.type = type;
  e.round = round;
  e.payload = payload;
  e.prev = s.events.empty() ? genesisPrev() : s.events.back().hash;
  // Normalise the payload the way a reader will see it (invalid UTF-8 replaced), so the hash we
  // store is the hash verify() recomputes.
  e.payload = json::parse(dumpCanonical(e.payload));
  e.hash = util::sha256Hex(canonicalWithoutHash(e));
  json full = objectWithoutHash(e);
  full["hash"] = e.hash;
  if (!key_.empty()) full["mac"] = hmacSha256Hex(key_, e.hash);
  std::string line = dumpCanonical(full) + "\n";

  bool created = !fs::exists(path_);
  if (created && path_.has_parent_path()) fs::create_directories(path_.parent_path());
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw util::IoError(path_, std::string("cannot open ledger: ") + std::strerror(errno));
  // One write() of the whole line: a crash leaves at most one torn final line, never a mix.
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      throw util::IoError(path_, "ledger append failed: " + why);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    throw util::IoError(path_, "ledger fsync failed: " + why);
  }
  ::close(fd);
  if (created) util::fsyncDirectory(path_.has_parent_path() ? path_.parent_path() : fs::path("."));
  return e.seq;
}

LedgerVerification Ledger::verify() const { return scan(path_, key_).verification; }

bool Ledger::repairTornTail() {
  auto lock = util::FileLock::acquire(lockPathFor(path_));
  Scan s = scan(path_, key_);
  if (!s.verification.onlyTornTail()) return false;
  if (::truncate(path_.c_str(), static_cast<off_t>(s.intactBytes)) != 0) {
    throw util::IoError(path_, std::string("cannot truncate torn ledger tail: ") + std::strerror(errno));
  }
  int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  return true;
}

std::vector<LedgerEvent> Ledger::readAll() const { return scan(path_, key_).events; }

std::uint64_t Ledger::lastSeq() const { return scan(path_, key_).events.size(); }

}  // namespace kopt::campaign
