#include "util/text_scanner.h"

#include <doctest/doctest.h>

#include <string>

using kopt::util::TextScanner;

TEST_CASE("scanner: take, identifiers, digits and spaces move the cursor only when they match") {
  TextScanner s("  #define TILE_M 64");
  CHECK(s.skipSpaces() == 2);
  CHECK_FALSE(s.take('x'));
  CHECK(s.take('#'));
  CHECK_FALSE(s.take("undef"));
  CHECK(s.take("define"));
  CHECK(s.skipSpaces() == 1);
  CHECK(s.identifier() == "TILE_M");
  CHECK(s.skipSpaces() == 1);
  CHECK(s.identifier().empty());  // a digit cannot start one
  CHECK(s.digits() == "64");
  CHECK(s.atEnd());
  CHECK(s.peek() == '\0');
  CHECK_FALSE(s.take('\0'));  // the end is not a character
}

TEST_CASE("scanner: identifiers take the extra characters asked for; rewind goes back") {
  TextScanner s("block.size-x = 3");
  const auto mark = s.position();
  CHECK(s.identifier() == "block");
  s.rewind(mark);
  CHECK(s.identifier(".-") == "block.size-x");
  CHECK(s.rest() == " = 3");
  CHECK(s.between(0, 5) == "block");
  s.rewind(1000);
  CHECK(s.atEnd());
}

TEST_CASE("scanner: a megabyte line is scanned without recursion") {
  const std::string line = "#define X " + std::string(1 << 20, '7');
  TextScanner s(line);
  CHECK(s.take("#define X "));
  CHECK(s.digits().size() == (1u << 20));
  CHECK(s.atEnd());
}
