#include "tools/output_limits.h"

#include <doctest/doctest.h>

using namespace kopt::tools;

TEST_CASE("short text passes through untouched") {
  auto w = windowText("hello", 0, 100);
  CHECK(w.text == "hello");
  CHECK_FALSE(w.truncated());
  CHECK(withTruncationMarker(w, "x") == "hello");
}

TEST_CASE("long text is cut with a marker naming the next offset, and paging reassembles it") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "line " + std::to_string(i) + "\n";
  auto first = windowText(text, 0, 100);
  CHECK(first.end == 100);
  std::string shown = withTruncationMarker(first, "build.log");
  CHECK(shown.find("[kopt: truncated build.log: bytes 0-100 of " + std::to_string(text.size()) +
                   " shown; call again with \"offset\": 100 for more]") != std::string::npos);
  std::string joined;
  for (std::size_t offset = 0; offset < text.size();) {
    auto w = windowText(text, offset, 333);
    joined += w.text;
    REQUIRE(w.end > offset);
    offset = w.end;
  }
  CHECK(joined == text);
  auto last = windowText(text, text.size() - 10, 100);
  CHECK(withTruncationMarker(last, "build.log").find("smaller \"offset\"") != std::string::npos);
}

TEST_CASE("cuts never split a UTF-8 code point and invalid bytes are replaced") {
  std::string text = "ab\xE2\x82\xAC\xE2\x82\xAC";  // "ab€€"
  auto w = windowText(text, 0, 4);                 // would end inside the first euro sign
  CHECK(w.text == "ab");
  CHECK(w.end == 2);
  auto mid = windowText(text, 3, 100);  // starts inside a code point: moved back
  CHECK(mid.offset == 2);
  CHECK(mid.text == "\xE2\x82\xAC\xE2\x82\xAC");
  auto bad = windowText(std::string("x\xFFy"), 0, 100);
  CHECK(bad.text == "x\xEF\xBF\xBDy");
}

TEST_CASE("tailWithMarker keeps the end of a log") {
  std::string log(1000, 'a');
  log += "error: boom\n";
  std::string tail = tailWithMarker(log, 20, "test.log", "read kopt://campaign/c/round/2/artifacts/test.log");
  CHECK(tail.rfind("[kopt: truncated test.log: last 20 of 1012 bytes shown; read kopt://", 0) == 0);
  CHECK(tail.find("error: boom\n") != std::string::npos);
  CHECK(tailWithMarker("short", 20, "x") == "short");
}

TEST_CASE("offset and limit arguments are validated with the field named") {
  PageArguments page;
  CHECK_FALSE(readPageArguments(nlohmann::json::object(), page));
  CHECK(page.limit == kDefaultTextLimit);
  CHECK_FALSE(readPageArguments({{"offset", 10}, {"limit", 50}}, page));
  CHECK(page.offset == 10);
  CHECK(page.limit == 50);
  auto bad = readPageArguments({{"limit", 0}}, page);
  REQUIRE(bad);
  CHECK(bad->isError);
  CHECK(bad->content[0]["text"].get<std::string>().find("argument 'limit'") != std::string::npos);
  auto fractional = readPageArguments({{"offset", 1.5}}, page);
  REQUIRE(fractional);
  CHECK(fractional->content[0]["text"].get<std::string>().find("argument 'offset': must be a whole number") !=
        std::string::npos);
  CHECK(pageArgumentProperties().contains("offset"));
}

TEST_CASE("pagedTextResult links the whole resource when the text was cut") {
  PageArguments page;
  page.limit = 10;
  auto r = pagedTextResult(std::string(50, 'x'), page, "summary.md", "kopt://campaign/c/round/2/summary", "text/markdown");
  REQUIRE(r.content.size() == 2);
  CHECK(r.content[1]["type"] == "resource_link");
  CHECK(r.content[1]["uri"] == "kopt://campaign/c/round/2/summary");
  page.limit = 100;
  CHECK(pagedTextResult("short", page, "x", "kopt://x").content.size() == 1);
}
