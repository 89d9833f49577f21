// Small, self-contained helpers of the native bench harness: random numbers, statistics, SNR,
// number formatting, the host facts (LLC size, CPU model) the harness records, and the bench worker
// protocol's plumbing (namespace bench::wire, harness/WORKER-PROTOCOL.md) that kernels/cpu and
// kernels/cpu_grouped share.
// Header-only so the kernel folder builds with one compiler line and no library. The protocol code
// lives here rather than in a header of its own because kopt, its tests and users copy this folder
// by a fixed list of files (bench.cpp, bench_util.h, build.sh, ...): a new file would be missed.
#ifndef KOPT_CPU_BENCH_UTIL_H
#define KOPT_CPU_BENCH_UTIL_H

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <functional>
#include <unistd.h>
#include <utility>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <cstddef>
#endif

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

// fill_fast's values, stored past the cache where the CPU can (x86 non-temporal stores): a slice
// written just before its call is then read from memory, as one written long before and evicted.
// Elsewhere plain stores: the call's inputs may be in the cache there.
inline void fill_cold(float* p, std::size_t n, std::uint64_t seed) {
#if defined(__SSE2__)
  constexpr std::size_t kChunk = 1024;  // floats generated on the stack, then streamed out
  alignas(16) float tmp[kChunk];
  std::size_t i = 0;
  // Plain stores up to the first 16-byte boundary; the stream stores need it.
  while (i < n && (reinterpret_cast<std::uintptr_t>(p + i) & 15u) != 0) {
    fill_fast(p + i, 1, seed ^ (0x68656164ull + i));
    ++i;
  }
  for (std::uint64_t chunk = 0; i < n; ++chunk) {
    const std::size_t m = std::min(kChunk, n - i);
    fill_fast(tmp, m, seed ^ (chunk * 0x9E3779B97F4A7C15ull));
    std::size_t j = 0;
    for (; j + 4 <= m; j += 4) _mm_stream_si128(reinterpret_cast<__m128i*>(p + i + j), _mm_load_si128(reinterpret_cast<const __m128i*>(tmp + j)));
    for (; j < m; ++j) p[i + j] = tmp[j];
    i += m;
  }
  _mm_sfence();  // the stream stores are visible before the call reads them
#else
  fill_fast(p, n, seed);
#endif
}

// Order-sensitive hash of a buffer's bits: detects a kernel that writes into its inputs.
// 64 random bits from the operating system, by a raw system call: no libc symbol that a kernel
// library could interpose, and nothing derived from the seed in argv or a request, which the
// kernel in this process can read (docs/integrity.md, referee hole 8). Exits when the system has
// no source, rather than check with predictable numbers.
inline std::uint64_t fresh_random64() {
  std::uint64_t v = 0;
  if (syscall(SYS_getrandom, &v, sizeof v, 0) == static_cast<long>(sizeof v)) return v;
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && read(fd, &v, sizeof v) == static_cast<ssize_t>(sizeof v);
  if (fd >= 0) close(fd);
  if (!ok) {
    std::fprintf(stderr, "cpu_gemm_bench: no random source (getrandom, /dev/urandom); refusing to check calls\n");
    std::exit(2);
  }
  return v;
}

// FNV-1a over the floats' bits from a secret start (`key`, fresh per call): a kernel that writes
// its inputs cannot aim for an unchanged hash without the key.
inline std::uint64_t hash_floats(const float* p, std::size_t n, std::uint64_t key) {
  std::uint64_t h = 0x84222325cbf29ce4ull ^ key;
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


// ---------------------------------------------------------------------------------------------
// Confinement of the process that calls the kernel (docs/integrity.md, class 8). The
// symbol audit sees only what the kernel object names; inline `syscall` instructions name
// nothing. So before the first kernel call the harness installs a seccomp filter, which no later
// code can lift: the process is killed (SIGSYS) on a system call that starts processes or
// threads (fork, clone, clone3, exec), reaches other processes (ptrace, process_vm_*, kill of
// anyone but itself), runs code later or elsewhere (timers, signal handlers, io_uring, aio),
// makes memory executable (mmap/mprotect with PROT_EXEC: patching the harness's code) or
// changes the filter. The harness itself needs none of these once it is confined: the CLI mode
// confines each shape's forked child, the worker its whole process after the channel is open.
// Returns "" once confined, else why not (a kernel or architecture without seccomp filters):
// the caller says so and goes on, since the censuses behind it still catch threads and strays.
inline std::string confine_kernel_calls() {
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
#else
  constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
#endif
  std::vector<sock_filter> f;
  auto stmt = [&](std::uint16_t code, std::uint32_t k) { f.push_back(BPF_STMT(code, k)); };
  auto jump = [&](std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
    f.push_back(BPF_JUMP(code, k, jt, jf));
  };
  const std::uint32_t kKill = SECCOMP_RET_KILL_PROCESS, kAllow = SECCOMP_RET_ALLOW;
  const auto nr = static_cast<std::uint32_t>(offsetof(seccomp_data, nr));
  const auto arch = static_cast<std::uint32_t>(offsetof(seccomp_data, arch));
  auto arg_low = [](int i) { return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * i); };
  stmt(BPF_LD | BPF_W | BPF_ABS, arch);
  jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0);
  stmt(BPF_RET | BPF_K, kKill);
  stmt(BPF_LD | BPF_W | BPF_ABS, nr);
