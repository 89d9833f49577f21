// Native bench harness of the grouped CPU GEMM (grouped_gemm.cpp), following the kopt harness
// contract:
//   cpu_grouped_gemm_bench [--summary-csv PATH] [--samples PATH] [--shapes L1,L2] [--seed N] [options]
// It writes the frozen 15-column GEMM CSV (B = number of groups, M = total rows; forward only, so
// the backward columns are nan) and the raw-sample JSON Lines file.
//   cpu_grouped_gemm_bench --serve
// is a persistent bench worker speaking harness/WORKER-PROTOCOL.md (JSON lines on stdin, replies on
// the original stdout); group sizes then come from the prepare and batch seeds.
//
// Why it exists (docs/integrity.md, class 10 / gap G7): a grouped kernel can be fast only when
// every group has the same size (a compile-time group size, sizes rounded to the block, empty
// groups skipped). So the group sizes of every checked call and of every timed call are drawn from
// --seed, which kopt keeps secret and changes per run: uniform routing, one dominant group, sizes
// that are no multiple of 16, empty groups. The kernel sees only the sizes of the call it serves.
// Everything else is the same defence as kernels/cpu/bench.cpp: fp64 reference on NaN-poisoned
// outputs, inputs hashed around the checked calls, every timed call on fresh inputs and verified
// after its clock stops (Freivalds projection per group), a thread census, one forked child per
// shape (CSV mode; a worker measures in process, and kopt restarts a worker that dies).
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
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

#include "../cpu/bench_util.h"
#include "grouped_gemm.h"

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kName = "cpu_grouped_gemm_bench";
// The GEMM schema of the kopt harness contract (identical to kernels/cpu's table).
constexpr const char* kHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,"
    "Backward TFLOPS_stddev,Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr";
constexpr int kAlign = 16;  // the block size a shortcut would round group sizes to

// Total rows, N, K and the number of groups are fixed per label; how the rows split into groups
// changes per call and per seed. Every M/G is a multiple of 16, so the equal split (the only one a
// shortcut handles) is a legal distribution of every shape.
struct Shape {
  std::string label;
  int groups, M, N, K;
};
const std::vector<Shape> kShapes = {
    {"moe_8x", 8, 256, 128, 128},
    {"moe_16x", 16, 512, 64, 128},
    {"moe_64x", 64, 1024, 64, 64},
};

// How one call's M rows are split into groups.
enum class Dist { Equal, Uniform, Skewed, Unaligned, Empty };
constexpr std::array<Dist, 4> kSeededDists = {Dist::Uniform, Dist::Skewed, Dist::Unaligned, Dist::Empty};

const char* name_of(Dist d) {
  switch (d) {
    case Dist::Equal: return "equal";
    case Dist::Uniform: return "uniform";
    case Dist::Skewed: return "skewed";
    case Dist::Unaligned: return "unaligned";
    case Dist::Empty: return "empty";
  }
  return "?";
}

struct Options {
  std::string summary_csv, samples;
  std::vector<std::string> shapes;
  std::uint64_t seed = 0;
  int min_samples = 5;
  int max_samples = 200;
  double target_rsd = 0.01;
  double time_cap_ms = 100.0;
  double snr_threshold_db = 80.0;
  double shape_timeout_s = 60.0;
  bool isolate = true;
  bool list_shapes = false;
  bool forced = false;  // --distribution KIND: every check and call uses KIND (diagnostics only)
  Dist forced_dist = Dist::Uniform;
  bool serve = false;        // --serve: the bench worker protocol instead of the CSV run
  bool run_options = false;  // a CSV-run or diagnostics option was given (refused with --serve)
};

[[noreturn]] void leave(int code) {  // no exit handler may run after the result files exist
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(code);
}

[[noreturn]] void usage(const std::string& why) {
  std::cerr << kName << ": " << why << "\nusage: " << kName
            << " [--summary-csv PATH] [--samples PATH] [--shapes L1,L2,...] [--seed N]\n"
               "       [--min-samples N] [--max-samples N] [--target-rsd F] [--time-cap-ms F]\n"
               "       [--snr-threshold-db F] [--shape-timeout-s F] [--no-isolate] [--list-shapes]\n"
               "       [--distribution mixed|equal|uniform|skewed|unaligned|empty]\n"
               "   or: " << kName << " --serve [--snr-threshold-db F]   (bench worker protocol 1)\n";
  leave(2);
}

