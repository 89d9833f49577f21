// Native bench harness of the CPU GEMM (kernels/cpu/gemm.cpp), following the kopt harness contract:
//   cpu_gemm_bench [--summary-csv PATH] [--samples PATH] [--shapes L1,L2] [--seed N] [options]
// It writes the frozen 15-column GEMM CSV (B = 1) and the raw-sample JSON Lines file.
//   cpu_gemm_bench --serve
// is a persistent bench worker speaking harness/WORKER-PROTOCOL.md (JSON lines on stdin, replies on
// the original stdout); kopt alternates short batches between two such workers.
//
// What it does to be hard to fool (see docs in README.md):
// - correctness against an independent fp64 triple loop on pristine copies of the inputs; outputs
//   are NaN-poisoned before every call, inputs hashed before and after the checked call;
// - every timed call gets inputs at a new address with new contents (a pool of random data larger
//   than the last-level cache), so identity- or address-keyed caches gain nothing and calls start
//   cold; every timed call is re-verified after the clock stops with a Freivalds projection check;
// - one std::chrono::steady_clock interval per call, adaptive sampling to a target relative spread
//   with a per-shape time cap;
// - each shape runs in a forked child, so a crash or hang becomes a FAIL row, never a missing one
//   (CSV mode; a worker measures in process, and kopt restarts a worker that dies).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.h"
#include "gemm.h"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kHarnessName = "cpu_gemm_bench";
constexpr const char* kCsvHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
    "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";

struct Shape {
  std::string label;
  int M, N, K;
};

// Small enough that a whole run of the plain configuration takes well under a second on one slow
// core, large enough that blocking and loop order matter. `odd` has no dimension divisible by 4
// (it exercises every remainder path); `skinny` is a decode-like few-token GEMM.
const std::vector<Shape> kDefaultShapes = {
    {"sq96", 96, 96, 96},
    {"sq192", 192, 192, 192},
    {"rect", 128, 256, 160},
    {"odd", 150, 110, 170},
    {"skinny", 16, 384, 320},
};

struct Options {
  std::string summary_csv;  // empty: the table goes to stdout
  std::string samples;      // empty: no samples file
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
  int min_samples = 5;
  int max_samples = 200;
  double target_rsd = 0.01;
  double time_cap_ms = 100.0;  // per shape, forward and backward together
  double snr_threshold_db = 80.0;
  double shape_timeout_s = 120.0;
  bool isolate = true;
  bool list_shapes = false;
  bool serve = false;       // --serve: the bench worker protocol instead of the CSV run
  bool run_options = false;  // a CSV-run option was given (refused with --serve)
};

struct Direction {
  std::string name;  // "forward" | "backward"
  std::vector<double> times_ms;
  std::string stop;  // "rsd" | "time_cap" | "max_samples"
  double flops = 0;
  double bytes = 0;
};

struct Result {
  bool pass = false;
  double fwd_tflops = kNaN, fwd_std = kNaN, bwd_tflops = kNaN, bwd_std = kNaN;
  double fwd_ms = kNaN, bwd_ms = kNaN;
  double out_snr = kNaN, da_snr = kNaN, db_snr = kNaN;
  std::vector<Direction> directions;  // empty when the kernel threw or crashed
};

// Every way out of the harness: flush what the harness wrote, then _exit, so no atexit handler
// and no static destructor runs after the result files are written, the kernel's included
// (docs/integrity.md, gap G5: a kernel linked into this process could otherwise rewrite them).
[[noreturn]] void leave(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(code);
}

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << kHarnessName << ": " << msg << "\n"
            << "usage: " << kHarnessName
            << " [--summary-csv PATH] [--samples PATH] [--shapes L1,L2,...] [--seed N]\n"
               "       [--min-samples N] [--max-samples N] [--target-rsd F] [--time-cap-ms F]\n"
               "       [--snr-threshold-db F] [--shape-timeout-s F] [--no-isolate] [--list-shapes]\n"
               "   or: " << kHarnessName << " --serve [--snr-threshold-db F]   (bench worker protocol 1)\n";
  leave(2);
}

double parse_number(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(v))
    usage_error(flag + " expects a number, got '" + value + "'");
  return v;
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    const bool run_option = a == "--summary-csv" || a == "--samples" || a == "--shapes" || a == "--seed" ||
                            a == "--list-shapes";
    o.run_options = o.run_options || run_option;
    if (a == "--serve") {
      o.serve = true;
    } else if (a == "--summary-csv") {
      o.summary_csv = value();
    } else if (a == "--samples") {
      o.samples = value();
    } else if (a == "--shapes") {
      std::stringstream ss(value());
      std::string item;
      while (std::getline(ss, item, ',')) {
        item = bench::trim(item);
        if (!item.empty()) o.shapes.push_back(item);
      }
      if (o.shapes.empty()) usage_error("--shapes needs at least one label");
    } else if (a == "--seed") {
      const std::string v = value();
      char* end = nullptr;
      errno = 0;
      const unsigned long long s = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || errno != 0 || v[0] == '-')
        usage_error("--seed expects a non-negative integer, got '" + v + "'");
      o.seed = s;
    } else if (a == "--min-samples") {
      o.min_samples = static_cast<int>(parse_number(a, value()));
    } else if (a == "--max-samples") {
      o.max_samples = static_cast<int>(parse_number(a, value()));
    } else if (a == "--target-rsd") {
      o.target_rsd = parse_number(a, value());
    } else if (a == "--time-cap-ms") {
      o.time_cap_ms = parse_number(a, value());
    } else if (a == "--snr-threshold-db") {
      o.snr_threshold_db = parse_number(a, value());
    } else if (a == "--shape-timeout-s") {
      o.shape_timeout_s = parse_number(a, value());
    } else if (a == "--no-isolate") {
      o.isolate = false;
    } else if (a == "--list-shapes") {
      o.list_shapes = true;
    } else if (a == "--help" || a == "-h") {
      usage_error("help");
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (o.min_samples < 2) usage_error("--min-samples must be at least 2");
  if (o.max_samples < o.min_samples) usage_error("--max-samples must be >= --min-samples");
  if (o.target_rsd <= 0) usage_error("--target-rsd must be positive (e.g. 0.01 for 1%)");
  if (o.time_cap_ms <= 0) usage_error("--time-cap-ms must be positive");
  if (o.shape_timeout_s <= 0) usage_error("--shape-timeout-s must be positive");
  if (o.serve && o.run_options)
    usage_error("--serve takes shapes and seeds from its requests: drop --summary-csv, --samples, --shapes, --seed, --list-shapes");
  return o;
}