#if defined(__x86_64__)
  jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);  // the x32 ABI's numbers: not ours
  stmt(BPF_RET | BPF_K, kKill);
#endif
  const long denied[] = {
#ifdef SYS_fork
      SYS_fork,
#endif
#ifdef SYS_vfork
      SYS_vfork,
#endif
#ifdef SYS_alarm
      SYS_alarm,
#endif
#ifdef SYS_clone3
      SYS_clone3,
#endif
#ifdef SYS_io_uring_setup
      SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
      SYS_clone, SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
      SYS_setsid, SYS_setpgid, SYS_seccomp, SYS_prctl, SYS_rt_sigaction, SYS_setitimer, SYS_timer_create,
      SYS_io_setup, SYS_io_submit, SYS_shmat, SYS_socket, SYS_personality, SYS_userfaultfd};
  for (long n : denied) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(n), 0, 1);
    stmt(BPF_RET | BPF_K, kKill);
  }
  // System call n decided by the low 32 bits of one argument: `test` (BPF_JSET or BPF_JEQ) against
  // k gives `when_true`, else `when_false`. Other calls skip the block with nr still loaded.
  auto by_argument = [&](long n, int arg, std::uint16_t test, std::uint32_t k, std::uint32_t when_true,
                         std::uint32_t when_false) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(n), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, arg_low(arg));
    jump(BPF_JMP | test | BPF_K, k, 0, 1);
    stmt(BPF_RET | BPF_K, when_true);
    stmt(BPF_RET | BPF_K, when_false);
  };
  // mmap, mprotect, pkey_mprotect: the protection is the third argument; PROT_EXEC kills.
  for (long n : {static_cast<long>(SYS_mmap), static_cast<long>(SYS_mprotect), static_cast<long>(SYS_pkey_mprotect)}) {
    by_argument(n, 2, BPF_JSET, PROT_EXEC, kKill, kAllow);
  }
  // kill, tkill, tgkill: only this process itself (abort() raises SIGABRT that way).
  const auto self = static_cast<std::uint32_t>(::getpid());
  for (long n : {static_cast<long>(SYS_kill), static_cast<long>(SYS_tkill), static_cast<long>(SYS_tgkill)}) {
    by_argument(n, 0, BPF_JEQ, self, kAllow, kKill);
  }
  stmt(BPF_RET | BPF_K, kAllow);
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
    return std::string("seccomp filter: ") + std::strerror(errno);
  }
  return "";
#else
  return "no seccomp filter for this operating system or architecture";
#endif
}

// What a signal that ended a confined child says; SIGSYS is the filter's verdict.
inline std::string signal_text(int sig) {
  std::string text = "signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  if (sig == SIGSYS) {
    text += ": the kernel made a system call the harness forbids around its calls (processes, threads, "
            "exec, other processes, timers, signal handlers, executable memory: confine_kernel_calls)";
  }
  return text;
}

// confine_kernel_calls(), or a line on stderr that names why the calls run unconfined.
inline void confine_or_say(const char* harness) {
  const std::string why = confine_kernel_calls();
  if (!why.empty()) std::fprintf(stderr, "%s: the kernel's calls run unconfined (%s)\n", harness, why.c_str());
}

