#include "campaign/report/svg_support.h"

#include <doctest/doctest.h>

#include <cmath>

namespace svg = kopt::campaign::report::svg;

TEST_CASE("escape turns markup characters into entities and drops forbidden control characters") {
  CHECK(svg::escape("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  CHECK(svg::escape(std::string("x\x01y\x1fz")) == "xyz");
  CHECK(svg::escape("line\nbreak\ttab") == "line break tab");
  CHECK(svg::escape("M=1024 \xC2\xB5s") == "M=1024 \xC2\xB5s");  // UTF-8 passes through
}

TEST_CASE("fixed is locale-free and keeps NaN and infinities readable") {
  CHECK(svg::fixed(3.14159, 2) == "3.14");
  CHECK(svg::fixed(-0.0001, 2) == "0.00");
  CHECK(svg::fixed(std::nan(""), 2) == "NaN");
  CHECK(svg::fixed(INFINITY, 2) == "inf");
  CHECK(svg::fixed(-INFINITY, 2) == "-inf");
  CHECK(svg::signedPercent(8.3634, 3) == "+8.363%");
  CHECK(svg::signedPercent(-2.5, 1) == "-2.5%");
  CHECK(svg::signedPercent(std::nan(""), 1) == "n/a");
  CHECK(svg::coord(12.5) == "12.5");
  CHECK(svg::coord(12.0) == "12");
  CHECK(svg::coord(std::nan("")) == "0");
}

TEST_CASE("niceTicks covers the range with 1/2/5 steps") {
  auto t = svg::niceTicks(281, 304, 6);
  CHECK(t.lo <= 281);
  CHECK(t.hi >= 304);
  CHECK(t.step == doctest::Approx(5));
  CHECK(t.values.front() == doctest::Approx(t.lo));
  CHECK(t.values.back() == doctest::Approx(t.hi));
  CHECK(t.decimals == 0);

  auto small = svg::niceTicks(0.0012, 0.0019, 5);
  CHECK(small.step == doctest::Approx(0.0002));
  CHECK(small.decimals == 4);

  SUBCASE("a single value still gets a band") {
    auto one = svg::niceTicks(42, 42, 5);
    CHECK(one.lo < 42);
    CHECK(one.hi > 42);
    CHECK(one.values.size() >= 2);
  }
  SUBCASE("non-finite input falls back to 0..1") {
    auto bad = svg::niceTicks(std::nan(""), 3, 5);
    CHECK(bad.values.size() == 3);
  }
}

TEST_CASE("the diverging scale is red below zero, blue above, neutral at zero and clamped") {
  auto neg = svg::diverging(-1), pos = svg::diverging(1), mid = svg::diverging(0);
  CHECK(neg.r > neg.b);
  CHECK(pos.b > pos.r);
  CHECK(mid.r == mid.g);
  CHECK(svg::hex(svg::diverging(-5)) == svg::hex(neg));
  CHECK(svg::hex(svg::diverging(std::nan(""))) == svg::hex(mid));
  CHECK(svg::hex({255, 0, 16}) == "#ff0010");
}
