// docs/manifest.md against the parser: every key the parser accepts is documented once, nothing
// else is, and the page's example parses without an error.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "campaign/manifest.h"

namespace {

std::string manifestDoc() {
  std::ifstream in(std::string(KOPT_SOURCE_DIR) + "/docs/manifest.md");
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("docs/manifest.md documents exactly the keys the parser accepts, each once") {
  std::multiset<std::string> documented;
  std::istringstream lines(manifestDoc());
  for (std::string line; std::getline(lines, line);) {
    // A key row: "| `gate.pairs` | ..." (the header row and separators have no backticks there).
    if (line.rfind("| `", 0) != 0) continue;
    const auto end = line.find('`', 3);
    REQUIRE(end != std::string::npos);
    documented.insert(line.substr(3, end - 3));
  }
  std::set<std::string> accepted;
  for (const auto& [section, keys] : kopt::campaign::manifestKeys())
    for (const auto& key : keys) accepted.insert(section.empty() ? key : section + "." + key);
  for (const auto& key : accepted) {
    INFO(key);
    CHECK(documented.count(key) == 1);
  }
  for (const auto& key : documented) {
    INFO(key);
    CHECK(accepted.count(key) == 1);
  }
}

TEST_CASE("docs/manifest.md's example manifest parses without an error") {
  const std::string doc = manifestDoc();
  const auto begin = doc.find("```yaml\n");
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("```", begin + 8);
  REQUIRE(end != std::string::npos);
  const auto result = kopt::campaign::parseManifest(doc.substr(begin + 8, end - begin - 8));
  if (const auto* errors = std::get_if<std::vector<kopt::campaign::FieldError>>(&result)) {
    for (const auto& e : *errors) FAIL_CHECK(kopt::campaign::toString(e));
  }
  REQUIRE(std::holds_alternative<kopt::campaign::Manifest>(result));
  const auto& m = std::get<kopt::campaign::Manifest>(result);
  CHECK(m.gate.targetMdePct == 40);
  CHECK((m.bench.protocol == kopt::campaign::BenchProtocol::Worker));
}

TEST_CASE("an unknown key is refused with the section's keys as the fix") {
  const auto result = kopt::campaign::parseManifest("timeouts: {compile: 10}\ngate: {pair: 8}\n");
  const auto* errors = std::get_if<std::vector<kopt::campaign::FieldError>>(&result);
  REQUIRE(errors);
  bool timeout = false, gate = false;
  for (const auto& e : *errors) {
    if (e.field == "timeouts.compile") timeout = e.fix == "use build, test, bench or hang";
    if (e.field == "gate.pair") gate = e.fix.find("pairs, max_pairs") != std::string::npos;
  }
  CHECK(timeout);
  CHECK(gate);
}