std::vector<Shape> select_shapes(const Options& o) {
  if (o.shapes.empty()) return kDefaultShapes;
  std::vector<Shape> out;
  std::set<std::string> seen;
  for (const auto& label : o.shapes) {
    const Shape* found = nullptr;
    for (const auto& s : kDefaultShapes)
      if (s.label == label) found = &s;
    if (!found) {
      std::string known;
      for (const auto& s : kDefaultShapes) known += (known.empty() ? "" : ",") + s.label;
      std::cerr << kHarnessName << ": unknown shape label '" << label << "' (known: " << known
                << ")\n";
      leave(2);
    }
    if (!seen.insert(label).second) usage_error("shape label '" + label + "' given twice in --shapes");
    out.push_back(*found);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reference and verification (fp64, written independently of the kernel).

// ref[M x N] = A[M x K] * B[K x N], with A and B addressed through strides so the same loop
// serves A^T and B^T.
std::vector<double> reference_gemm(int M, int N, int K, const float* A, std::size_t a_rs,
                                   std::size_t a_cs, const float* B, std::size_t b_rs,
                                   std::size_t b_cs) {
  std::vector<double> C(static_cast<std::size_t>(M) * N, 0.0);
  for (int i = 0; i < M; ++i) {
    double* c = C.data() + static_cast<std::size_t>(i) * N;
    for (int k = 0; k < K; ++k) {
      const double a = A[i * a_rs + k * a_cs];
      for (int j = 0; j < N; ++j) c[j] += a * static_cast<double>(B[k * b_rs + j * b_cs]);
    }
  }
  return C;
}

// y[rows] = X[rows x cols] * x, X row-major (or transposed through `transposed`).
std::vector<double> matvec(const float* X, int rows, int cols, const std::vector<double>& x,
                           bool transposed) {
  std::vector<double> y(rows, 0.0);
  if (!transposed) {
    for (int r = 0; r < rows; ++r) {
      double s = 0.0;
      const float* row = X + static_cast<std::size_t>(r) * cols;
      for (int c = 0; c < cols; ++c) s += row[c] * x[c];
      y[r] = s;
    }
  } else {  // X is stored cols x rows; y = X_stored^T * x
    for (int c = 0; c < cols; ++c) {
      const float* row = X + static_cast<std::size_t>(c) * rows;
      for (int r = 0; r < rows; ++r) y[r] += row[r] * x[c];
    }
  }
  return y;
}

std::vector<double> random_signs(bench::Rng& rng, int n) {
  std::vector<double> x(n);
  for (auto& v : x) v = (rng.next() >> 63) ? 1.0 : -1.0;
  return x;
}

// Freivalds: for a random sign vector x, out*x must match the product computed from the inputs.
// Cost O(n^2), so every timed call is re-checked. Returns the SNR of the projection.
double freivalds_forward(const float* A, const float* B, const float* C, int M, int N, int K,
                         bench::Rng& rng) {
  const auto x = random_signs(rng, N);
  const auto bx = matvec(B, K, N, x, false);   // K
  const auto ref = matvec(A, M, K, bx, false);  // M
  const auto out = matvec(C, M, N, x, false);   // M
  return bench::snr_db(ref.data(), out.data(), ref.size());
}

void freivalds_backward(const float* dC, const float* A, const float* B, const float* dA,
                        const float* dB, int M, int N, int K, bench::Rng& rng, double* da_snr,
                        double* db_snr) {
  const auto x = random_signs(rng, K);
  const auto btx = matvec(B, N, K, x, true);       // B^T x: N
  const auto ref_a = matvec(dC, M, N, btx, false);  // M
  const auto out_a = matvec(dA, M, K, x, false);    // M
  *da_snr = bench::snr_db(ref_a.data(), out_a.data(), ref_a.size());
  const auto y = random_signs(rng, N);
  const auto dcy = matvec(dC, M, N, y, false);      // M
  const auto ref_b = matvec(A, K, M, dcy, true);    // A^T dC y: K
  const auto out_b = matvec(dB, K, N, y, false);    // K
  *db_snr = bench::snr_db(ref_b.data(), out_b.data(), ref_b.size());
}

// ---------------------------------------------------------------------------------------------
// The timing pool: one block of random floats larger than the LLC. Timed call s reads its inputs
// from its own slice, so no two timed calls share an input address or input contents, and each
// slice was last touched long enough ago to be out of the cache.

struct Pool {
  float* data = nullptr;
  std::size_t size = 0;  // floats
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { std::free(data); }
};

void make_pool(std::uint64_t seed, Pool* p) {
  // Two halves (forward, backward), each at least the LLC; bounded so a huge reported LLC cannot
  // make setup dominate the run. Huge pages where the kernel allows them: page faults of tens of
  // MB of 4 KiB pages would otherwise cost more than the fill itself.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t bytes = std::min<std::size_t>(2 * std::max<std::size_t>(bench::llc_bytes(), 8u << 20), 512u << 20);
  bytes = (bytes + kHuge - 1) / kHuge * kHuge;
  p->data = static_cast<float*>(std::aligned_alloc(kHuge, bytes));
  if (!p->data) {
    std::cerr << kHarnessName << ": cannot allocate the " << (bytes >> 20) << " MiB timing pool\n";
    leave(1);
  }
#ifdef MADV_HUGEPAGE
  ::madvise(p->data, bytes, MADV_HUGEPAGE);  // advisory: ignored where THP is off
#endif
  p->size = bytes / sizeof(float);
  bench::fill_fast(p->data, p->size, seed * 0x2545F4914F6CDD1Dull ^ 0x706f6f6c706f6f6cull);
}

// Reads a region at least as large as the LLC so that the other half of the pool, which a direction
// is about to time on, is no longer cached, whatever the previous shape or the pool fill touched.
void evict_cache_with(const float* region, std::size_t n) {
  float sink = 0.0f;
  for (std::size_t i = 0; i < n; i += 16) sink += region[i];  // one read per 64-byte line
  volatile float keep = sink;
  (void)keep;
}

inline std::size_t round_up16(std::size_t n) { return (n + 15) / 16 * 16; }

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Sampling state of one direction: decides when to stop and why.
struct Sampler {
  int min_samples, max_samples;
  double target_rsd, cap_ms;
  Clock::time_point start = Clock::now();
  std::string stop = "";
  bool done(const std::vector<double>& times) {
    const int n = static_cast<int>(times.size());
    if (n >= max_samples) return stop = "max_samples", true;
    if (n < min_samples) return false;
    if (bench::rsd(times) <= target_rsd) return stop = "rsd", true;
    if (elapsed_ms(start, Clock::now()) >= cap_ms) return stop = "time_cap", true;
    return false;
  }
};

void poison(std::vector<float>& v) { std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN()); }

// One timed call, as both modes make it: outputs NaN-poisoned, inputs hashed, threads counted
// just before and just after the call (all outside the clock), one steady_clock interval around
// the call alone, then the Freivalds projection and the input hash.
struct Call {
  double ms = kNaN;
  double snr_a = kNaN, snr_b = kNaN;  // forward: out; backward: da, db
  bool inputs_changed = false;
  int threads_before = -1, threads_after = -1;  // -1: /proc unreadable (no census)
  bool left_thread() const { return threads_before >= 0 && threads_after > threads_before; }
};

// The check's randomness (the projection vectors, the hash key) comes from the system, drawn for
// each call: the vectors after the call has written its output, so no kernel can fit its output
// to them (referee hole 8: they were derived from the seed, which the kernel can read).
Call timed_forward(const float* a, const float* b, std::vector<float>& c, std::size_t slot, int M, int N, int K) {
  Call r;
  poison(c);
  const std::uint64_t key = bench::fresh_random64();
  const std::uint64_t h = bench::hash_floats(a, slot, key);
  r.threads_before = bench::thread_count();
  const auto t0 = Clock::now();
  cpu_gemm::forward(a, b, c.data(), M, N, K);
  const auto t1 = Clock::now();
  r.threads_after = bench::thread_count();
  r.ms = elapsed_ms(t0, t1);
  bench::Rng check_rng(bench::fresh_random64());
  r.snr_a = freivalds_forward(a, b, c.data(), M, N, K, check_rng);
  r.inputs_changed = bench::hash_floats(a, slot, key) != h;
  return r;
}

Call timed_backward(const float* dc, const float* a, const float* b, std::vector<float>& da, std::vector<float>& db,
                    std::size_t slot, int M, int N, int K) {
  Call r;
  poison(da);
  poison(db);
  const std::uint64_t key = bench::fresh_random64();
  const std::uint64_t h = bench::hash_floats(dc, slot, key);
  r.threads_before = bench::thread_count();
  const auto t0 = Clock::now();
  cpu_gemm::backward(dc, a, b, da.data(), db.data(), M, N, K);
  const auto t1 = Clock::now();
  r.threads_after = bench::thread_count();
  r.ms = elapsed_ms(t0, t1);
  bench::Rng check_rng(bench::fresh_random64());
  freivalds_backward(dc, a, b, da.data(), db.data(), M, N, K, check_rng, &r.snr_a, &r.snr_b);
  r.inputs_changed = bench::hash_floats(dc, slot, key) != h;
  return r;
}

// Buffers a stray kernel thread may still write into once its call returned: never freed, so late
// writes land in live memory and the shape reports the FAIL instead of corrupting the heap.
void keep_forever(std::vector<std::vector<float>>& buffers) {
  static std::vector<std::vector<float>> kept;
  for (auto& b : buffers) kept.push_back(std::move(b));
}

// The full correctness check of a shape: pristine inputs from (seed, label), fp64 references
// written independently of the kernel, one call per direction on private copies with NaN-poisoned
// outputs. Sets the three SNRs; false when a call wrote into its inputs. With `threads_left`
// (the worker) the calls are counted by the thread census too, and their buffers are kept alive
// when a call left a thread. Throws whatever the kernel throws.
bool full_check(const Shape& s, std::uint64_t seed, Result* res, int* threads_left = nullptr) {
  Result& r = *res;
  const int M = s.M, N = s.N, K = s.K;
  const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                    mn = static_cast<std::size_t>(M) * N;
  // Pristine inputs for the correctness check, reproducible from (seed, label).
  bench::Rng rng(seed * 0x9E3779B97F4A7C15ull ^ bench::fnv1a(s.label));
  std::vector<float> A(mk), B(kn), dC(mn);
  bench::fill_uniform(A, rng);
  bench::fill_uniform(B, rng);
  bench::fill_uniform(dC, rng);
  const auto ref_c = reference_gemm(M, N, K, A.data(), K, 1, B.data(), N, 1);
  const auto ref_da = reference_gemm(M, K, N, dC.data(), N, 1, B.data(), 1, N);  // dC * B^T
  const auto ref_db = reference_gemm(K, N, M, A.data(), 1, K, dC.data(), N, 1);  // A^T * dC
  auto census = [&](int before, std::vector<std::vector<float>>&& buffers) {
    if (!threads_left) return;
    const int after = bench::thread_count();
    if (before >= 0 && after > before) {
      ++*threads_left;
      keep_forever(buffers);
    }
  };

  bool inputs_intact = true;
  {  // Checked forward call on private copies; the reference never sees these buffers.
    std::vector<float> a = A, b = B, c(mn);
    poison(c);
    const int before = threads_left ? bench::thread_count() : -1;
    cpu_gemm::forward(a.data(), b.data(), c.data(), M, N, K);
    r.out_snr = bench::snr_db(ref_c.data(), c.data(), mn);
    if (a != A || b != B) {
      std::cerr << kHarnessName << ": shape " << s.label << ": forward modified its inputs\n";
      inputs_intact = false;
    }
    census(before, {std::move(a), std::move(b), std::move(c)});
  }
  {  // Checked backward call.
    std::vector<float> a = A, b = B, dc = dC, da(mk), db(kn);
    poison(da);
    poison(db);
    const int before = threads_left ? bench::thread_count() : -1;
    cpu_gemm::backward(dc.data(), a.data(), b.data(), da.data(), db.data(), M, N, K);
    r.da_snr = bench::snr_db(ref_da.data(), da.data(), mk);
    r.db_snr = bench::snr_db(ref_db.data(), db.data(), kn);
    if (a != A || b != B || dc != dC) {
      std::cerr << kHarnessName << ": shape " << s.label << ": backward modified its inputs\n";
      inputs_intact = false;
    }
    census(before, {std::move(a), std::move(b), std::move(dc), std::move(da), std::move(db)});
  }
  return inputs_intact;
}

void summarize(const Direction& d, double flops, double* tflops, double* stddev, double* ms) {
  std::vector<double> per_call;
  for (double t : d.times_ms) per_call.push_back(flops / (t * 1e9));
  *ms = bench::median(d.times_ms);
  *tflops = flops / (*ms * 1e9);
  *stddev = bench::pstddev(per_call);
}

// Runs one shape: checked calls, then timed calls. Throws whatever the kernel throws.
Result measure_shape(const Shape& s, const Options& o, const Pool& pool) {
  const int M = s.M, N = s.N, K = s.K;
  const std::size_t mk = static_cast<std::size_t>(M) * K, kn = static_cast<std::size_t>(K) * N,
                    mn = static_cast<std::size_t>(M) * N;
  Result r;
  const bool inputs_intact = full_check(s, o.seed, &r);

  // Timed calls. The pool is split in two halves (forward, backward), each larger than the LLC;
  // a direction stops at max_samples when its half has no fresh slice left.
  const std::size_t half = pool.size / 2;
  const double fwd_flops = 2.0 * M * N * K, bwd_flops = 4.0 * M * N * K;
  int bad_calls = 0;
  // Thread census (gap G6): a timed call must not leave a thread behind. Counted outside the
  // clock, right before and right after each call; -1 where /proc is missing (no check then).
  int stray_thread_calls = 0, threads_seen_before = 0, threads_seen_after = 0;
  auto census = [&](const Call& call) {
    if (call.left_thread()) {
      if (stray_thread_calls++ == 0) threads_seen_before = call.threads_before, threads_seen_after = call.threads_after;
    }
  };
  constexpr int kOutRing = 4;  // outputs rotate too, and are NaN-poisoned before every call
  // Each call's slice is written just before the call (past the cache): no call finds a later
  // call's inputs written, which a kernel could compute ahead in its own time
  // (docs/integrity.md, class 8).
  const std::uint64_t slice_seed = o.seed ^ bench::fnv1a(s.label);
  auto write_slice = [&](float* p, std::size_t n, int dir, int i) {
    bench::fill_cold(p, n, slice_seed ^ (0x736c696365ull + static_cast<std::uint64_t>(dir)) ^
                               (static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ull));
  };
  // A stray worker may still write into an output after its call returned: once one is seen the
  // outputs are never freed, so late writes land in live memory and this shape reports the FAIL
  // instead of dying of heap corruption before it can say why. (The pool outlives every shape.)
  auto keep_for_stray_workers = [&](std::vector<std::vector<float>>& buffers) {
    if (stray_thread_calls > 0) keep_forever(buffers);
  };

  {
    const std::size_t slot = round_up16(mk) + round_up16(kn);
    const int slots = static_cast<int>(std::min<std::size_t>(half / slot, static_cast<std::size_t>(o.max_samples)));
    Sampler sampler{o.min_samples, std::max(slots, 1), o.target_rsd, o.time_cap_ms / 3.0};
    std::vector<std::vector<float>> outs(kOutRing, std::vector<float>(mn));
    Direction d{"forward", {}, "", fwd_flops, 4.0 * (mk + kn + mn)};
    evict_cache_with(pool.data + half, half);
    sampler.start = Clock::now();
    for (int i = 0; !sampler.done(d.times_ms); ++i) {
      float* a = pool.data + static_cast<std::size_t>(i) * slot;
      write_slice(a, slot, 0, i);
      const float* b = a + round_up16(mk);
      const Call call = timed_forward(a, b, outs[i % kOutRing], slot, M, N, K);
      census(call);
      d.times_ms.push_back(call.ms);
      if (!(call.snr_a > o.snr_threshold_db) || call.inputs_changed) ++bad_calls;
    }
    d.stop = sampler.stop;
    summarize(d, fwd_flops, &r.fwd_tflops, &r.fwd_std, &r.fwd_ms);
    r.directions.push_back(std::move(d));
    keep_for_stray_workers(outs);
  }
  {
    const std::size_t slot = round_up16(mn) + round_up16(mk) + round_up16(kn);
    const int slots = static_cast<int>(std::min<std::size_t>(half / slot, static_cast<std::size_t>(o.max_samples)));
    Sampler sampler{o.min_samples, std::max(slots, 1), o.target_rsd, o.time_cap_ms * 2.0 / 3.0};
    std::vector<std::vector<float>> das(kOutRing, std::vector<float>(mk)), dbs(kOutRing, std::vector<float>(kn));
    Direction d{"backward", {}, "", bwd_flops, 4.0 * (mn + 2 * mk + 2 * kn)};
    evict_cache_with(pool.data, half);
    sampler.start = Clock::now();
    for (int i = 0; !sampler.done(d.times_ms); ++i) {
      float* dc = pool.data + half + static_cast<std::size_t>(i) * slot;
      write_slice(dc, slot, 1, i);
      const float* a = dc + round_up16(mn);
      const float* b = a + round_up16(mk);
      const Call call = timed_backward(dc, a, b, das[i % kOutRing], dbs[i % kOutRing], slot, M, N, K);
      census(call);
      d.times_ms.push_back(call.ms);
      if (!(call.snr_a > o.snr_threshold_db) || !(call.snr_b > o.snr_threshold_db) || call.inputs_changed) ++bad_calls;
    }
    d.stop = sampler.stop;
    summarize(d, bwd_flops, &r.bwd_tflops, &r.bwd_std, &r.bwd_ms);
    r.directions.push_back(std::move(d));
    keep_for_stray_workers(das);
    keep_for_stray_workers(dbs);
  }

  if (bad_calls > 0)
    std::cerr << kHarnessName << ": shape " << s.label << ": " << bad_calls
              << " timed call(s) failed the per-call check (wrong result or modified inputs)\n";
  if (stray_thread_calls > 0)
    std::cerr << kHarnessName << ": shape " << s.label << ": " << stray_thread_calls
              << " timed call(s) left a thread running (threads before the call " << threads_seen_before
              << ", after " << threads_seen_after
              << "): a kernel must finish its work before it returns\n";
  // The SNR columns are the full check's (fp64 references on the seed's inputs: the same for the
  // same seed). The per-call projections use fresh system randomness, so their SNRs differ from
  // run to run; each one below the threshold counts in bad_calls.
  const double th = o.snr_threshold_db;
  r.pass = inputs_intact && bad_calls == 0 && stray_thread_calls == 0 && r.out_snr > th && r.da_snr > th && r.db_snr > th;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Process isolation: the child measures one shape and streams a line protocol back; anything
// else (a crash, a hang, a throw) leaves the parent with a FAIL row.
//   R <pass> <fwd_tflops> <fwd_std> <bwd_tflops> <bwd_std> <fwd_ms> <bwd_ms> <out> <da> <db>
//   S <direction> <stop> <flops> <bytes> <n> <t1> ... <tn>
//   E

std::string encode(const Result& r) {
  std::ostringstream os;
  os << "R " << (r.pass ? 1 : 0);
  for (double v : {r.fwd_tflops, r.fwd_std, r.bwd_tflops, r.bwd_std, r.fwd_ms, r.bwd_ms, r.out_snr,
                   r.da_snr, r.db_snr})
    os << ' ' << bench::fmt_exact(v);
  os << '\n';
  for (const auto& d : r.directions) {
    os << "S " << d.name << ' ' << d.stop << ' ' << bench::fmt_exact(d.flops) << ' '
       << bench::fmt_exact(d.bytes) << ' ' << d.times_ms.size();
    for (double t : d.times_ms) os << ' ' << bench::fmt_exact(t);
    os << '\n';
  }
  os << "E\n";
  return os.str();
}

bool decode(const std::string& text, Result* out) {
  std::istringstream is(text);
  std::string line;
  Result r;
  bool have_row = false;
  auto num = [](const std::string& tok) { return std::strtod(tok.c_str(), nullptr); };
  while (std::getline(is, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "R") {
      int pass = 0;
      std::string t[9];
      ls >> pass;
      for (auto& x : t) ls >> x;
      if (!ls) return false;
      r.pass = pass == 1;
      r.fwd_tflops = num(t[0]), r.fwd_std = num(t[1]), r.bwd_tflops = num(t[2]), r.bwd_std = num(t[3]);
      r.fwd_ms = num(t[4]), r.bwd_ms = num(t[5]);
      r.out_snr = num(t[6]), r.da_snr = num(t[7]), r.db_snr = num(t[8]);
      have_row = true;
    } else if (tag == "S") {
      Direction d;
      std::string flops, bytes;
      std::size_t n = 0;
      ls >> d.name >> d.stop >> flops >> bytes >> n;
      d.flops = num(flops);
      d.bytes = num(bytes);
      for (std::size_t i = 0; i < n; ++i) {
        std::string t;
        ls >> t;
        d.times_ms.push_back(num(t));
      }
      if (!ls) return false;
      r.directions.push_back(std::move(d));
    } else if (tag == "E") {
      if (!have_row) return false;
      *out = std::move(r);
      return true;
    }
  }
  return false;
}

Result failed_result() { return Result{}; }

Result run_in_process(const Shape& s, const Options& o, const Pool& pool) {
  try {
    return measure_shape(s, o, pool);
  } catch (const std::exception& e) {
    std::cerr << kHarnessName << ": shape " << s.label << ": kernel threw: " << e.what() << "\n";
  } catch (...) {
    std::cerr << kHarnessName << ": shape " << s.label << ": kernel threw a non-standard exception\n";
  }
  return failed_result();
}

void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(fd, s.data() + off, s.size() - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;
    }
    off += static_cast<std::size_t>(w);
  }
}