double number_arg(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v))
    usage(flag + " expects a number, got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    o.run_options = o.run_options || a == "--summary-csv" || a == "--samples" || a == "--shapes" || a == "--seed" ||
                    a == "--list-shapes" || a == "--distribution";
    if (a == "--serve") o.serve = true;
    else if (a == "--summary-csv") o.summary_csv = next();
    else if (a == "--samples") o.samples = next();
    else if (a == "--shapes") {
      std::stringstream in(next());
      for (std::string item; std::getline(in, item, ',');)
        if (!bench::trim(item).empty()) o.shapes.push_back(bench::trim(item));
      if (o.shapes.empty()) usage("--shapes needs at least one label");
    } else if (a == "--seed") {
      const std::string v = next();
      char* end = nullptr;
      errno = 0;
      const unsigned long long s = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0)
        usage("--seed expects a non-negative integer, got '" + v + "'");
      o.seed = s;
    } else if (a == "--min-samples") o.min_samples = static_cast<int>(number_arg(a, next()));
    else if (a == "--max-samples") o.max_samples = static_cast<int>(number_arg(a, next()));
    else if (a == "--target-rsd") o.target_rsd = number_arg(a, next());
    else if (a == "--time-cap-ms") o.time_cap_ms = number_arg(a, next());
    else if (a == "--snr-threshold-db") o.snr_threshold_db = number_arg(a, next());
    else if (a == "--shape-timeout-s") o.shape_timeout_s = number_arg(a, next());
    else if (a == "--no-isolate") o.isolate = false;
    else if (a == "--list-shapes") o.list_shapes = true;
    else if (a == "--distribution") {
      const std::string v = next();
      o.forced = v != "mixed";
      bool known = v == "mixed";
      for (Dist d : {Dist::Equal, Dist::Uniform, Dist::Skewed, Dist::Unaligned, Dist::Empty})
        if (v == name_of(d)) o.forced_dist = d, known = true;
      if (!known) usage("--distribution expects mixed, equal, uniform, skewed, unaligned or empty, got '" + v + "'");
    } else usage(a == "--help" || a == "-h" ? "help" : "unknown argument '" + a + "'");
  }
  if (o.min_samples < 2) usage("--min-samples must be at least 2");
  if (o.max_samples < o.min_samples) usage("--max-samples must be >= --min-samples");
  if (o.target_rsd <= 0) usage("--target-rsd must be positive (0.01 = 1%)");
  if (o.time_cap_ms <= 0) usage("--time-cap-ms must be positive");
  if (o.shape_timeout_s <= 0) usage("--shape-timeout-s must be positive");
  if (o.serve && o.run_options)
    usage("--serve takes shapes and seeds from its requests: drop --summary-csv, --samples, --shapes, --seed, "
          "--list-shapes, --distribution");
  return o;
}

std::vector<Shape> selected(const Options& o) {
  if (o.shapes.empty()) return kShapes;
  std::vector<Shape> out;
  std::set<std::string> seen;
  for (const auto& label : o.shapes) {
    auto it = std::find_if(kShapes.begin(), kShapes.end(), [&](const Shape& s) { return s.label == label; });
    if (it == kShapes.end()) {
      std::string known;
      for (const auto& s : kShapes) known += (known.empty() ? "" : ",") + s.label;
      std::cerr << kName << ": unknown shape label '" << label << "' (known: " << known << ")\n";
      leave(2);
    }
    if (!seen.insert(label).second) usage("shape label '" + label + "' given twice in --shapes");
    out.push_back(*it);
  }
  return out;
}

// An independent stream per (run seed, shape, purpose, index): the sizes of call i never depend
// on how many calls another shape or another purpose drew.
bench::Rng stream(std::uint64_t seed, const std::string& label, const char* purpose, std::uint64_t index) {
  bench::Rng mixer(seed ^ bench::fnv1a(label + '/' + purpose) ^ (index * 0xD1B54A32D192ED03ull));
  mixer.next();
  return bench::Rng(mixer.next());
}

int below(bench::Rng& rng, int n) { return static_cast<int>(rng.next() % static_cast<std::uint64_t>(n)); }

// `rows` rows routed one by one to a uniformly random group among `targets`.
void route(bench::Rng& rng, int rows, const std::vector<int>& targets, std::vector<int>& sizes) {
  for (int r = 0; r < rows; ++r) ++sizes[targets[below(rng, static_cast<int>(targets.size()))]];
}

