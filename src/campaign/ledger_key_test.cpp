// Keyed ledgers (docs/integrity.md, class 9): a line appended or re-chained without the
// campaign's key is refused, however well its sha256 chain is recomputed.
#include "campaign/ledger_key.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "campaign/ledger.h"
#include "util/sha256.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;
using testing::writeText;
namespace fs = std::filesystem;
using nlohmann::json;

// The exploit suite's 09e forgery: the last line appended again with a new seq, prev and a
// recomputed sha256 hash (its mac, if any, copied along).
std::string forgedLine(const std::string& ledgerText, bool keepMac) {
  const auto lines = util::split(util::trim(ledgerText), '\n');
  json last = json::parse(lines.back());
  json forged = last;
  forged["seq"] = last["seq"].get<std::uint64_t>() + 1;
  forged["prev"] = last["hash"];
  forged["payload"]["forged"] = true;
  forged.erase("hash");
  if (!keepMac) forged.erase("mac");
  json body = forged;
  body.erase("mac");
  forged["hash"] = util::sha256Hex(body.dump());
  return forged.dump() + "\n";
}

}  // namespace

TEST_CASE("ledger key: HMAC-SHA256 matches RFC 4231") {
  CHECK(hmacSha256Hex("Jefe", "what do ya want for nothing?") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(hmacSha256Hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First") ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("ledger key: stored 0600 outside the campaign, per campaign directory") {
  FakeWorkspace ws;
  const fs::path keys = ws.root / "state" / "keys";
  CHECK_FALSE(loadLedgerKey(keys, ws.root / "c1").has_value());
  const std::string key = createLedgerKey(keys, ws.root / "c1");
  CHECK(key.size() == 64);
  CHECK(loadLedgerKey(keys, ws.root / "c1") == key);
  CHECK(loadLedgerKey(keys, ws.root / "sub" / ".." / "c1") == key);
  CHECK_FALSE(loadLedgerKey(keys, ws.root / "c2").has_value());
  struct stat st {};
  REQUIRE(::stat(ledgerKeyPath(keys, ws.root / "c1").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(createLedgerKey(keys, ws.root / "c1") != key);  // a new campaign at the same path
  writeText(ledgerKeyPath(keys, ws.root / "c3"), "not a key\n");
  CHECK_THROWS(loadLedgerKey(keys, ws.root / "c3"));
}

TEST_CASE("ledger key: a keyed ledger refuses lines written without its key") {
  FakeWorkspace ws;
  const fs::path path = ws.root / "ledger.jsonl";
  Ledger ledger(path);
  ledger.setKey(std::string(64, 'a'));
  for (int i = 0; i < 3; ++i) ledger.appendEvent("event", i, json{{"i", i}});
  REQUIRE(ledger.verify().ok());
  const std::string intact = readText(path);
  CHECK(Ledger(path).verify().ok());  // a reader without the key checks the sha256 chain only
  CHECK(Ledger(path).readAll().size() == 3);

  for (bool keepMac : {false, true}) {
    CAPTURE(keepMac);
    writeText(path, intact + forgedLine(intact, keepMac));
    CHECK(Ledger(path).verify().ok());  // the sha256 chain alone cannot tell
    const auto v = ledger.verify();
    CHECK(std::string(toString(v.problem)) == "bad_mac");
    CHECK(v.firstBadSeq == 4u);
    CHECK(ledger.readAll().size() == 3);
    CHECK_THROWS(ledger.appendEvent("after", std::nullopt, json::object()));
  }
  // Every MAC stripped and the chain recomputed: still refused (the key file says it is keyed).
  std::string stripped;
  std::string prev = Ledger::genesisPrev();
  for (const auto& line : util::split(util::trim(intact), '\n')) {
    json j = json::parse(line);
    j.erase("mac");
    j.erase("hash");
    j["prev"] = prev;
    j["hash"] = util::sha256Hex(j.dump());
    prev = j["hash"].get<std::string>();
    stripped += j.dump() + "\n";
  }
  writeText(path, stripped);
  CHECK(Ledger(path).verify().ok());
  CHECK(std::string(toString(ledger.verify().problem)) == "bad_mac");
  CHECK(ledger.verify().firstBadSeq == 1u);
  // Another key is no key.
  writeText(path, intact);
  Ledger other(path);
  other.setKey(std::string(64, 'b'));
  CHECK(std::string(toString(other.verify().problem)) == "bad_mac");
}

TEST_CASE("ledger key: a new campaign is keyed; a forged verdict or a lost key is refused") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  DefineTargetRequest d;
  d.repoPath = "repo";
  d.manifestPath = "manifest.yaml";
  auto defined = engine.defineTarget(d);
  REQUIRE_MESSAGE(defined.ok(), defined.errorText());
  const std::string dir = defined.value().campaignDir;
  REQUIRE(engine.confirmTarget({dir, true, "tester", "argument"}).ok());
  const fs::path ledgerPath = fs::path(dir) / "ledger.jsonl";
  const std::string intact = readText(ledgerPath);
  for (const auto& line : util::split(util::trim(intact), '\n')) CHECK(json::parse(line).contains("mac"));
  const fs::path keyFile = ledgerKeyPath(ws.root / "state" / "ledger-keys", dir);
  CHECK(fs::exists(keyFile));
  CHECK(fs::path(dir).lexically_relative(keyFile.parent_path()).string().rfind("..", 0) == 0);  // not inside

  writeText(ledgerPath, intact + forgedLine(intact, true));
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK_FALSE(status.value().ledgerOk);
  CHECK(status.value().integrity.find("MAC does not match") != std::string::npos);
  auto refused = engine.prepareEnvironment(dir);
  REQUIRE(refused.refused());
  CHECK(testing::name(refused.refusal().code) == "ledger_tampered");

  writeText(ledgerPath, intact);
  const std::string key = readText(keyFile);
  fs::remove(keyFile);
  refused = engine.prepareEnvironment(dir);
  REQUIRE(refused.refused());
  CHECK(testing::name(refused.refusal().code) == "ledger_tampered");
  CHECK(refused.refusal().why.find("key is missing") != std::string::npos);
  writeText(keyFile, key);
  auto prepared = engine.prepareEnvironment(dir);
  CHECK_MESSAGE(prepared.ok(), prepared.errorText());
}

}  // namespace kopt::campaign