Result run_isolated(const Shape& s, const Options& o, const Pool& pool) {
  int fds[2];
  if (::pipe(fds) != 0) {
    std::cerr << kHarnessName << ": pipe failed (" << std::strerror(errno) << "), measuring in process\n";
    return run_in_process(s, o, pool);
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    std::cerr << kHarnessName << ": fork failed (" << std::strerror(errno) << "), measuring in process\n";
    return run_in_process(s, o, pool);
  }
  if (pid == 0) {
    ::close(fds[0]);
    bench::confine_or_say(kHarnessName);
    write_all(fds[1], encode(run_in_process(s, o, pool)));
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  const auto deadline = Clock::now() + std::chrono::duration<double>(o.shape_timeout_s);
  bool timed_out = false;
  for (;;) {
    const double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int pr = ::poll(&p, 1, static_cast<int>(std::min(left_ms, 1e6)) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    std::cerr << kHarnessName << ": shape " << s.label << ": no result within " << o.shape_timeout_s
              << " s, killed\n";
    return failed_result();
  }
  if (WIFSIGNALED(status)) {
    std::cerr << kHarnessName << ": shape " << s.label << ": crashed with " << bench::signal_text(WTERMSIG(status))
              << "\n";
    return failed_result();
  }
  Result r;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !decode(text, &r)) {
    std::cerr << kHarnessName << ": shape " << s.label << ": measuring process exited without a result\n";
    return failed_result();
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output files, written whole to a temporary name and renamed, so a reader never sees half a file.

bool write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << content;
    f.flush();
    if (!f) return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::string csv_row(const Shape& s, const Result& r) {
  std::ostringstream os;
  os << s.label << ",1," << s.M << ',' << s.N << ',' << s.K << ',' << (r.pass ? "PASS" : "FAIL");
  for (double v : {r.fwd_tflops, r.fwd_std, r.bwd_tflops, r.bwd_std, r.fwd_ms, r.bwd_ms, r.out_snr,
                   r.da_snr, r.db_snr})
    os << ',' << bench::fmt(v);
  os << '\n';
  return os.str();
}

std::string samples_text(const std::vector<Shape>& shapes, const std::vector<Result>& results,
                         const Options& o) {
  std::ostringstream os;
  os << "{\"kopt_samples\":1,\"harness\":\"" << kHarnessName << "\",\"device\":\""
     << bench::json_escape(bench::cpu_model()) << "\",\"seed\":" << o.seed << "}\n";
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (const auto& d : results[i].directions) {
      os << "{\"label\":\"" << bench::json_escape(shapes[i].label) << "\",\"direction\":\"" << d.name
         << "\",\"unit\":\"ms\",\"times\":[";
      for (std::size_t j = 0; j < d.times_ms.size(); ++j)
        os << (j ? "," : "") << bench::fmt_exact(d.times_ms[j]);
      os << "],\"flops\":" << bench::fmt_exact(d.flops) << ",\"bytes\":" << bench::fmt_exact(d.bytes)
         << ",\"stop\":\"" << d.stop << "\"}\n";
    }
  }
  return os.str();
}


// ---------------------------------------------------------------------------------------------
// Worker mode (--serve, harness/WORKER-PROTOCOL.md). Every shape is measured in this process: kopt
// restarts a worker that dies, and a shape it had not finished fails. The defences of the CSV mode
// hold per call: fresh inputs (slices of the pool refilled from the batch's seed, evicted before
// the direction starts), NaN-poisoned rotating outputs, inputs hashed around every call, the
// thread census, the Freivalds projection after the clock stops.

struct WorkerShape {
  bool prepared = false;
  std::string check;                 // PASS | FAIL | ERROR: the prepare check
  Result r;                          // SNRs: worst of the full check and every call since prepare
  std::vector<double> fwd_ms, bwd_ms;  // every batch call since prepare
  long long errors = 0;              // failed batch calls since prepare
  bool batch_threw = false;
  // Output rings, allocated once per shape and never freed: a stray thread of an earlier call may
  // still write into them.
  std::vector<std::vector<float>> outs, das, dbs;
};

class GemmWorker {
 public:
  explicit GemmWorker(const Options& o) : o_(o) {
    for (const auto& s : kDefaultShapes) state_[s.label];
  }

  std::string prepare(const std::string& label, std::uint64_t seed, bench::wire::Writer& w) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    rings(s, st);
    st.prepared = true;
    st.check = "PASS";
    st.r = Result{};
    st.fwd_ms.clear();
    st.bwd_ms.clear();
    st.errors = 0;
    st.batch_threw = false;
    std::vector<std::string> problems;
    int threads_left = 0;
    std::vector<double> warm_f, warm_b;
    try {
      if (!full_check(s, seed, &st.r, &threads_left)) problems.push_back("a checked call modified its inputs");
      const double th = o_.snr_threshold_db;
      for (auto [name, v] : {std::pair<const char*, double>{"out_snr", st.r.out_snr}, {"da_snr", st.r.da_snr}, {"db_snr", st.r.db_snr}})
        if (!(v > th)) problems.push_back(std::string(name) + " " + bench::fmt(v) + " dB <= " + bench::fmt(th) + " dB");
      if (threads_left) problems.push_back("a checked call left a thread running");
      // Warm-up: the calls a batch makes, on slices filled from the prepare seed, until 20 ms or
      // 100 calls per direction (at least 5); the median is kopt's estimate to size batches with.
      long long failed = 0, total = 0;
      for (int dir = 0; dir < 2; ++dir) {
        std::vector<double>& times = dir == 0 ? warm_f : warm_b;
        const std::size_t slot = slot_floats(s, dir);
        if (std::string e = pool_.reserve(5 * slot); !e.empty()) return "shape: " + label + " " + e;
        const std::size_t calls = std::min<std::size_t>(100, pool_.region_floats() / slot);
        const auto slices = pool_.place_slices(dir, slot, calls, seed ^ (0x7761726d00ull + dir));
        pool_.evict(dir);
        const auto start = Clock::now();
        for (std::size_t i = 0; i < calls && (i < 5 || elapsed_ms(start, Clock::now()) < 20.0); ++i) {
          const Call call = one_call(s, st, dir, bench::WorkerPool::write_slice(slices, i), i);
          times.push_back(call.ms);
          ++total;
          failed += failed_call(call, dir) ? 1 : 0;
        }
      }
      if (failed)
        problems.push_back(std::to_string(failed) + " of " + std::to_string(total) +
                           " warm-up calls failed the per-call check (wrong result, modified inputs or a thread left running)");
    } catch (const std::exception& e) {
      return prepare_error(label, st, w, std::string("the kernel threw: ") + e.what());
    } catch (...) {
      return prepare_error(label, st, w, "the kernel threw a non-standard exception");
    }
    std::string problem;
    for (const auto& p : problems) problem += (problem.empty() ? "" : "; ") + p;
    if (!problems.empty()) {
      st.check = "FAIL";
      std::cerr << kHarnessName << ": shape " << label << ": prepare check FAILs: " << problem << "\n";
    }
    w.str("check", st.check).str("problem", problem)
        .raw("call_ms", "{\"forward\":" + bench::wire::Writer::number(bench::median(warm_f)) +
                            ",\"backward\":" + bench::wire::Writer::number(bench::median(warm_b)) + "}");
    return "";
  }

  std::string batch(const std::string& label, long long calls, std::uint64_t seed, bench::wire::Writer& w) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    if (!st.prepared) return "shape: " + label + " is not prepared (send prepare first)";
    const auto wall0 = Clock::now();
    const std::size_t n = static_cast<std::size_t>(calls);
    if (std::string e = pool_.reserve(n * std::max(slot_floats(s, 0), slot_floats(s, 1))); !e.empty())
      return "calls: " + std::to_string(calls) + " calls of " + label + " " + e;
    std::vector<double> times[2];
    long long errors = 0;
    try {
      for (int dir = 0; dir < 2; ++dir) {
        const std::size_t slot = slot_floats(s, dir);
        const auto slices = pool_.place_slices(dir, slot, n, seed ^ (0x6261746368ull + dir));
        pool_.evict(dir);
        for (std::size_t i = 0; i < n; ++i) {
          const Call call = one_call(s, st, dir, bench::WorkerPool::write_slice(slices, i), i);
          times[dir].push_back(call.ms);
          errors += failed_call(call, dir) ? 1 : 0;
        }
      }
    } catch (const std::exception& e) {
      st.batch_threw = true;
      return std::string("the kernel threw during the batch: ") + e.what() + " (the shape's row is FAIL)";
    } catch (...) {
      st.batch_threw = true;
      return "the kernel threw a non-standard exception during the batch (the shape's row is FAIL)";
    }
    st.errors += errors;
    if (errors)
      std::cerr << kHarnessName << ": shape " << label << ": " << errors
                << " call(s) of a batch failed the per-call check (wrong result, modified inputs or a thread left running)\n";
    st.fwd_ms.insert(st.fwd_ms.end(), times[0].begin(), times[0].end());
    st.bwd_ms.insert(st.bwd_ms.end(), times[1].begin(), times[1].end());
    const double M = s.M, N = s.N, K = s.K;
    const double fwd_bytes = 4.0 * (M * K + K * N + M * N), bwd_bytes = 4.0 * (M * N + 2 * M * K + 2 * K * N);
    using W = bench::wire::Writer;
    w.integer("errors", errors)
        .num("wall_ms", elapsed_ms(wall0, Clock::now()))
        .raw("series", "[" + W().str("direction", "forward").raw("times_ms", W::numbers(times[0]))
                                 .num("flops", 2.0 * M * N * K).num("bytes", fwd_bytes).object() +
                           "," + W().str("direction", "backward").raw("times_ms", W::numbers(times[1]))
                                 .num("flops", 4.0 * M * N * K).num("bytes", bwd_bytes).object() + "]")
        .null("idle_probe_us");
    return "";
  }

  std::string row(const std::string& label, std::string* out) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    if (!st.prepared) return "shape: " + label + " is not prepared (send prepare first)";
    Result r = st.r;
    const double M = s.M, N = s.N, K = s.K;
    Direction f{"forward", st.fwd_ms, "", 0, 0}, b{"backward", st.bwd_ms, "", 0, 0};
    summarize(f, 2.0 * M * N * K, &r.fwd_tflops, &r.fwd_std, &r.fwd_ms);
    summarize(b, 4.0 * M * N * K, &r.bwd_tflops, &r.bwd_std, &r.bwd_ms);
    const double th = o_.snr_threshold_db;
    r.pass = st.check == "PASS" && st.errors == 0 && !st.batch_threw && r.out_snr > th && r.da_snr > th && r.db_snr > th;
    *out = csv_row(s, r);
    out->pop_back();  // the newline
    return "";
  }

 private:
  static const Shape& shape(const std::string& label) {
    for (const auto& s : kDefaultShapes)
      if (s.label == label) return s;
    throw std::logic_error("unknown shape " + label);  // serve() admits only known labels
  }
  static std::size_t slot_floats(const Shape& s, int dir) {
    const std::size_t mk = static_cast<std::size_t>(s.M) * s.K, kn = static_cast<std::size_t>(s.K) * s.N,
                      mn = static_cast<std::size_t>(s.M) * s.N;
    return dir == 0 ? round_up16(mk) + round_up16(kn) : round_up16(mn) + round_up16(mk) + round_up16(kn);
  }
  static void rings(const Shape& s, WorkerShape& st) {
    constexpr int kOutRing = 4;
    if (!st.outs.empty()) return;
    const std::size_t mk = static_cast<std::size_t>(s.M) * s.K, kn = static_cast<std::size_t>(s.K) * s.N,
                      mn = static_cast<std::size_t>(s.M) * s.N;
    st.outs.assign(kOutRing, std::vector<float>(mn));
    st.das.assign(kOutRing, std::vector<float>(mk));
    st.dbs.assign(kOutRing, std::vector<float>(kn));
  }
  // One call of direction `dir` on the slice at `p`; output buffer i of the ring.
  Call one_call(const Shape& s, WorkerShape& st, int dir, const float* p, std::size_t i) {
    const int M = s.M, N = s.N, K = s.K;
    const std::size_t mk = static_cast<std::size_t>(M) * K, mn = static_cast<std::size_t>(M) * N;
    const std::size_t r = i % st.outs.size();
    Call call;
    if (dir == 0) {
      call = timed_forward(p, p + round_up16(mk), st.outs[r], slot_floats(s, 0), M, N, K);
    } else {
      const float* a = p + round_up16(mn);
      call = timed_backward(p, a, a + round_up16(mk), st.das[r], st.dbs[r], slot_floats(s, 1), M, N, K);
    }
    // The SNR columns stay the full check's (reproducible from the seed); a call's projection
    // below the threshold counts as an error of its batch (failed_call).
    if (call.left_thread() && !stray_) {
      // A thread may still read the pool: never free it from now on (the output rings never are).
      stray_ = true;
      pool_.keep_forever();
    }
    return call;
  }
  bool failed_call(const Call& c, int dir) const {
    const double th = o_.snr_threshold_db;
    return !(c.snr_a > th) || (dir == 1 && !(c.snr_b > th)) || c.inputs_changed || c.left_thread();
  }
  std::string prepare_error(const std::string& label, WorkerShape& st, bench::wire::Writer& w, const std::string& problem) {
    st.check = "ERROR";
    std::cerr << kHarnessName << ": shape " << label << ": prepare: " << problem << "\n";
    w.str("check", "ERROR").str("problem", problem);
    return "";
  }

  const Options& o_;
  std::map<std::string, WorkerShape> state_;
  bench::WorkerPool pool_;
  bool stray_ = false;
};