// The group sizes of one call: G non-negative sizes summing to M, with the property `d` names.
std::vector<int> draw_sizes(Dist d, bench::Rng& rng, int M, int G) {
  std::vector<int> sizes(G, 0), all(G);
  for (int g = 0; g < G; ++g) all[g] = g;
  switch (d) {
    case Dist::Equal:
      std::fill(sizes.begin(), sizes.end(), M / G);
      break;
    case Dist::Uniform:  // a balanced router: sizes scatter around M/G
      route(rng, M, all, sizes);
      break;
    case Dist::Skewed: {  // one hot expert takes 50-90% of the rows
      const int hot = below(rng, G);
      sizes[hot] = M / 2 + below(rng, 2 * M / 5 + 1);
      std::vector<int> rest;
      for (int g = 0; g < G; ++g)
        if (g != hot) rest.push_back(g);
      route(rng, M - sizes[hot], rest, sizes);
      break;
    }
    case Dist::Unaligned: {  // every group non-empty and no multiple of 16
      for (int attempt = 0; attempt < 64; ++attempt) {
        std::fill(sizes.begin(), sizes.end(), 0);
        route(rng, M, all, sizes);
        for (int g = 0; g + 1 < G; ++g)
          if (sizes[g] % kAlign == 0) ++sizes[g], --sizes[G - 1];
        if (sizes[G - 1] > 0 && sizes[G - 1] % kAlign != 0) return sizes;
      }
      // Practically unreachable; still a valid unaligned split: M/G -/+ an odd offset in pairs.
      for (int g = 0; g < G; ++g) sizes[g] = M / G + (g % 2 ? 1 : -1) * (1 + 2 * below(rng, 3));
      if (G % 2) sizes[G - 1] = M / G;
      break;
    }
    case Dist::Empty: {  // 1 to G/2 groups receive no rows (group 0 among them half of the time)
      std::vector<int> order = all;
      for (int g = G - 1; g > 0; --g) std::swap(order[g], order[below(rng, g + 1)]);
      const int empties = 1 + below(rng, G / 2);
      std::vector<char> empty(G, 0);
      for (int e = 0; e < empties; ++e) empty[order[e]] = 1;
      if (below(rng, 2)) empty[0] = 1;
      std::vector<int> live;
      for (int g = 0; g < G; ++g)
        if (!empty[g]) live.push_back(g);
      if (live.empty()) live.push_back(G - 1);
      route(rng, M, live, sizes);
      break;
    }
  }
  return sizes;
}

std::string sizes_text(const std::vector<int>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size() && i < 12; ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + (s.size() > 12 ? ",...]" : "]");
}

void nan_fill(float* p, std::size_t n) { std::fill(p, p + n, std::numeric_limits<float>::quiet_NaN()); }

// fp64 reference of the grouped product: an independent i-k-j loop, not the kernel's code.
std::vector<double> reference(const float* A, const float* B, const std::vector<int>& sizes, int N, int K) {
  std::size_t M = 0;
  for (int m : sizes) M += static_cast<std::size_t>(m);
  std::vector<double> C(M * N, 0.0);
  std::size_t row = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    const float* b = B + g * static_cast<std::size_t>(K) * N;
    for (int i = 0; i < sizes[g]; ++i, ++row) {
      double* c = &C[row * N];
      for (int k = 0; k < K; ++k) {
        const double a = A[row * K + k];
        for (int j = 0; j < N; ++j) c[j] += a * b[static_cast<std::size_t>(k) * N + j];
      }
    }
  }
  return C;
}

// Freivalds projection of one call, O(G*K*N + M*(K+N)): (C x) against A_g (B_g x) per group, for
// a fresh random sign vector x. Rows the kernel left NaN, computed with another group's B or at
// another group's offset all show up as noise.
double projection_snr(const float* A, const float* B, const float* C, const std::vector<int>& sizes, int N,
                      int K, bench::Rng& rng) {
  std::vector<double> x(N), bx(K);
  for (double& v : x) v = (rng.next() >> 63) ? 1.0 : -1.0;
  std::vector<double> want, got;
  std::size_t row = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    if (sizes[g] == 0) continue;
    const float* b = B + g * static_cast<std::size_t>(K) * N;
    for (int k = 0; k < K; ++k) {
      double s = 0.0;
      for (int j = 0; j < N; ++j) s += b[static_cast<std::size_t>(k) * N + j] * x[j];
      bx[k] = s;
    }
    for (int i = 0; i < sizes[g]; ++i, ++row) {
      double w = 0.0, c = 0.0;
      for (int k = 0; k < K; ++k) w += A[row * K + k] * bx[k];
      for (int j = 0; j < N; ++j) c += C[row * N + j] * x[j];
      want.push_back(w);
      got.push_back(c);
    }
  }
  return bench::snr_db(want.data(), got.data(), want.size());
}

// The timing pool: random data twice the last-level cache, shared read-only by the shape children.
// A shape reads one half (evicting the other) and takes each timed call's inputs from a fresh slice
// of the other: no two calls share an input address or contents, and each starts cold.
struct Pool {
  std::vector<float> data;
};

void make_pool(std::uint64_t seed, Pool& pool) {
  const std::size_t floats = 2 * bench::llc_bytes() / sizeof(float);
  pool.data.resize(floats);
  bench::fill_fast(pool.data.data(), floats, seed ^ 0x5851F42D4C957F2Dull);
}

