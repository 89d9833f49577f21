#include "campaign/frozen_files.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "util/atomic_file.h"

using namespace kopt::campaign;
namespace fs = std::filesystem;

TEST_CASE("frozen files and texts: intact, edited, missing") {
  auto dir = fs::temp_directory_path() / ("kopt_frozen_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  kopt::util::writeFileAtomic(dir / "tests" / "bench.py", "print('bench')\n");
  FrozenSet set;
  set.addFile("tests/bench.py", "tests/bench.py", dir);
  set.addText("schema header", "label,B,M,N,K,Check");
  set.addText("test_command", "pytest -q");
  std::map<std::string, std::string> now = {{"schema header", "label,B,M,N,K,Check"},
                                            {"test_command", "pytest -q"}};
  CHECK(set.verify(dir, now).empty());

  kopt::util::writeFileAtomic(dir / "tests" / "bench.py", "print('gamed')\n");
  now["test_command"] = "pytest -q -k fast";
  auto diffs = set.verify(dir, now);
  REQUIRE(diffs.size() == 2);
  CHECK(diffs[0].name == "tests/bench.py");
  CHECK(diffs[0].message.find("tests/bench.py changed: sha256 was ") == 0);
  CHECK(diffs[0].message.find(" now ") != std::string::npos);
  CHECK(diffs[0].was != diffs[0].now);
  CHECK(diffs[1].name == "test_command");

  fs::remove(dir / "tests" / "bench.py");
  now.erase("schema header");
  diffs = set.verify(dir, now);
  REQUIRE(diffs.size() == 3);
  CHECK(diffs[0].message.find("missing") != std::string::npos);
  CHECK(diffs[1].message.find("no current value") != std::string::npos);

  // JSON round trip.
  FrozenSet back = FrozenSet::fromJson(set.toJson());
  CHECK(back == set);
  CHECK_THROWS(FrozenSet::fromJson(nlohmann::json::parse(R"([{"name":"x","kind":"blob","sha256":"a"}])")));
  CHECK_THROWS(FrozenSet::fromJson(nlohmann::json::parse(R"([{"name":"x","kind":"file","sha256":"a"}])")));
  fs::remove_all(dir);
}
