#pragma once
// ledger.jsonl: the append-only, hash-chained record of every event; the campaign's source of
// truth. Each line is one JSON object {seq, ts, type, round, payload, prev, hash}:
//   seq   1, 2, 3, ...            round  the round number or null
//   prev  hash of the previous line ("0"*64 for seq 1)
//   hash  sha256 of the canonical serialization (nlohmann dump(), keys sorted, no spaces) of the
//         line's object without "hash" (and without "mac")
//   mac   HMAC-SHA256(key, hash), on every line of a keyed ledger (ledger_key.h); absent in an
//         unkeyed one
// Appends are fsync'ed. A final line without '\n' is a torn write from a crash: verify() reports
// it as such (not as tampering) and repair() truncates it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::campaign {

struct LedgerEvent {
  std::uint64_t seq = 0;
  std::string ts;  // ISO-8601 UTC
  std::string type;
  std::optional<int> round;
  nlohmann::json payload = nlohmann::json::object();
  std::string prev;
  std::string hash;
  std::string mac;  // "" in an unkeyed ledger
};

enum class LedgerProblem {
  None,
  BadJson,       // a line is not a JSON object with the expected fields
  BadSeq,        // seq not previous+1: a line removed, duplicated or reordered
  BadPrev,       // prev does not match the previous line's hash: removed/reordered/edited before
  BadHash,       // hash does not match the content: the line was edited
  TornTail,      // last line has no newline (crash mid-append); tolerated, repaired by truncation
  BadMac,        // keyed ledger: a line without kopt's MAC (appended or re-chained without the key)
};
const char* toString(LedgerProblem p);

struct LedgerVerification {
  LedgerProblem problem = LedgerProblem::None;
  std::optional<std::uint64_t> firstBadSeq;  // the seq the bad line should have had
  std::size_t firstBadLine = 0;              // 1-based line number, 0 when ok
  std::string reason;                        // human text: "line 7 (seq 7): hash mismatch: edited"
  std::uint64_t lastGoodSeq = 0;             // events before the problem are intact
  bool ok() const { return problem == LedgerProblem::None; }
  // Torn tail alone: the chain is intact, only the crash-interrupted last append is lost.
  bool onlyTornTail() const { return problem == LedgerProblem::TornTail; }
};

class Ledger {
 public:
  explicit Ledger(std::filesystem::path path);

  // With a key, verify() requires a valid MAC on every line and appendEvent() writes one. Without
  // one, MACs are neither checked nor written (an unkeyed campaign, or a reader without the key).
  void setKey(std::string key) { key_ = std::move(key); }
  bool keyed() const { return !key_.empty(); }

  // Appends one event and fsyncs; returns its seq. Refuses (throws std::runtime_error) when the
  // ledger is not intact (a torn tail must be repaired first). Holds an flock on "<path>.lock".
  std::uint64_t appendEvent(const std::string& type, std::optional<int> round,
                            const nlohmann::json& payload);

  LedgerVerification verify() const;
  // Truncates a torn final line; returns true when something was cut. Does nothing otherwise.
  bool repairTornTail();

  // All intact events (stops before the first problem). Empty for a missing file.
  std::vector<LedgerEvent> readAll() const;
  std::uint64_t lastSeq() const;  // 0 when empty
  const std::filesystem::path& path() const { return path_; }

  // Exposed for tests and for tools that explain a hash.
  static std::string canonicalWithoutHash(const LedgerEvent& e);
  static std::string genesisPrev();  // 64 zeros

 private:
  std::filesystem::path path_;
  std::string key_;
};

}  // namespace kopt::campaign
