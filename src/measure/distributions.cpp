// Distribution functions the gate needs (Student t, normal) and Holm's step-down adjustment.
// Written out here rather than pulled from a library: they are few, and exact small-df t
// quantiles matter (5-8 pairs means 4-7 degrees of freedom, far from normal).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
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

namespace {

double upperNormalTail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }
double normalDensity(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI); }

// Simpson grid of 2m + 1 points on [-b, b] with step about h.
struct Grid {
  std::vector<double> x, w;
  Grid(double b, double h) {
    const std::size_t m = static_cast<std::size_t>(std::max(8.0, std::ceil(b / h)));
    const std::size_t n = 2 * m + 1;
    const double step = 2.0 * b / static_cast<double>(n - 1);
    x.resize(n);
    w.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = -b + step * static_cast<double>(i);
      w[i] = step / 3.0 * (i == 0 || i + 1 == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
    }
  }
};

// P(|S_j| >= c sqrt(j) at some j <= looks), S_j a sum of j independent N(0, 1): Pocock's
// boundary on the cumulative z statistic of equally spaced looks. Summed as crossing
// probabilities (never 1 - P(no crossing), which cancels at the tiny levels Holm's first step
// asks for at 100k shapes): the density of S_j on the continuation region is carried from look
// to look by convolution with the N(0, 1) increment.
double pocockCrossing(int looks, double c) {
  constexpr double h = 0.025;  // Simpson on a unit-sd Gaussian kernel: ~1e-8 relative error
  double p = 2.0 * upperNormalTail(c);
  Grid grid(c, h);
  std::vector<double> f(grid.x.size());
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = normalDensity(grid.x[i]);
  for (int j = 1; j < looks; ++j) {
    const double b = c * std::sqrt(static_cast<double>(j + 1));
    for (std::size_t i = 0; i < f.size(); ++i)
      p += grid.w[i] * f[i] * (upperNormalTail(b - grid.x[i]) + upperNormalTail(b + grid.x[i]));
    if (j + 1 == looks) break;
    Grid next(b, h);
    std::vector<double> g(next.x.size(), 0.0);
    for (std::size_t k = 0; k < g.size(); ++k) {
      double sum = 0.0;
      for (std::size_t i = 0; i < f.size(); ++i) sum += grid.w[i] * f[i] * normalDensity(next.x[k] - grid.x[i]);
      g[k] = sum;
    }
    grid = std::move(next);
    f = std::move(g);
  }
  return p;
}

}  // namespace

double pocockCritical(int looks, double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0) || looks < 1) return std::numeric_limits<double>::quiet_NaN();
  if (looks == 1) return normalQuantile(1.0 - alpha / 2.0);
  // The gate asks for the same few (looks, alpha) every round: solve once per process.
  static std::mutex mutex;
  static std::map<std::pair<int, double>, double> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find({looks, alpha});
    if (it != cache.end()) return it->second;
  }
  // Bracket: one look's quantile crosses too often, Bonferroni over the looks too rarely.
  double lo = normalQuantile(1.0 - alpha / 2.0), hi = normalQuantile(1.0 - alpha / (2.0 * looks));
  auto f = [&](double c) { return std::log(pocockCrossing(looks, c)) - std::log(alpha); };
  double flo = f(lo), fhi = f(hi);
  // Illinois regula falsi: log P is nearly linear in c, a handful of evaluations suffice.
  int side = 0;
  double c = hi;
  for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
    c = (lo * fhi - hi * flo) / (fhi - flo);
    const double fc = f(c);
    if (fc == 0.0) break;
    if ((fc > 0) == (flo > 0)) {
      lo = c;
      flo = fc;
      if (side == -1) fhi /= 2;
      side = -1;
    } else {
      hi = c;
      fhi = fc;
      if (side == 1) flo /= 2;
      side = 1;
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(std::make_pair(looks, alpha), c);
  return c;
}

double pocockNominalAlpha(int looks, double alpha) {
  if (looks <= 1) return alpha;
  return 2.0 * upperNormalTail(pocockCritical(looks, alpha));
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
  return minimumDetectableEffect(sdLogRatio, pairs, alpha, delta, power, 0.0);
}

double minimumDetectableEffect(double sdLogRatio, std::size_t pairs, double alpha, double delta, double power,
                               double seFloor) {
  if (pairs < 2) return std::numeric_limits<double>::infinity();
  const double df = static_cast<double>(pairs - 1);
  const double se = std::max(sdLogRatio / std::sqrt(static_cast<double>(pairs)), seFloor);
  const double q = studentTQuantile(1.0 - alpha / 2.0, df);
  return std::max(delta, q * se) + studentTQuantile(power, df) * se;
}

}  // namespace kopt::measure
