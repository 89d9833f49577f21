#include "util/time_format.h"

#include <doctest/doctest.h>

#include <regex>

using namespace kopt::util;

TEST_CASE("ISO-8601 UTC with milliseconds") {
  SystemTime t = std::chrono::system_clock::from_time_t(1775986205) + std::chrono::milliseconds(123);
  CHECK(formatIso8601Utc(t) == "2026-04-12T09:30:05.123Z");
}

TEST_CASE("manifest created and compact date have the contract's shapes") {
  auto now = std::chrono::system_clock::now();
  CHECK(std::regex_match(formatManifestCreated(now), std::regex(R"(\d{4}-\d{2}-\d{2} \d{2}:\d{2})")));
  CHECK(std::regex_match(formatCompactDate(now), std::regex(R"(\d{8})")));
  // Same local day in both.
  std::string created = formatManifestCreated(now), compact = formatCompactDate(now);
  CHECK(created.substr(0, 4) + created.substr(5, 2) + created.substr(8, 2) == compact);
}