struct Result {
  bool ran = false;  // false: the child crashed, hung or threw before timing
  bool pass = false;
  double snr = kNaN;  // worst of the full checks and every per-call projection
  double ms = kNaN, tflops = kNaN, tflops_std = kNaN;
  std::string stop;
  std::vector<double> times;
  std::map<std::string, int> calls_by_dist;
  std::vector<std::string> notes;  // why the shape fails, one line each
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// 1. Full checks: one per distribution kind, each on its own secret-seeded sizes and inputs: an
// fp64 reference, NaN-poisoned output, inputs hashed around the call. False when one failed
// (notes say why); *worst = the worst SNR. With `threads_left` (the worker) each checked call is
// counted by the thread census too, and its buffers are kept alive when it left a thread.
bool full_checks(const Shape& s, const Options& o, std::uint64_t seed, std::vector<std::string>* notes, double* worst,
                 int* threads_left = nullptr) {
  const int M = s.M, N = s.N, K = s.K, G = s.groups;
  const std::size_t a_len = static_cast<std::size_t>(M) * K, b_len = static_cast<std::size_t>(G) * K * N;
  const std::size_t c_len = static_cast<std::size_t>(M) * N;
  auto dist_of_check = [&](std::size_t i) { return o.forced ? o.forced_dist : kSeededDists[i]; };
  const std::size_t checks = o.forced ? 1 : kSeededDists.size();
  bool ok = true;
  for (std::size_t i = 0; i < checks; ++i) {
    const Dist d = dist_of_check(i);
    bench::Rng rng = stream(seed, s.label, "check", i);
    const std::vector<int> sizes = draw_sizes(d, rng, M, G);
    std::vector<float> A(a_len), B(b_len);
    bench::fill_uniform(A, rng);
    bench::fill_uniform(B, rng);
    std::vector<float> a = A, b = B, c(c_len);
    nan_fill(c.data(), c_len);
    const std::uint64_t key = bench::fresh_random64();
    const std::uint64_t ha = bench::hash_floats(a.data(), a_len, key), hb = bench::hash_floats(b.data(), b_len, key);
    const int before = threads_left ? bench::thread_count() : -1;
    cpu_gemm::grouped::forward(a.data(), b.data(), c.data(), sizes.data(), G, M, N, K);
    if (bench::hash_floats(a.data(), a_len, key) != ha || bench::hash_floats(b.data(), b_len, key) != hb) {
      ok = false;
      notes->push_back("the kernel modified its inputs on the " + std::string(name_of(d)) + " check");
    }
    const std::vector<double> want = reference(A.data(), B.data(), sizes, N, K);
    const double snr = bench::snr_db(want.data(), c.data(), c_len);
    if (!(snr >= o.snr_threshold_db)) {
      ok = false;
      notes->push_back("reference check on the " + std::string(name_of(d)) + " distribution (group sizes " +
                       sizes_text(sizes) + ") failed: out_snr " + bench::fmt(snr) + " dB < " +
                       bench::fmt(o.snr_threshold_db));
    }
    if (!(snr >= *worst)) *worst = snr;
    if (threads_left && before >= 0 && bench::thread_count() > before) {
      ++*threads_left;
      static std::vector<std::vector<float>> kept;  // a stray thread may still write into them
      kept.push_back(std::move(a));
      kept.push_back(std::move(b));
      kept.push_back(std::move(c));
    }
  }
  return ok;
}

// One timed call: output NaN-poisoned, threads counted just before and after (outside the clock),
// one steady_clock interval around the call alone, then the per-group Freivalds projection. With
// `hash_inputs` (the worker) A and B, contiguous in their slice, are hashed around the call too.
struct TimedCall {
  double ms = kNaN, snr = kNaN;
  bool left_thread = false, inputs_changed = false;
};

// The projection vector and the hash key come from the system, drawn per call (the vector after
// the call wrote its output): derived from the seed, which the kernel can read, a kernel could fit
// its output to them (docs/integrity.md, referee hole 8).
TimedCall timed_call(const Shape& s, const float* A, const float* B, float* C, const std::vector<int>& sizes,
                     bool hash_inputs) {
  const int M = s.M, N = s.N, K = s.K, G = s.groups;
  const std::size_t inputs = static_cast<std::size_t>(M) * K + static_cast<std::size_t>(G) * K * N;
  TimedCall r;
  nan_fill(C, static_cast<std::size_t>(M) * N);
  const std::uint64_t key = bench::fresh_random64();
  const std::uint64_t h = hash_inputs ? bench::hash_floats(A, inputs, key) : 0;
  const int threads_before = bench::thread_count();
  const auto t0 = std::chrono::steady_clock::now();
  cpu_gemm::grouped::forward(A, B, C, sizes.data(), G, M, N, K);
  const auto t1 = std::chrono::steady_clock::now();
  r.left_thread = bench::thread_count() > threads_before;
  r.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  bench::Rng check_rng(bench::fresh_random64());
  r.snr = projection_snr(A, B, C, sizes, N, K, check_rng);
  r.inputs_changed = hash_inputs && bench::hash_floats(A, inputs, key) != h;
  return r;
}

Result measure(const Shape& s, const Options& o, Pool& pool) {
  Result res;
  const int M = s.M, N = s.N, K = s.K, G = s.groups;
  const std::size_t a_len = static_cast<std::size_t>(M) * K, b_len = static_cast<std::size_t>(G) * K * N;
  const std::size_t c_len = static_cast<std::size_t>(M) * N;
  double worst = std::numeric_limits<double>::infinity();
  bool ok = full_checks(s, o, o.seed, &res.notes, &worst);

  // 2. Timed calls on fresh pool slices, each with its own secret-seeded distribution.
  const std::size_t half = pool.data.size() / 2;
  const std::size_t slice = (a_len + b_len + 15) / 16 * 16;
  const bool upper = bench::fnv1a(s.label) & 1;  // which half this shape reads; the other is evicted
  float* base = pool.data.data() + (upper ? half : 0);
  {
    const float* other = pool.data.data() + (upper ? 0 : half);
    volatile float sink = 0.0f;
    float acc = 0.0f;
    for (std::size_t i = 0; i < half; i += 16) acc += other[i];
    sink = acc;
    (void)sink;
  }
  const int slices = static_cast<int>(half / slice);
  const int max_calls = std::min(o.max_samples, slices);
  if (max_calls < o.min_samples) {
    res.notes.push_back("the timing pool holds only " + std::to_string(slices) + " fresh input sets (< --min-samples)");
    ok = false;
  }
  std::array<std::vector<float>, 4> outs;
  for (auto& c : outs) c.resize(c_len);
  std::map<std::string, int> failed_by_dist;
  int leaked_threads = 0;
  std::vector<double> tflops;
  const double flops = 2.0 * M * N * K;
  const double start = now_ms();
  for (int call = 0; call < max_calls; ++call) {
    bench::Rng rng = stream(o.seed, s.label, "call", static_cast<std::uint64_t>(call));
    const Dist d = o.forced ? o.forced_dist : kSeededDists[below(rng, static_cast<int>(kSeededDists.size()))];
    const std::vector<int> sizes = draw_sizes(d, rng, M, G);
    // Written just before its call (past the cache): no call finds a later call's inputs written,
    // which a kernel could compute ahead in its own time (docs/integrity.md, class 8).
    float* A = base + static_cast<std::size_t>(call) * slice;
    bench::fill_cold(A, slice, rng.next());
    const float* B = A + a_len;
    float* C = outs[call % outs.size()].data();
    const TimedCall tc = timed_call(s, A, B, C, sizes, false);
    if (tc.left_thread) ++leaked_threads;
    const double ms = tc.ms;
    res.times.push_back(ms);
    tflops.push_back(flops / (ms * 1e-3) / 1e12);
    ++res.calls_by_dist[name_of(d)];
    const double snr = tc.snr;
    if (!(snr >= o.snr_threshold_db)) ++failed_by_dist[name_of(d)];
    if (!(snr >= worst)) worst = snr;
    const int n = static_cast<int>(res.times.size());
    if (n >= o.min_samples && bench::rsd(res.times) <= o.target_rsd) {
      res.stop = "rsd";
      break;
    }
    if (n >= o.min_samples && now_ms() - start >= o.time_cap_ms) {
      res.stop = "time_cap";
      break;
    }
  }
  if (res.stop.empty()) res.stop = "max_samples";
  if (!failed_by_dist.empty()) {
    ok = false;
    std::string text;
    int total = 0;
    for (const auto& [dist, count] : failed_by_dist) {
      text += (text.empty() ? "" : ", ") + dist + " " + std::to_string(count) + "/" +
              std::to_string(res.calls_by_dist[dist]);
      total += count;
    }
    res.notes.push_back(std::to_string(total) + " timed call(s) failed the per-call check (failed/timed by group-size distribution: " + text + ")");
  }
  if (leaked_threads) {
    ok = false;
    res.notes.push_back(std::to_string(leaked_threads) + " timed call(s) left a thread running");
  }
  res.ran = true;
  res.pass = ok;
  res.snr = worst;
  res.ms = bench::median(res.times);
  res.tflops = res.times.empty() ? kNaN : flops / (res.ms * 1e-3) / 1e12;
  res.tflops_std = bench::pstddev(tflops);
  return res;
}

// ---- parent/child: one forked child per shape, its Result sent back as text lines --------------

std::string encode(const Result& r) {
  std::ostringstream out;
  out << "pass " << r.pass << "\nsnr " << bench::fmt_exact(r.snr) << "\nms " << bench::fmt_exact(r.ms)
      << "\ntflops " << bench::fmt_exact(r.tflops) << "\nstd " << bench::fmt_exact(r.tflops_std) << "\nstop "
      << r.stop << "\ntimes";
  for (double t : r.times) out << ' ' << bench::fmt_exact(t);
  out << "\ndists";
  for (const auto& [d, n] : r.calls_by_dist) out << ' ' << d << ' ' << n;
  for (const auto& note : r.notes) out << "\nnote " << note;
  out << "\nend\n";
  return out.str();
}

bool decode(const std::string& text, Result& r) {
  std::istringstream in(text);
  bool complete = false;
  for (std::string line; std::getline(in, line);) {
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp), rest = sp == std::string::npos ? "" : line.substr(sp + 1);
    std::istringstream v(rest);
    auto num = [&]() { return std::strtod(rest.c_str(), nullptr); };
    if (key == "pass") r.pass = rest == "1";
    else if (key == "snr") r.snr = num();
    else if (key == "ms") r.ms = num();
    else if (key == "tflops") r.tflops = num();
    else if (key == "std") r.tflops_std = num();
    else if (key == "stop") r.stop = rest;
    else if (key == "times") for (std::string t; v >> t;) r.times.push_back(std::strtod(t.c_str(), nullptr));
    else if (key == "dists") {
      std::string d;
      int n = 0;
      while (v >> d >> n) r.calls_by_dist[d] = n;
    }
    else if (key == "note") r.notes.push_back(rest);
    else if (key == "end") complete = true;
  }
  r.ran = complete;
  return complete;
}