// The timing pool of a worker: two regions (0 and 1), each at least the last-level cache (8 MiB
// floor) and grown when a batch needs more fresh slices. A batch places its slices, reads the
// other region (at least the LLC) to evict what came before, and writes each slice from its own
// seed just before its call, past the cache: every call starts cold, no call sees an address and
// contents an earlier call saw, and none finds a later call's inputs written. Filled once at
// allocation, so the eviction reads real memory, not the shared zero page.
class WorkerPool {
 public:
  static constexpr std::size_t kMaxRegionBytes = std::size_t{1} << 30;

  // Makes each region hold at least `floats` floats; "" or why not.
  std::string reserve(std::size_t floats) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    std::size_t bytes = std::max<std::size_t>({llc_bytes(), std::size_t{8} << 20, floats * sizeof(float)});
    bytes = (bytes + kHuge - 1) / kHuge * kHuge;
    if (bytes <= region_ * sizeof(float)) return "";
    if (bytes > kMaxRegionBytes) return "needs " + std::to_string(bytes >> 20) + " MiB of fresh inputs per direction, above the " +
                                     std::to_string(kMaxRegionBytes >> 20) + " MiB cap";
    float* p = static_cast<float*>(std::aligned_alloc(kHuge, 2 * bytes));
    if (!p) return "cannot allocate " + std::to_string((2 * bytes) >> 20) + " MiB for the timing pool";
#ifdef MADV_HUGEPAGE
    ::madvise(p, 2 * bytes, MADV_HUGEPAGE);  // advisory: ignored where THP is off
#endif
    fill_fast(p, 2 * bytes / sizeof(float), 0x776f726b6572706full ^ bytes);
    if (!keep_) std::free(data_);  // a stray kernel thread may still read the old pool: then leak it
    data_ = p;
    region_ = bytes / sizeof(float);
    return "";
  }
  std::size_t region_floats() const { return region_; }
  // Where a batch's `calls` consecutive slices of `slot` floats lie in region r (at an offset
  // drawn from `seed`): placed, not written. Each is written by write_slice() just before its call,
  // so no call can read a later call's inputs (and compute it ahead: slice i + 1 is at a fixed
  // distance from the pointer call i gets). reserve(calls * slot) first.
  struct Slices {
    float* first = nullptr;
    std::size_t slot = 0;
    std::uint64_t seed = 0;
  };
  Slices place_slices(int r, std::size_t slot, std::size_t calls, std::uint64_t seed) const {
    Rng rng(seed ^ 0x736c696365736565ull);
    const std::size_t spare = region_ / slot - calls;  // whole slices left over
    float* first = data_ + static_cast<std::size_t>(r) * region_ + (rng.next() % (spare + 1)) * slot;
    return Slices{first, slot, rng.next()};
  }
  static const float* write_slice(const Slices& s, std::size_t i) {
    float* p = s.first + i * s.slot;
    fill_cold(p, s.slot, s.seed ^ (i * 0xD1B54A32D192ED03ull));
    return p;
  }
  // Reads the other region, so region r's slices are out of the cache when its calls start.
  void evict(int r) const {
    const float* other = data_ + static_cast<std::size_t>(1 - r) * region_;
    float sink = 0.0f;
    for (std::size_t i = 0; i < region_; i += 16) sink += other[i];  // one read per 64-byte line
    volatile float keep = sink;
    (void)keep;
  }
  void keep_forever() { keep_ = true; }

 private:
  float* data_ = nullptr;
  std::size_t region_ = 0;  // floats per region
  bool keep_ = false;
};

