#pragma once
// Small pieces both charts need: XML escaping, locale-free number formatting, "nice" axis ticks
// and colour interpolation. Hand-written SVG keeps the charts free of scripts and external fonts,
// so they render the same in a browser, an IDE preview and rsvg.
#include <string>
#include <string_view>
#include <vector>

namespace kopt::campaign::report::svg {

// Escapes & < > " ' for use in element text and attribute values; drops control characters that
// XML 1.0 forbids (a label is user data and must never make the file unparsable).
std::string escape(std::string_view text);

// Fixed-point with `decimals` digits, '.' as the separator whatever the locale; "NaN"/"inf" kept
// readable. Trailing zeros are kept so columns line up.
std::string fixed(double value, int decimals);
// Signed percent with `decimals` digits: "+3.20%", "-0.50%", "n/a" for NaN.
std::string signedPercent(double pct, int decimals);
// A coordinate for an SVG attribute: at most 2 decimals, no trailing zeros.
std::string coord(double value);

// Ticks covering [lo, hi] at a 1/2/5 x 10^k step, about `target` of them; lo/hi are widened to
// the first and last tick. lo == hi gets a small band around the value.
struct Ticks {
  double lo = 0;
  double hi = 1;
  double step = 1;
  std::vector<double> values;
  int decimals = 0;  // enough digits to tell the ticks apart
};
Ticks niceTicks(double lo, double hi, int target = 5);

struct Rgb {
  int r = 0, g = 0, b = 0;
};
std::string hex(Rgb colour);  // "#rrggbb"
Rgb mix(Rgb a, Rgb b, double t);  // t in [0,1], clamped
// Diverging scale around 0: -1 -> red, 0 -> near-white, +1 -> blue (clamped). Red/blue rather than
// red/green so the heatmap reads for the common forms of colour blindness.
Rgb diverging(double t);

// The font stack: generic families only, nothing to download.
inline constexpr const char* kFontFamily = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

}  // namespace kopt::campaign::report::svg
