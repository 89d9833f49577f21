// Small, self-contained helpers of the native bench harness: random numbers, statistics, SNR,
// number formatting and the host facts (LLC size, CPU model) the harness records.
// Header-only so the kernel folder builds with one compiler line and no library.
#ifndef KOPT_CPU_BENCH_UTIL_H
#define KOPT_CPU_BENCH_UTIL_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <dirent.h>
#include <unistd.h>
#include <vector>

namespace bench {

// splitmix64: tiny, statistically good enough for test data, identical on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1), 24 random bits: exactly representable in fp32.
  float uniform() { return static_cast<float>(static_cast<double>(next() >> 40) * 0x1p-23 - 1.0); }

 private:
  std::uint64_t state_;
};

inline std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

inline void fill_uniform(std::vector<float>& v, Rng& rng) {
  for (float& x : v) x = rng.uniform();
}

// Fast fill for the large timing pool (tens of MB per run): xorshift64, two 23-bit mantissas per
// step, mapped to [-1, 1). Quality is irrelevant there; speed and distinct contents are not.
inline void fill_fast(float* p, std::size_t n, std::uint64_t seed) {
  std::uint64_t s = seed | 1;
  std::size_t i = 0;
  auto to_float = [](std::uint32_t mantissa) {
    const std::uint32_t bits = 0x3F800000u | (mantissa & 0x7FFFFFu);  // [1, 2)
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return (f - 1.5f) * 2.0f;
  };
  for (; i + 2 <= n; i += 2) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    p[i] = to_float(static_cast<std::uint32_t>(s));
    p[i + 1] = to_float(static_cast<std::uint32_t>(s >> 32));
  }
  if (i < n) p[i] = to_float(static_cast<std::uint32_t>(s >> 20));
}

// Order-sensitive hash of a buffer's bits: detects a kernel that writes into its inputs.
inline std::uint64_t hash_floats(const float* p, std::size_t n) {
  std::uint64_t h = 0x84222325cbf29ce4ull;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    h = (h ^ bits) * 0x100000001b3ull;
  }
  return h;
}

// 10*log10(|ref|^2 / |out-ref|^2): +inf when out == ref exactly, NaN when out holds NaN/Inf
// (every comparison with NaN is false, so a NaN SNR can never pass a threshold).
inline double snr_db(const double* ref, const double* out, std::size_t n) {
  double signal = 0.0, noise = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(out[i])) return std::numeric_limits<double>::quiet_NaN();
    const double d = out[i] - ref[i];
    signal += ref[i] * ref[i];
    noise += d * d;
  }
  if (noise == 0.0) return std::numeric_limits<double>::infinity();
  if (signal == 0.0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

inline double snr_db(const double* ref, const float* out, std::size_t n) {
  std::vector<double> o(out, out + n);
  return snr_db(ref, o.data(), n);
}

inline double mean(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// Population standard deviation (divide by n): the convention of the frozen `_stddev` columns.
inline double pstddev(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}

// Relative spread used by the stopping rule: sample stddev (n-1) over the mean.
inline double rsd(const std::vector<double>& v) {
  if (v.size() < 2) return std::numeric_limits<double>::infinity();
  const double m = mean(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1)) / m;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// %.6g, but NaN is always "nan" (glibc would print "-nan" for a negative NaN).
inline std::string fmt(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// Shortest of %.15g..%.17g that reads back as the same double: exact for machines (samples file,
// parent/child pipe), short for people.
inline std::string fmt_exact(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Last-level cache size in bytes: sysfs (the largest cache level of cpu0), then sysconf, then a
// conservative 32 MiB. The timing pool must exceed it for timed calls to start cold.
inline std::size_t llc_bytes() {
  std::size_t best = 0;
  int best_level = 0;
  for (int idx = 0; idx < 16; ++idx) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(idx) + "/";
    std::ifstream level_f(dir + "level"), size_f(dir + "size");
    if (!level_f || !size_f) continue;
    int level = 0;
    std::string size_s;
    level_f >> level;
    size_f >> size_s;
    if (size_s.empty()) continue;
    std::size_t value = std::strtoull(size_s.c_str(), nullptr, 10);
    const char unit = size_s.back();
    if (unit == 'K') value <<= 10;
    if (unit == 'M') value <<= 20;
    if (unit == 'G') value <<= 30;
    if (level > best_level || (level == best_level && value > best)) {
      best_level = level;
      best = value;
    }
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v > 0) best = static_cast<std::size_t>(v);
  }
#endif
  return best ? best : (std::size_t{32} << 20);
}

// Threads of this process now: the entries of /proc/self/task; -1 where it cannot be read.
inline int thread_count() {
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n;
}

inline std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  }
  return "unknown cpu";
}

}  // namespace bench

#endif  // KOPT_CPU_BENCH_UTIL_H