// ---------------------------------------------------------------------------------------------
// Bench worker protocol, version 1 (harness/WORKER-PROTOCOL.md): `<bench> --serve` answers JSON lines
// on stdin. Requests are flat JSON objects (strings, numbers, booleans, null), so this is a small
// strict reader for exactly those and a writer for the replies; no JSON library, so the harness
// still builds with one `c++` line in a user's repository.
namespace wire {

constexpr int kProtocol = 1;
constexpr std::size_t kMaxLine = std::size_t{1} << 20;  // longer requests are refused, not buffered

struct Value {
  enum class Kind { String, Number, Bool, Null };
  Kind kind = Kind::Null;
  std::string text;  // String: decoded contents; Number: the literal as sent; Bool: "true"/"false"
};

struct Object {
  std::vector<std::pair<std::string, Value>> members;
  const Value* find(const std::string& key) const {
    for (const auto& m : members)
      if (m.first == key) return &m.second;
    return nullptr;
  }
};

// Shown in errors: requests come from kopt, but an error must stay one short line.
inline std::string clip(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

// Strict RFC 8259 for one object of scalars: no trailing commas, no duplicate names, no raw control
// characters or invalid UTF-8 in strings, nothing after the closing brace. A nested object or array
// is refused by name: protocol 1 never sends one, so it can only be a mistake.
class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  std::string object(Object* out) {
    ws();
    if (!eat('{')) return "request: expected one JSON object per line";
    ws();
    if (eat('}')) return end();
    for (;;) {
      ws();
      if (peek() != '"') return "request: expected a member name in double quotes at byte " + std::to_string(i_);
      std::string key;
      if (std::string e = string(&key); !e.empty()) return "request: " + e;
      ws();
      if (!eat(':')) return "request: expected ':' after \"" + clip(key) + "\"";
      ws();
      Value v;
      if (std::string e = value(&v); !e.empty()) return clip(key) + ": " + e;
      if (out->find(key)) return clip(key) + ": given twice";
      out->members.emplace_back(std::move(key), std::move(v));
      ws();
      if (eat(',')) continue;
      if (eat('}')) return end();
      return "request: expected ',' or '}' at byte " + std::to_string(i_);
    }
  }

 private:
  int peek() const { return i_ < s_.size() ? static_cast<unsigned char>(s_[i_]) : -1; }
  bool eat(char c) {
    if (peek() != static_cast<unsigned char>(c)) return false;
    ++i_;
    return true;
  }
  void ws() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') ++i_;
  }
  std::string end() {
    ws();
    return i_ == s_.size() ? "" : "request: unexpected text after the object at byte " + std::to_string(i_);
  }
  bool literal(const char* word) {
    const std::size_t n = std::strlen(word);
    if (s_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  std::string value(Value* v) {
    const int c = peek();
    if (c == '"') {
      v->kind = Value::Kind::String;
      return string(&v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v->kind = Value::Kind::Number;
      return number(&v->text);
    }
    if (literal("true")) return v->kind = Value::Kind::Bool, v->text = "true", "";
    if (literal("false")) return v->kind = Value::Kind::Bool, v->text = "false", "";
    if (literal("null")) return v->kind = Value::Kind::Null, "";
    if (c == '{' || c == '[') return "nested objects and arrays are not part of worker protocol 1";
    return "not a JSON value at byte " + std::to_string(i_);
  }
  std::string number(std::string* out) {
    const std::size_t start = i_;
    auto digits = [&] {
      std::size_t n = 0;
      while (peek() >= '0' && peek() <= '9') ++i_, ++n;
      return n;
    };
    eat('-');
    if (eat('0')) {
      if (peek() >= '0' && peek() <= '9') return "a number has no leading zeros";
    } else if (digits() == 0) {
      return "malformed number";
    }
    if (eat('.') && digits() == 0) return "malformed number (digits must follow '.')";
    if (eat('e') || eat('E')) {
      if (!eat('+')) eat('-');
      if (digits() == 0) return "malformed number (digits must follow the exponent)";
    }
    *out = s_.substr(start, i_ - start);
    return "";
  }
  static void put_utf8(std::string* out, std::uint32_t cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(std::uint32_t* cp) {
    if (i_ + 4 > s_.size()) return false;
    *cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      *cp <<= 4;
      if (h >= '0' && h <= '9') *cp |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') *cp |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') *cp |= static_cast<std::uint32_t>(h - 'A' + 10);
      else return false;
    }
    return true;
  }
  // One UTF-8 sequence starting at i_ (lead byte >= 0x80): well-formed, shortest form, no surrogates.
  bool utf8_sequence(std::string* out) {
    const unsigned char lead = static_cast<unsigned char>(s_[i_]);
    int n = 0;
    std::uint32_t cp = 0, min = 0;
    if (lead >= 0xC2 && lead <= 0xDF) n = 1, cp = lead & 0x1F, min = 0x80;
    else if (lead >= 0xE0 && lead <= 0xEF) n = 2, cp = lead & 0x0F, min = 0x800;
    else if (lead >= 0xF0 && lead <= 0xF4) n = 3, cp = lead & 0x07, min = 0x10000;
    else return false;
    if (i_ + n >= s_.size()) return false;
    for (int k = 1; k <= n; ++k) {
      const unsigned char c = static_cast<unsigned char>(s_[i_ + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out->append(s_, i_, static_cast<std::size_t>(n) + 1);
    i_ += static_cast<std::size_t>(n) + 1;
    return true;
  }
  std::string string(std::string* out) {
    ++i_;  // the opening quote
    for (;;) {
      const int c = peek();
      if (c < 0) return "unterminated string";
      if (c == '"') return ++i_, "";
      if (c < 0x20) return "raw control character in a string (escape it)";
      if (c >= 0x80) {
        if (!utf8_sequence(out)) return "invalid UTF-8 in a string at byte " + std::to_string(i_);
        continue;
      }
      ++i_;
      if (c != '\\') {
        *out += static_cast<char>(c);
        continue;
      }
      const int e = peek();
      ++i_;
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          std::uint32_t cp = 0;
          if (!hex4(&cp)) return "malformed \\u escape";
          if (cp >= 0xDC00 && cp <= 0xDFFF) return "unpaired surrogate in a \\u escape";
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t lo = 0;
            if (!literal("\\u") || !hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return "unpaired surrogate in a \\u escape";
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default: return "unknown escape in a string";
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

inline std::string parse_object(const std::string& line, Object* out) { return Parser(line).object(out); }

// Typed access to a request's members. Each returns "" or the error, naming the member.
inline std::string get_string(const Object& o, const char* key, std::string* out) {
  const Value* v = o.find(key);
  if (!v) return std::string(key) + ": missing";
  if (v->kind != Value::Kind::String) return std::string(key) + ": expected a string";
  *out = v->text;
  return "";
}

// A seed is a decimal string: kopt's 63-bit seeds would lose bits as JSON numbers (doubles).
inline std::string get_seed(const Object& o, const char* key, std::uint64_t* out) {
  const Value* v = o.find(key);
  if (!v) return std::string(key) + ": missing (a decimal string, e.g. \"8213\")";
  const std::string why = std::string(key) + ": expected a decimal string of a non-negative integer below 2^64, got ";
  if (v->kind != Value::Kind::String) return why + (v->kind == Value::Kind::Number ? "the number " + clip(v->text) : "a non-string");
  const std::string& t = v->text;
  if (t.empty() || t.size() > 20 || t.find_first_not_of("0123456789") != std::string::npos) return why + "\"" + clip(t) + "\"";
  errno = 0;
  const unsigned long long s = std::strtoull(t.c_str(), nullptr, 10);
  if (errno == ERANGE) return why + "\"" + clip(t) + "\"";
  *out = s;
  return "";
}

// An integer literal (no fraction, no exponent) in [lo, hi].
inline std::string get_int(const Object& o, const char* key, long long lo, long long hi, long long* out) {
  const Value* v = o.find(key);
  const std::string why = std::string(key) + ": expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!v) return std::string(key) + ": missing";
  if (v->kind != Value::Kind::Number || v->text.find_first_of(".eE") != std::string::npos) return why;
  const std::string& t = v->text;
  if (t.size() > 18) return why + ", got " + clip(t);
  const long long n = std::strtoll(t.c_str(), nullptr, 10);
  if (n < lo || n > hi) return why + ", got " + t;
  *out = n;
  return "";
}

// Replies: members in the order written. Non-finite numbers become null (JSON has no NaN).
class Writer {
 public:
  Writer& str(const char* key, const std::string& v) { return raw(key, "\"" + json_escape(v) + "\""); }
  Writer& num(const char* key, double v) { return raw(key, number(v)); }
  Writer& integer(const char* key, long long v) { return raw(key, std::to_string(v)); }
  Writer& null(const char* key) { return raw(key, "null"); }
  Writer& raw(const char* key, const std::string& json) {
    body_ += (body_.empty() ? "\"" : ",\"") + json_escape(key) + "\":" + json;
    return *this;
  }
  const std::string& body() const { return body_; }
  std::string object() const { return "{" + body_ + "}"; }

  static std::string number(double v) { return std::isfinite(v) ? fmt_exact(v) : "null"; }
  static std::string numbers(const std::vector<double>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + number(v[i]);
    return out + "]";
  }
  static std::string strings(const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + json_escape(v[i]) + "\"";
    return out + "]";
  }

 private:
  std::string body_;
};

// The reply channel. Replies go to a duplicate of the original fd 1, and fd 1 itself is pointed at
// fd 2 before any kernel code runs, so whatever the kernel prints (printf, std::cout) lands in the
// worker's log and can never be read by kopt as a reply.
class Channel {
 public:
  // Call first thing in main, before the kernel can run.
  bool is_open() const { return reply_fd_ >= 0; }
  bool open(std::string* error) {
    reply_fd_ = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (reply_fd_ < 0) return *error = std::string("cannot duplicate stdout: ") + std::strerror(errno), false;
    if (::dup2(2, 1) < 0) {
      *error = std::string("cannot point stdout at stderr: ") + std::strerror(errno);
      ::close(reply_fd_);
      reply_fd_ = -1;
      return false;
    }
    return true;
  }
  // The next request line (without its newline). False at EOF; *too_long when it exceeded kMaxLine
  // (the rest of that line is skipped).
  bool next(std::string* line, bool* too_long) {
    line->clear();
    *too_long = false;
    for (;;) {
      const std::size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        if (skipping_) {
          buf_.erase(0, nl + 1);
          skipping_ = false;
          *too_long = true;
          return true;
        }
        line->assign(buf_, 0, nl);
        buf_.erase(0, nl + 1);
        return true;
      }
      if (buf_.size() > kMaxLine) buf_.clear(), skipping_ = true;
      if (eof_) {  // a last line without its newline is still a request
        if (skipping_) return skipping_ = false, *too_long = true, true;
        if (buf_.empty()) return false;
        line->swap(buf_);
        buf_.clear();
        return true;
      }
      char chunk[65536];
      const ssize_t n = ::read(0, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;  // SIGSTOP/SIGCONT between requests
      if (n <= 0) {
        eof_ = true;
        continue;
      }
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // One reply: the object and its newline in as few write calls as the pipe takes.
  void send(const std::string& object) {
    const std::string line = object + "\n";
    for (std::size_t off = 0; off < line.size();) {
      const ssize_t w = ::write(reply_fd_, line.data() + off, line.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;  // kopt is gone; the next read sees EOF
      off += static_cast<std::size_t>(w);
    }
  }

 private:
  int reply_fd_ = -1;
  std::string buf_;
  bool eof_ = false, skipping_ = false;
};

// The channel of this process. With `--serve` among the arguments it is opened by a constructor
// that glibc runs before the kernel's static initialisers (priority 101 sorts ahead of every
// default-priority constructor of the link, and glibc passes argc/argv to constructors), so not
// even a kernel's static initialiser can print onto the reply channel. Elsewhere main opens it.
inline Channel& channel() {
  static Channel c;
  return c;
}
inline std::string& channel_error() {
  static std::string e;
  return e;
}
inline bool serve_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--serve") == 0) return true;
  return false;
}
inline bool open_channel() {
  if (channel().is_open()) return true;
  return channel().open(&channel_error());
}
#if defined(__GLIBC__)
__attribute__((constructor(101))) static void open_channel_before_kernel_code(int argc, char** argv, char**) {
  if (serve_requested(argc, argv)) open_channel();
}
#endif

// What a harness plugs into the request loop. Each handler writes its reply members (after
// "shape") into the Writer and returns "" or the error text of an ok:false reply.
struct Harness {
  std::string name, device, csv_header;
  std::vector<std::string> shapes;
  long long max_calls = 1 << 20;  // a sanity bound on `calls`; pool limits are the handler's
  std::function<std::string(const std::string& shape, std::uint64_t seed, Writer& w)> prepare;
  std::function<std::string(const std::string& shape, long long calls, std::uint64_t seed, Writer& w)> batch;
  std::function<std::string(const std::string& shape, std::string* row)> row;
  void (*leave)(int code) = nullptr;  // flushes and _exits: no exit handler runs after the last reply
};

// The request loop: one reply line per request line, in order, until quit or EOF (exit 0 both).
// Every malformed or refused request is answered ok:false naming the member, and the loop goes on.
[[noreturn]] inline void serve(const Harness& h, Channel& ch) {
  struct OpSpec {
    const char* name;
    std::vector<const char*> fields;  // besides id and op
  };
  const std::vector<OpSpec> ops = {{"hello", {"protocol"}},
                                   {"prepare", {"shape", "seed", "sizing"}},
                                   {"batch", {"shape", "calls", "seed"}},
                                   {"row", {"shape"}},
                                   {"quit", {}}};
  std::string line;
  bool too_long = false;
  while (ch.next(&line, &too_long)) {
    Object req;
    std::string id = "null";
    std::string error = too_long ? "request: longer than " + std::to_string(kMaxLine) + " bytes" : parse_object(line, &req);
    if (error.empty()) {
      const Value* v = req.find("id");
      if (!v) error = "id: missing";
      else if (v->kind == Value::Kind::Number || v->kind == Value::Kind::String)
        id = v->kind == Value::Kind::Number ? v->text : "\"" + json_escape(v->text) + "\"";
      else error = "id: expected a number or a string";
    }
    std::string op;
    const OpSpec* spec = nullptr;
    if (error.empty()) error = get_string(req, "op", &op);
    if (error.empty()) {
      for (const auto& s : ops)
        if (op == s.name) spec = &s;
      if (!spec) error = "op: unknown op \"" + clip(op) + "\" (worker protocol 1: hello, prepare, batch, row, quit)";
    }
    if (error.empty()) {
      for (const auto& m : req.members) {
        bool known = m.first == "id" || m.first == "op";
        for (const char* f : spec->fields) known = known || m.first == f;
        if (!known) {
          error = clip(m.first) + ": not a field of op \"" + op + "\"";
          break;
        }
      }
    }
    std::string shape;
    if (error.empty() && std::find(spec->fields.begin(), spec->fields.end(), std::string("shape")) != spec->fields.end()) {
      error = get_string(req, "shape", &shape);
      if (error.empty() && std::find(h.shapes.begin(), h.shapes.end(), shape) == h.shapes.end()) {
        std::string known;
        for (const auto& s : h.shapes) known += (known.empty() ? "" : ",") + s;
        error = "shape: unknown shape \"" + clip(shape) + "\" (known: " + known + ")";
      }
    }
    Writer w;
    if (error.empty()) {
      if (op == "hello") {
        long long protocol = 0;
        error = get_int(req, "protocol", 0, 1 << 30, &protocol);
        if (error.empty() && protocol != kProtocol)
          error = "protocol: this harness speaks worker protocol " + std::to_string(kProtocol) + ", asked for " +
                  std::to_string(protocol);
        if (error.empty())
          w.integer("protocol", kProtocol).str("harness", h.name).str("device", h.device).str("csv_header", h.csv_header)
              .raw("shapes", Writer::strings(h.shapes));
      } else if (op == "prepare") {
        std::uint64_t seed = 0;
        error = get_seed(req, "seed", &seed);
        // "sizing" (optional): whether kopt sizes batches from this arm. This harness's estimate
        // costs nothing extra either way, so it only checks the type.
        if (const Value* sizing = req.find("sizing"); error.empty() && sizing && sizing->kind != Value::Kind::Bool)
          error = "sizing: expected true or false";
        if (error.empty()) error = h.prepare(shape, seed, w.str("shape", shape));
      } else if (op == "batch") {
        long long calls = 0;
        std::uint64_t seed = 0;
        error = get_int(req, "calls", 1, h.max_calls, &calls);
        if (error.empty()) error = get_seed(req, "seed", &seed);
        if (error.empty()) error = h.batch(shape, calls, seed, w.str("shape", shape));
      } else if (op == "row") {
        std::string row;
        error = h.row(shape, &row);
        if (error.empty()) w.str("shape", shape).str("row", row);
      } else if (op == "quit") {
        ch.send("{\"id\":" + id + ",\"ok\":true}");
        h.leave(0);
        ::_exit(0);
      }
    }
    if (!error.empty()) {
      // One line: an error carries no newline even when a kernel's exception text had one.
      for (char& c : error)
        if (c == '\n' || c == '\r') c = ' ';
      ch.send("{\"id\":" + id + ",\"ok\":false,\"error\":\"" + json_escape(error) + "\"}");
    } else {
      ch.send("{\"id\":" + id + ",\"ok\":true" + (w.body().empty() ? "" : "," + w.body()) + "}");
    }
  }
  h.leave(0);
  ::_exit(0);
}

}  // namespace wire

}  // namespace bench

#endif  // KOPT_CPU_BENCH_UTIL_H
