#pragma once
// "3.05%" without snprintf or temporaries: per-shape notes are built for every shape of a round,
// and at 100k shapes formatting dominated the gate.
#include <cmath>
#include <string>

namespace kopt::measure {

// Appends 100 * relative with two decimals and a '%' sign; `plus` writes '+' before positives.
inline void appendPercent(std::string& out, double relative, bool plus = false) {
  if (!std::isfinite(relative)) {
    out += std::isnan(relative) ? "nan%" : (relative > 0 ? "inf%" : "-inf%");
    return;
  }
  long long hundredths = std::llround(relative * 10000.0);
  if (hundredths < 0) {
    out.push_back('-');
    hundredths = -hundredths;
  } else if (plus) {
    out.push_back('+');
  }
  char digits[24];
  int n = 0;
  long long whole = hundredths / 100;
  do {
    digits[n++] = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole);
  while (n) out.push_back(digits[--n]);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + (hundredths % 100) / 10));
  out.push_back(static_cast<char>('0' + hundredths % 10));
  out.push_back('%');
}

inline std::string percentText(double relative, bool plus = false) {
  std::string out;
  appendPercent(out, relative, plus);
  return out;
}

}  // namespace kopt::measure