[[noreturn]] void serve(const Options& o) {
  if (!bench::wire::open_channel()) {
    std::cerr << kHarnessName << ": --serve: " << bench::wire::channel_error() << "\n";
    leave(1);
  }
  std::cerr << kHarnessName << ": " << cpu_gemm::config_string() << "; serving worker protocol "
            << bench::wire::kProtocol << "\n";
  bench::confine_or_say(kHarnessName);  // the channel is open: the worker needs nothing the filter denies
  GemmWorker worker(o);
  bench::wire::Harness h;
  h.name = kHarnessName;
  h.device = bench::cpu_model();
  h.csv_header = kCsvHeader;
  for (const auto& s : kDefaultShapes) h.shapes.push_back(s.label);
  h.prepare = [&](const std::string& shape, std::uint64_t seed, bench::wire::Writer& w) { return worker.prepare(shape, seed, w); };
  h.batch = [&](const std::string& shape, long long calls, std::uint64_t seed, bench::wire::Writer& w) {
    return worker.batch(shape, calls, seed, w);
  };
  h.row = [&](const std::string& shape, std::string* row) { return worker.row(shape, row); };
  h.leave = leave;
  bench::wire::serve(h, bench::wire::channel());
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  if (o.serve) serve(o);
  if (o.list_shapes) {
    for (const auto& s : kDefaultShapes) std::cout << s.label << ' ' << s.M << ' ' << s.N << ' ' << s.K << '\n';
    leave(0);
  }
  const std::vector<Shape> shapes = select_shapes(o);
  std::cerr << kHarnessName << ": " << cpu_gemm::config_string() << "\n";

  Pool pool;
  make_pool(o.seed, &pool);
  std::vector<Result> results;
  std::string csv = std::string(kCsvHeader) + "\n";
  if (!o.isolate) bench::confine_or_say(kHarnessName);  // the kernel runs here; no child is forked
  for (const auto& s : shapes) {
    results.push_back(o.isolate ? run_isolated(s, o, pool) : run_in_process(s, o, pool));
    csv += csv_row(s, results.back());
  }

  if (o.summary_csv.empty()) {
    std::cout << csv;
  } else if (!write_file_atomically(o.summary_csv, csv)) {
    std::cerr << kHarnessName << ": cannot write --summary-csv " << o.summary_csv << ": "
              << std::strerror(errno) << "\n";
    leave(1);
  }
  if (!o.samples.empty() && !write_file_atomically(o.samples, samples_text(shapes, results, o))) {
    std::cerr << kHarnessName << ": cannot write --samples " << o.samples << ": " << std::strerror(errno)
              << "\n";
    leave(1);
  }
  // Both files are written and closed: end here, before any exit handler could touch them.
  leave(0);
}
