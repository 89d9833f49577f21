#include "campaign/report/svg_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kopt::campaign::report::svg {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t':
      case '\n':
      case '\r': out += ' '; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) break;  // forbidden in XML 1.0
        out += c;
    }
  }
  return out;
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  decimals = std::clamp(decimals, 0, 9);
  char buf[64];
  // snprintf honours LC_NUMERIC; kopt never calls setlocale, but a host program might, so the
  // decimal separator is normalised explicitly.
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string out(buf);
  for (char& c : out)
    if (c == ',') c = '.';
  if (out == "-0" || out.rfind("-0.", 0) == 0) {
    bool allZero = std::all_of(out.begin() + 1, out.end(), [](char c) { return c == '0' || c == '.'; });
    if (allZero) out.erase(0, 1);
  }
  return out;
}

std::string signedPercent(double pct, int decimals) {
  if (!std::isfinite(pct)) return "n/a";
  std::string body = fixed(pct, decimals);
  if (body[0] != '-') body = "+" + body;
  return body + "%";
}

std::string coord(double value) {
  if (!std::isfinite(value)) return "0";
  std::string out = fixed(value, 2);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

namespace {

double niceStep(double span, int target) {
  double raw = span / std::max(1, target);
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double fraction = raw / magnitude;
  double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * magnitude;
}

}  // namespace

Ticks niceTicks(double lo, double hi, int target) {
  Ticks ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    ticks.values = {0, 0.5, 1};
    ticks.step = 0.5;
    ticks.decimals = 1;
    return ticks;
  }
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {
    double pad = std::fabs(hi) > 0 ? std::fabs(hi) * 0.05 : 1.0;
    lo -= pad;
    hi += pad;
  }
  double step = niceStep(hi - lo, target);
  ticks.step = step;
  ticks.lo = std::floor(lo / step) * step;
  ticks.hi = std::ceil(hi / step) * step;
  ticks.decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  for (double v = ticks.lo; v <= ticks.hi + step * 0.5; v += step) {
    ticks.values.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    if (ticks.values.size() > 50) break;  // defensive: never loop on a degenerate step
  }
  return ticks;
}

std::string hex(Rgb colour) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", std::clamp(colour.r, 0, 255), std::clamp(colour.g, 0, 255),
                std::clamp(colour.b, 0, 255));
  return buf;
}

Rgb mix(Rgb a, Rgb b, double t) {
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0);
  auto lerp = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
  return {lerp(a.r, b.r), lerp(a.g, b.g), lerp(a.b, b.b)};
}

Rgb diverging(double t) {
  // ColorBrewer-like RdBu end points with a warm-neutral centre.
  const Rgb red{178, 24, 43}, lightRed{244, 165, 130}, centre{247, 247, 247}, lightBlue{146, 197, 222},
      blue{33, 102, 172};
  if (!std::isfinite(t)) return centre;
  t = std::clamp(t, -1.0, 1.0);
  if (t < 0) {
    double u = -t;
    return u < 0.5 ? mix(centre, lightRed, u * 2) : mix(lightRed, red, (u - 0.5) * 2);
  }
  return t < 0.5 ? mix(centre, lightBlue, t * 2) : mix(lightBlue, blue, (t - 0.5) * 2);
}

}  // namespace kopt::campaign::report::svg