Result run_isolated(const Shape& s, const Options& o, Pool& pool) {
  int fds[2];
  Result failed;
  if (::pipe(fds) != 0) {
    failed.notes.push_back(std::string("pipe failed: ") + std::strerror(errno));
    return failed;
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    failed.notes.push_back(std::string("fork failed: ") + std::strerror(errno));
    return failed;
  }
  if (pid == 0) {
    ::close(fds[0]);
    bench::confine_or_say(kName);
    std::string msg;
    try {
      msg = encode(measure(s, o, pool));
    } catch (const std::exception& e) {
      Result r;
      r.notes.push_back(std::string("the kernel threw: ") + e.what());
      msg = encode(r);
    } catch (...) {
      Result r;
      r.notes.push_back("the kernel threw a non-standard exception");
      msg = encode(r);
    }
    for (std::size_t off = 0; off < msg.size();) {
      const ssize_t w = ::write(fds[1], msg.data() + off, msg.size() - off);
      if (w <= 0 && errno != EINTR) break;
      if (w > 0) off += static_cast<std::size_t>(w);
    }
    leave(0);
  }
  ::close(fds[1]);
  std::string text;
  const double deadline = now_ms() + o.shape_timeout_s * 1000.0;
  bool timed_out = false;
  for (char buf[4096];;) {
    pollfd p{fds[0], POLLIN, 0};
    const double left = deadline - now_ms();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    const int pr = ::poll(&p, 1, static_cast<int>(std::min(left, 1000.0)) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  Result r;
  if (decode(text, r)) return r;
  if (timed_out) r.notes.push_back("no result within --shape-timeout-s " + bench::fmt(o.shape_timeout_s) + " s (hang)");
  else if (WIFSIGNALED(status)) r.notes.push_back("the shape crashed (" + bench::signal_text(WTERMSIG(status)) + ")");
  else r.notes.push_back("the shape's process exited without a result (status " + std::to_string(status) + ")");
  return r;
}

// ---- output -----------------------------------------------------------------------------------

std::string csv_row(const Shape& s, const Result& r) {
  const std::string nan = "nan";
  std::ostringstream row;
  row << s.label << ',' << s.groups << ',' << s.M << ',' << s.N << ',' << s.K << ','
      << (r.pass && r.ran ? "PASS" : "FAIL") << ',' << bench::fmt(r.tflops) << ',' << bench::fmt(r.tflops_std)
      << ',' << nan << ',' << nan << ',' << bench::fmt(r.ms) << ',' << nan << ',' << bench::fmt(r.snr) << ','
      << nan << ',' << nan;
  return row.str();
}

std::string samples_line(const Shape& s, const Result& r) {
  const double bytes = 4.0 * (static_cast<double>(s.M) * s.K + static_cast<double>(s.groups) * s.K * s.N +
                              static_cast<double>(s.M) * s.N);
  std::ostringstream line;
  line << "{\"label\":\"" << bench::json_escape(s.label) << "\",\"direction\":\"forward\",\"unit\":\"ms\",\"times\":[";
  for (std::size_t i = 0; i < r.times.size(); ++i) line << (i ? "," : "") << bench::fmt_exact(r.times[i]);
  line << "],\"flops\":" << bench::fmt_exact(2.0 * s.M * s.N * s.K) << ",\"bytes\":" << bench::fmt_exact(bytes)
       << ",\"stop\":\"" << r.stop << "\",\"groups\":" << s.groups << ",\"distributions\":{";
  bool first = true;
  for (const auto& [d, n] : r.calls_by_dist) {
    line << (first ? "" : ",") << '"' << d << "\":" << n;
    first = false;
  }
  line << "}}";
  return line.str();
}

bool write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << text) || !f.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}


