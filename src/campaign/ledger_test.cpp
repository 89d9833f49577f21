#include "campaign/ledger.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>

#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/text.h"

using namespace kopt::campaign;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct TempLedger {
  fs::path dir;
  fs::path path;
  TempLedger() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("kopt_ledger_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir);
    path = dir / "ledger.jsonl";
  }
  ~TempLedger() { fs::remove_all(dir); }
  std::vector<std::string> lines() const {
    return kopt::util::splitLines(kopt::util::readFile(path));
  }
  void writeLines(const std::vector<std::string>& ls) const {
    std::string text;
    for (const auto& l : ls) text += l + "\n";
    kopt::util::writeFileAtomic(path, text);
  }
};

void appendFive(Ledger& l) {
  l.appendEvent("campaign_defined", std::nullopt, {{"name", "n"}});
  l.appendEvent("baseline_done", 1, {{"geomean", 301.25}});
  l.appendEvent("round_begun", 2, {{"hypothesis", "tile 128"}});
  l.appendEvent("round_decided", 2, {{"decision", "ACCEPTED"}});
  l.appendEvent("round_begun", 3, {{"hypothesis", "unroll"}});
}

}  // namespace

TEST_CASE("appended events chain by hash and read back") {
  TempLedger t;
  Ledger l(t.path);
  CHECK(l.lastSeq() == 0);
  CHECK(l.verify().ok());
  CHECK(l.appendEvent("a", std::nullopt, json::object()) == 1);
  CHECK(l.appendEvent("b", 2, {{"x", "caf\xC3\xA9"}}) == 2);
  auto events = l.readAll();
  REQUIRE(events.size() == 2);
  CHECK(events[0].prev == Ledger::genesisPrev());
  CHECK(events[1].prev == events[0].hash);
  CHECK_FALSE(events[0].round.has_value());
  CHECK(events[1].round == std::optional<int>(2));
  CHECK(events[1].payload["x"] == "caf\xC3\xA9");
  CHECK(events[0].hash == kopt::util::sha256Hex(Ledger::canonicalWithoutHash(events[0])));
  CHECK(events[0].ts.size() == 24);
  auto lines = t.lines();
  REQUIRE(lines.size() == 2);
  auto j = json::parse(lines[0]);
  for (const char* key : {"seq", "ts", "type", "round", "payload", "prev", "hash"}) CHECK(j.contains(key));
}

TEST_CASE("invalid UTF-8 in a payload neither throws nor breaks the chain") {
  TempLedger t;
  Ledger l(t.path);
  l.appendEvent("prose", 2, {{"attribution", std::string("bad \xFF byte")}});
  CHECK(l.verify().ok());
}

TEST_CASE("an edited line is reported as BadHash at its seq") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  auto lines = t.lines();
  lines[1] = kopt::util::replaceAll(lines[1], "301.25", "401.25");
  t.writeLines(lines);
  auto v = l.verify();
  CHECK((v.problem == LedgerProblem::BadHash));
  CHECK(v.firstBadSeq == std::optional<std::uint64_t>(2));
  CHECK(v.firstBadLine == 2);
  CHECK(v.lastGoodSeq == 1);
  CHECK(v.reason.find("edited") != std::string::npos);
  CHECK(l.readAll().size() == 1);
  CHECK_THROWS_AS(l.appendEvent("x", std::nullopt, json::object()), std::runtime_error);
}

TEST_CASE("an edited line with a recomputed hash breaks the next line's prev") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  auto lines = t.lines();
  auto j = json::parse(lines[1]);
  j["payload"]["geomean"] = 999.0;
  LedgerEvent e;
  e.seq = j["seq"];
  e.ts = j["ts"];
  e.type = j["type"];
  e.round = j["round"].get<int>();
  e.payload = j["payload"];
  e.prev = j["prev"];
  j["hash"] = kopt::util::sha256Hex(Ledger::canonicalWithoutHash(e));
  lines[1] = j.dump();
  t.writeLines(lines);
  auto v = l.verify();
  CHECK((v.problem == LedgerProblem::BadPrev));
  CHECK(v.firstBadSeq == std::optional<std::uint64_t>(3));
}

TEST_CASE("a removed line and reordered lines are reported as BadSeq") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  auto lines = t.lines();
  auto removed = lines;
  removed.erase(removed.begin() + 2);
  t.writeLines(removed);
  auto v = l.verify();
  CHECK((v.problem == LedgerProblem::BadSeq));
  CHECK(v.firstBadSeq == std::optional<std::uint64_t>(3));
  CHECK(v.reason.find("removed") != std::string::npos);

  auto swapped = lines;
  std::swap(swapped[3], swapped[4]);
  t.writeLines(swapped);
  v = l.verify();
  CHECK((v.problem == LedgerProblem::BadSeq));
  CHECK(v.firstBadSeq == std::optional<std::uint64_t>(4));
}

TEST_CASE("a line that is not JSON is reported as BadJson") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  auto lines = t.lines();
  lines[0] = "{not json";
  t.writeLines(lines);
  auto v = l.verify();
  CHECK((v.problem == LedgerProblem::BadJson));
  CHECK(v.firstBadSeq == std::optional<std::uint64_t>(1));
  lines[0] = R"({"seq":1})";
  t.writeLines(lines);
  CHECK((l.verify().problem == LedgerProblem::BadJson));
}

TEST_CASE("a torn final line is tolerated, reported as such, and repaired by truncation") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  std::string full = kopt::util::readFile(t.path);
  {
    std::ofstream out(t.path, std::ios::app | std::ios::binary);
    out << R"({"seq":6,"ts":"2026-04-12T09:)";  // crash mid-append
  }
  auto v = l.verify();
  CHECK(v.onlyTornTail());
  CHECK(v.lastGoodSeq == 5);
  CHECK(v.firstBadLine == 6);
  CHECK(v.reason.find("crash") != std::string::npos);
  CHECK(l.readAll().size() == 5);
  CHECK_THROWS(l.appendEvent("x", std::nullopt, json::object()));
  CHECK(l.repairTornTail());
  CHECK(kopt::util::readFile(t.path) == full);
  CHECK(l.verify().ok());
  CHECK_FALSE(l.repairTornTail());
  CHECK(l.appendEvent("round_decided", 3, {{"decision", "ROLLED BACK"}}) == 6);
  CHECK(l.verify().ok());
}

TEST_CASE("repair does not touch a ledger that was tampered with") {
  TempLedger t;
  Ledger l(t.path);
  appendFive(l);
  auto lines = t.lines();
  lines[0] = kopt::util::replaceAll(lines[0], "\"n\"", "\"m\"");
  t.writeLines(lines);
  std::string before = kopt::util::readFile(t.path);
  CHECK_FALSE(l.repairTornTail());
  CHECK(kopt::util::readFile(t.path) == before);
}
