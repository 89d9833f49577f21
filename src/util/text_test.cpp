#include "util/text.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace kopt::util;

TEST_CASE("UTF-8 validation rejects overlongs, surrogates, truncation and stray bytes") {
  CHECK(isValidUtf8("plain ascii"));
  CHECK(isValidUtf8("caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80"));
  CHECK_FALSE(isValidUtf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(isValidUtf8("\xED\xA0\x80"));      // surrogate
  CHECK_FALSE(isValidUtf8("\xE2\x80"));          // truncated
  CHECK_FALSE(isValidUtf8("\x80"));              // stray continuation
  CHECK_FALSE(isValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  CHECK(sanitizeUtf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(isValidUtf8(sanitizeUtf8("\xC0\xAF\xE2\x80")));
}

TEST_CASE("truncateUtf8 never splits a code point") {
  std::string s = "ab\xE2\x80\x94";  // "ab—"
  CHECK(truncateUtf8(s, 4) == "ab");
  CHECK(truncateUtf8(s, 5) == s);
  CHECK(truncateUtf8(s, 100) == s);
}

TEST_CASE("string helpers") {
  CHECK(trim("  x y \n") == "x y");
  CHECK(toLower("TriTON") == "triton");
  CHECK(toUpper("gfx942") == "GFX942");
  CHECK(startsWith("optimize/x", "optimize/"));
  CHECK_FALSE(startsWith("op", "optimize/"));
  CHECK(endsWith("tips.md", ".md"));
  CHECK(containsIgnoreCase("Use LDS Padding", "lds padding"));
  CHECK(split("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
  CHECK(split("", ',') == std::vector<std::string>{""});
  CHECK(join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(replaceAll("a|b|c", "|", "\\|") == "a\\|b\\|c");
  CHECK(splitLines("a\r\nb\nc") == std::vector<std::string>{"a", "b", "c"});
  CHECK(splitLines("a\n") == std::vector<std::string>{"a"});
}

TEST_CASE("formatSignedPercent has a sign, fixed decimals, and no negative zero") {
  CHECK(formatSignedPercent(8.3629) == "+8.363%");
  CHECK(formatSignedPercent(-0.5) == "-0.500%");
  CHECK(formatSignedPercent(-0.0001) == "+0.000%");
  CHECK(formatSignedPercent(6.0, 1) == "+6.0%");
  CHECK(formatSignedPercent(NAN) == "n/a");
}