// ---- worker mode (--serve, harness/WORKER-PROTOCOL.md) --------------------------------------------
// Every shape is measured in this process: kopt restarts a worker that dies, and a shape it had not
// finished fails. Per call, as in the CSV mode: group sizes drawn from the request's seed, inputs
// from pool slices refilled from that seed and evicted before the batch, a NaN-poisoned rotating
// output, inputs hashed around the call, the thread census, the per-group projection.

struct WorkerShape {
  bool prepared = false;
  std::string check;  // PASS | FAIL | ERROR: the prepare check
  double snr = kNaN;  // worst of the full checks and every call since prepare
  std::vector<double> times;
  long long errors = 0;
  bool batch_threw = false;
  std::vector<std::vector<float>> outs;  // never freed: a stray thread may still write into them
};

class GroupedWorker {
 public:
  explicit GroupedWorker(const Options& o) : o_(o) {
    for (const auto& s : kShapes) state_[s.label];
  }

  std::string prepare(const std::string& label, std::uint64_t seed, bench::wire::Writer& w) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    if (st.outs.empty()) st.outs.assign(4, std::vector<float>(static_cast<std::size_t>(s.M) * s.N));
    st.prepared = true;
    st.check = "PASS";
    st.snr = std::numeric_limits<double>::infinity();
    st.times.clear();
    st.errors = 0;
    st.batch_threw = false;
    std::vector<std::string> notes;
    std::vector<double> warm;
    try {
      int threads_left = 0;
      full_checks(s, o_, seed, &notes, &st.snr, &threads_left);
      if (threads_left) notes.push_back("a checked call left a thread running");
      // Warm-up: the calls a batch makes, with group sizes and inputs from the prepare seed, until
      // 20 ms or 100 calls (at least 5); the median is kopt's estimate to size batches with.
      const std::size_t slot = slot_floats(s);
      if (std::string e = pool_.reserve(5 * slot); !e.empty()) return "shape: " + label + " " + e;
      const std::size_t calls = std::min<std::size_t>(100, pool_.region_floats() / slot);
      const auto slices = pool_.place_slices(0, slot, calls, seed ^ 0x7761726d00ull);
      pool_.evict(0);
      long long failed = 0;
      const double start = now_ms();
      for (std::size_t i = 0; i < calls && (i < 5 || now_ms() - start < 20.0); ++i) {
        const TimedCall c = one_call(s, st, bench::WorkerPool::write_slice(slices, i), stream(seed, s.label, "warm", i), i);
        warm.push_back(c.ms);
        failed += failed_call(c) ? 1 : 0;
      }
      if (failed)
        notes.push_back(std::to_string(failed) + " of " + std::to_string(warm.size()) +
                        " warm-up calls failed the per-call check (wrong result, modified inputs or a thread left running)");
    } catch (const std::exception& e) {
      return prepare_error(label, st, w, std::string("the kernel threw: ") + e.what());
    } catch (...) {
      return prepare_error(label, st, w, "the kernel threw a non-standard exception");
    }
    std::string problem;
    for (const auto& n : notes) problem += (problem.empty() ? "" : "; ") + n;
    if (!notes.empty()) {
      st.check = "FAIL";
      std::cerr << kName << ": shape " << label << ": prepare check FAILs: " << problem << "\n";
    }
    w.str("check", st.check).str("problem", problem)
        .raw("call_ms", "{\"forward\":" + bench::wire::Writer::number(bench::median(warm)) + "}");
    return "";
  }

  std::string batch(const std::string& label, long long calls, std::uint64_t seed, bench::wire::Writer& w) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    if (!st.prepared) return "shape: " + label + " is not prepared (send prepare first)";
    const double wall0 = now_ms();
    const std::size_t n = static_cast<std::size_t>(calls), slot = slot_floats(s);
    if (std::string e = pool_.reserve(n * slot); !e.empty()) return "calls: " + std::to_string(calls) + " calls of " + label + " " + e;
    std::vector<double> times;
    long long errors = 0;
    try {
      const auto slices = pool_.place_slices(0, slot, n, seed ^ 0x6261746368ull);
      pool_.evict(0);
      for (std::size_t i = 0; i < n; ++i) {
        const TimedCall c = one_call(s, st, bench::WorkerPool::write_slice(slices, i), stream(seed, s.label, "call", i), i);
        times.push_back(c.ms);
        errors += failed_call(c) ? 1 : 0;
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
      std::cerr << kName << ": shape " << label << ": " << errors
                << " call(s) of a batch failed the per-call check (wrong result, modified inputs or a thread left running)\n";
    st.times.insert(st.times.end(), times.begin(), times.end());
    const double bytes = 4.0 * (static_cast<double>(s.M) * s.K + static_cast<double>(s.groups) * s.K * s.N +
                                static_cast<double>(s.M) * s.N);
    using W = bench::wire::Writer;
    w.integer("errors", errors)
        .num("wall_ms", now_ms() - wall0)
        .raw("series", "[" + W().str("direction", "forward").raw("times_ms", W::numbers(times))
                                 .num("flops", 2.0 * s.M * s.N * s.K).num("bytes", bytes).object() + "]")
        .null("idle_probe_us");
    return "";
  }

  std::string row(const std::string& label, std::string* out) {
    const Shape& s = shape(label);
    WorkerShape& st = state_[label];
    if (!st.prepared) return "shape: " + label + " is not prepared (send prepare first)";
    Result r;
    r.ran = true;
    r.pass = st.check == "PASS" && st.errors == 0 && !st.batch_threw && st.snr >= o_.snr_threshold_db;
    r.snr = st.snr;
    const double flops = 2.0 * s.M * s.N * s.K;
    std::vector<double> tflops;
    for (double ms : st.times) tflops.push_back(flops / (ms * 1e-3) / 1e12);
    r.ms = bench::median(st.times);
    r.tflops = st.times.empty() ? kNaN : flops / (r.ms * 1e-3) / 1e12;
    r.tflops_std = bench::pstddev(tflops);
    *out = csv_row(s, r);
    return "";
  }

 private:
  static const Shape& shape(const std::string& label) {
    for (const auto& s : kShapes)
      if (s.label == label) return s;
    throw std::logic_error("unknown shape " + label);  // serve() admits only known labels
  }
  static std::size_t slot_floats(const Shape& s) {
    return (static_cast<std::size_t>(s.M) * s.K + static_cast<std::size_t>(s.groups) * s.K * s.N + 15) / 16 * 16;
  }
  // One call on the slice at `p` with the group sizes `rng` draws; output buffer i of the ring.
  TimedCall one_call(const Shape& s, WorkerShape& st, const float* p, bench::Rng rng, std::size_t i) {
    const Dist d = kSeededDists[below(rng, static_cast<int>(kSeededDists.size()))];
    const std::vector<int> sizes = draw_sizes(d, rng, s.M, s.groups);
    const TimedCall c = timed_call(s, p, p + static_cast<std::size_t>(s.M) * s.K, st.outs[i % st.outs.size()].data(), sizes,
                                   true);
    if (!(c.snr >= st.snr)) st.snr = c.snr;
    if (c.left_thread) pool_.keep_forever();  // a thread may still read the pool: never free it
    return c;
  }
  bool failed_call(const TimedCall& c) const { return !(c.snr >= o_.snr_threshold_db) || c.inputs_changed || c.left_thread; }
  std::string prepare_error(const std::string& label, WorkerShape& st, bench::wire::Writer& w, const std::string& problem) {
    st.check = "ERROR";
    std::cerr << kName << ": shape " << label << ": prepare: " << problem << "\n";
    w.str("check", "ERROR").str("problem", problem);
    return "";
  }

  const Options& o_;
  std::map<std::string, WorkerShape> state_;
  bench::WorkerPool pool_;
};

