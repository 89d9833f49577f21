// Distribution functions the gate needs (Student t, normal) and Holm's step-down adjustment.
// Written out here rather than pulled from a library: they are few, and exact small-df t
// quantiles matter (5-8 pairs means 4-7 degrees of freedom, far from normal).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "measure/statistics.h"

namespace kopt::measure {

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz).
double betaContinuedFraction(double a, double b, double x) {
  constexpr int kMaxIterations = 300;
  constexpr double kEps = 1e-15;
  constexpr double kTiny = 1e-300;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= kMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kEps) break;
  }
  return h;
}

// log B(a, b)^-1 = lgamma(a+b) - lgamma(a) - lgamma(b). The gate asks for the same (a, b) for
// every shape of a round (same pair count), so the last answer is kept per thread.
double logInverseBeta(double a, double b) {
  thread_local double lastA = -1.0, lastB = -1.0, lastValue = 0.0;
  if (a != lastA || b != lastB) {
    lastA = a;
    lastB = b;
    lastValue = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  }
  return lastValue;
}

// I_x(a, b).
double regularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double logFront = logInverseBeta(a, b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(logFront);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * betaContinuedFraction(a, b, x) / a;
  return 1.0 - front * betaContinuedFraction(b, a, 1.0 - x) / b;
}

}  // namespace

double studentTUpperTail(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  // P(T > |t|) = 0.5 * I_{df/(df+t^2)}(df/2, 1/2).
  const double x = df / (df + t * t);
  const double tail = 0.5 * regularizedIncompleteBeta(0.5 * df, 0.5, x);
  return t >= 0 ? tail : 1.0 - tail;
}

double studentTQuantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.5) return 0.0;
  const bool upper = p > 0.5;
  const double tail = upper ? 1.0 - p : p;  // find t > 0 with P(T > t) = tail
  double lo = 0.0, hi = 1.0;
  while (studentTUpperTail(hi, df) > tail && hi < 1e12) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (studentTUpperTail(mid, df) > tail) lo = mid;
    else hi = mid;
  }
  const double t = 0.5 * (lo + hi);
  return upper ? t : -t;
}

double normalQuantile(double p) {
  if (!(p > 0.0 && p < 1.0)) return std::numeric_limits<double>::quiet_NaN();
  // Bisection on the CDF 0.5 * erfc(-x / sqrt 2): slow but exact to double precision, and it is
  // called a handful of times per gate.
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<double> holmAdjust(const std::vector<double>& pValues) {
  const std::size_t k = pValues.size();
  // (p, index) pairs: ties broken by position, so the result never depends on the sort.
  std::vector<std::pair<double, std::size_t>> order(k);
  for (std::size_t i = 0; i < k; ++i) order[i] = {std::isnan(pValues[i]) ? 1.0 : pValues[i], i};
  std::sort(order.begin(), order.end());
  std::vector<double> adjusted(k, 1.0);
  double running = 0.0;
  for (std::size_t rank = 0; rank < k; ++rank) {
    const std::size_t i = order[rank].second;
    const double p = order[rank].first;
    running = std::max(running, std::min(1.0, static_cast<double>(k - rank) * p));
    adjusted[i] = running;
  }
  return adjusted;
}

double minimumDetectableEffect(double sdLogRatio, std::size_t pairs, double alpha, double delta, double power) {
  if (pairs < 2) return std::numeric_limits<double>::infinity();
  const double df = static_cast<double>(pairs - 1);
  const double se = sdLogRatio / std::sqrt(static_cast<double>(pairs));
  const double q = studentTQuantile(1.0 - alpha / 2.0, df);
  return std::max(delta, q * se) + studentTQuantile(power, df) * se;
}

}  // namespace kopt::measure
