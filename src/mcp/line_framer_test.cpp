#include "mcp/line_framer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kopt::mcp;

namespace {

struct Collector {
  std::vector<std::string> lines;
  std::vector<std::size_t> overflows;
  LineFramer::LineHandler onLine = [this](std::string_view l) { lines.emplace_back(l); };
  LineFramer::OverflowHandler onOverflow = [this](std::size_t n) { overflows.push_back(n); };
};

}  // namespace

TEST_CASE("lines split across reads are joined; CR and blank lines are dropped") {
  LineFramer framer(100);
  Collector c;
  framer.feed("{\"a\":", c.onLine, c.onOverflow);
  CHECK(c.lines.empty());
  framer.feed("1}\r\n\n  \n{\"b\":2}\n{\"c\"", c.onLine, c.onOverflow);
  CHECK(c.lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
  framer.finish(c.onLine, c.onOverflow);
  CHECK(c.lines.back() == "{\"c\"");
}

TEST_CASE("an oversized line is dropped and reported once; the next line is fine") {
  LineFramer framer(10);
  Collector c;
  framer.feed("0123456789", c.onLine, c.onOverflow);  // exactly at the limit: fine
  framer.feed("\n", c.onLine, c.onOverflow);
  framer.feed("0123456789A", c.onLine, c.onOverflow);
  framer.feed("more bytes of the same line", c.onLine, c.onOverflow);
  framer.feed("\nok\n", c.onLine, c.onOverflow);
  CHECK(c.lines == std::vector<std::string>{"0123456789", "ok"});
  REQUIRE(c.overflows.size() == 1);
  CHECK(c.overflows[0] == 11 + 27);
}

TEST_CASE("an oversized unterminated line at EOF is reported") {
  LineFramer framer(4);
  Collector c;
  framer.feed("123456", c.onLine, c.onOverflow);
  framer.finish(c.onLine, c.onOverflow);
  CHECK(c.lines.empty());
  CHECK(c.overflows.size() == 1);
}