[[noreturn]] void serve(const Options& o) {
  if (!bench::wire::open_channel()) {
    std::cerr << kName << ": --serve: " << bench::wire::channel_error() << "\n";
    leave(1);
  }
  std::cerr << kName << ": " << cpu_gemm::grouped::config_string()
            << "; group sizes drawn from the request seeds; serving worker protocol " << bench::wire::kProtocol << "\n";
  bench::confine_or_say(kName);  // the channel is open: the worker needs nothing the filter denies
  GroupedWorker worker(o);
  bench::wire::Harness h;
  h.name = kName;
  h.device = bench::cpu_model();
  h.csv_header = kHeader;
  for (const auto& s : kShapes) h.shapes.push_back(s.label);
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
  const Options o = parse(argc, argv);
  if (o.serve) serve(o);
  if (o.list_shapes) {
    for (const auto& s : kShapes) std::cout << s.label << ' ' << s.groups << ' ' << s.M << ' ' << s.N << ' ' << s.K << '\n';
    leave(0);
  }
  const std::vector<Shape> shapes = selected(o);
  std::cerr << kName << ": " << cpu_gemm::grouped::config_string() << "; group sizes "
            << (o.forced ? std::string("forced to ") + name_of(o.forced_dist) + " (diagnostics only)"
                         : std::string("drawn from --seed (uniform, skewed, unaligned, empty)"))
            << "\n";
  Pool pool;
  make_pool(o.seed, pool);

  std::string csv = std::string(kHeader) + "\n";
  std::string samples = "{\"kopt_samples\":1,\"harness\":\"" + std::string(kName) + "\",\"device\":\"" +
                        bench::json_escape(bench::cpu_model()) + "\",\"seed\":" + std::to_string(o.seed) + "}\n";
  if (!o.isolate) bench::confine_or_say(kName);  // the kernel runs here; no child is forked
  for (const auto& s : shapes) {
    Result r;
    if (o.isolate) {
      r = run_isolated(s, o, pool);
    } else {
      try {
        r = measure(s, o, pool);
      } catch (const std::exception& e) {
        r.notes.push_back(std::string("the kernel threw: ") + e.what());
      }
    }
    if (!r.ran) r = Result{false, false, kNaN, kNaN, kNaN, kNaN, "", {}, {}, r.notes};  // no numbers from a crash
    for (const auto& note : r.notes) std::cerr << kName << ": shape " << s.label << " FAILs: " << note << "\n";
    csv += csv_row(s, r) + "\n";
    if (r.ran && !r.times.empty()) samples += samples_line(s, r) + "\n";
  }
  if (o.summary_csv.empty()) {
    std::cout << csv;
  } else if (!write_file(o.summary_csv, csv)) {
    std::cerr << kName << ": cannot write " << o.summary_csv << "\n";
    leave(1);
  }
  if (!o.samples.empty() && !write_file(o.samples, samples)) {
    std::cerr << kName << ": cannot write " << o.samples << "\n";
    leave(1);
  }
  leave(0);
}
