// Native bench of the sample bf16 GEMM (harness/hip command-line contract):
//   kopt_hip_gemm_bench --summary-csv PATH --samples PATH [--shapes L1,L2] [--seed N]
//   kopt_hip_gemm_bench --check-only            (the campaign's test command)
// Per shape: one checked call of forward and backward on generator inputs (outputs poisoned with
// NaN first; every output element must be finite; SNR against the float64 host reference on a
// sampled block must exceed 30 dB), then each direction timed one call at a time on fresh inputs
// rotated through a pool larger than L2, with an L2 flush between calls and a spot check of every
// timed call's output.
#include <cmath>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "gemm/gemm.h"
#include "gemm/gemm_reference.h"
#include "harness/hip/bench_driver.h"
#include "harness/hip/buffer_plan.h"
#include "harness/hip/correctness.h"
#include "harness/hip/gpu/device_buffer.h"
#include "harness/hip/gpu/device_context.h"
#include "harness/hip/gpu/fill_kernels.h"
#include "harness/hip/gpu/l2_flush.h"
#include "harness/hip/gpu/timed_loop.h"

namespace {

using namespace kopt::hipbench;
using namespace kopt::kernels;

// bf16 operands with fp32 accumulation land between 40 and 60 dB on uniform data; 30 dB catches
// wrong indexing, missing tiles and precision downgrades with a wide margin for rounding.
constexpr double kSnrThresholdDb = 30.0;
constexpr int kSampledRowsCols = 48;

enum Tensor : std::uint32_t { kTensorA = 0, kTensorW = 1, kTensorG = 2 };

DeviceContext& device() {
  static DeviceContext ctx = DeviceContext::current();
  return ctx;
}
std::unique_ptr<L2Flusher>& flusher() {
  static std::unique_ptr<L2Flusher> f;
  return f;
}

// Input sets for one direction: enough to exceed twice the L2 together, within half the free
// memory (each set also holds its outputs).
int setsFor(std::uint64_t inputBytes, std::uint64_t outputBytes) {
  size_t freeBytes = 0, total = 0;
  KOPT_HIP_CHECK(hipMemGetInfo(&freeBytes, &total));
  const double inputShare = static_cast<double>(inputBytes) / static_cast<double>(inputBytes + outputBytes);
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(freeBytes) / 2 * inputShare);
  return inputSetsFor(inputBytes, 2 * device().l2Bytes, budget);
}

GemmProblem problemFor(const Shape& s, std::uint64_t seed, std::uint32_t generation) {
  GemmProblem p;
  p.batch = static_cast<int>(s.b);
  p.m = static_cast<int>(s.m);
  p.n = static_cast<int>(s.n);
  p.k = static_cast<int>(s.k);
  p.a = InputStream{seed, kTensorA, generation, 1.0f, 0.0f};
  p.w = InputStream{seed, kTensorW, generation, 1.0f, 0.0f};
  p.g = InputStream{seed, kTensorG, generation, 1.0f, 0.0f};
  return p;
}

std::size_t elems(long long a, long long b, long long c) { return static_cast<std::size_t>(a * b * c); }

void fill(DeviceBuffer<std::uint16_t>& buffer, const InputStream& stream) { fillInputs(buffer.get(), buffer.size(), stream); }
void poison(DeviceBuffer<std::uint16_t>& buffer) { fillBits(buffer.get(), buffer.size(), kBf16Poison); }

// Generations: 0 for the checked call, 1..15 for warm-up calls, 16+ for timed samples: every call
// sees inputs no earlier call saw.
std::uint32_t generationOf(int sample) {
  return sample >= 0 ? 16u + static_cast<std::uint32_t>(sample) : static_cast<std::uint32_t>(-sample);
}

// SNR of one output over a sampled block of the first and the last batch.
double sampledSnr(const GemmProblem& p, GemmOutput which, const std::vector<std::uint16_t>& host, std::uint64_t seed) {
  const int rows = outputRows(p, which), cols = outputCols(p, which);
  const auto rowIdx = sampleIndices(rows, kSampledRowsCols, seed * 3 + 1);
  const auto colIdx = sampleIndices(cols, kSampledRowsCols, seed * 3 + 2);
  SnrAccumulator snr;
  std::vector<int> batches{0};
  if (p.batch > 1) batches.push_back(p.batch - 1);
  for (int b : batches) {
    const ReferenceBlock ref = gemmReference(p, which, b, rowIdx, colIdx);
    for (std::size_t r = 0; r < rowIdx.size(); ++r) {
      for (std::size_t c = 0; c < colIdx.size(); ++c) {
        const std::size_t index = (static_cast<std::size_t>(b) * rows + rowIdx[r]) * cols + colIdx[c];
        snr.add(ref.value[r * colIdx.size() + c], bf16BitsToFloat(host[index]));
      }
    }
  }
  return snr.db();
}

// One timed call's output, checked at a few elements against the host reference for that call's
// inputs. A kernel that returns a cached or stale result fails here.
void spotCheck(const GemmProblem& p, GemmOutput which, const DeviceBuffer<std::uint16_t>& out, int sample, const char* what) {
  const int rows = outputRows(p, which), cols = outputCols(p, which);
  std::mt19937_64 rng(0x5eed0000ull + static_cast<std::uint64_t>(sample) * 7919u + static_cast<std::uint64_t>(which));
  const int b = static_cast<int>(rng() % static_cast<std::uint64_t>(p.batch));
  const std::vector<int> rowIdx{static_cast<int>(rng() % rows), rows - 1};
  const std::vector<int> colIdx{static_cast<int>(rng() % cols), cols - 1};
  const ReferenceBlock ref = gemmReference(p, which, b, rowIdx, colIdx);
  for (std::size_t r = 0; r < rowIdx.size(); ++r) {
    for (std::size_t c = 0; c < colIdx.size(); ++c) {
      const std::size_t index = (static_cast<std::size_t>(b) * rows + rowIdx[r]) * cols + colIdx[c];
      const double got = bf16BitsToFloat(out.elementToHost(index));
      const double want = ref.value[r * colIdx.size() + c];
      const double tol = 1e-2 * ref.scale[r * colIdx.size() + c] + 1e-2 * std::fabs(want);
      if (!(std::fabs(got - want) <= tol)) {
        std::ostringstream msg;
        msg << what << " of timed call " << sample << " is wrong at [" << b << "," << rowIdx[r] << "," << colIdx[c]
            << "]: got " << got << ", expected " << want << " (the output must be recomputed for every call's inputs)";
        throw CheckFailure(msg.str());
      }
    }
  }
}

ShapeOutcome runShape(const Shape& shape, const RunContext& ctx) {
  ShapeOutcome outcome;
  const int B = static_cast<int>(shape.b), M = static_cast<int>(shape.m), N = static_cast<int>(shape.n),
            K = static_cast<int>(shape.k);
  const std::size_t aN = elems(B, M, K), wN = elems(B, N, K), gN = elems(B, M, N);

  {  // The checked call.
    const GemmProblem p = problemFor(shape, ctx.seed, 0);
    DeviceBuffer<std::uint16_t> a(aN), w(wN), g(gN), out(gN), da(aN), dw(wN);
    fill(a, p.a);
    fill(w, p.w);
    fill(g, p.g);
    poison(out);
    poison(da);
    poison(dw);
    KOPT_HIP_CHECK(gemmForward(a.get(), w.get(), out.get(), B, M, N, K, nullptr));
    KOPT_HIP_CHECK(gemmBackward(g.get(), a.get(), w.get(), da.get(), dw.get(), B, M, N, K, nullptr));
    KOPT_HIP_CHECK(hipDeviceSynchronize());
    const auto hostOut = out.toHost(), hostDa = da.toHost(), hostDw = dw.toHost();
    const std::size_t nonFinite = countNonFiniteBf16(hostOut.data(), hostOut.size()) +
                                  countNonFiniteBf16(hostDa.data(), hostDa.size()) +
                                  countNonFiniteBf16(hostDw.data(), hostDw.size());
    outcome.checkValues = {sampledSnr(p, GemmOutput::Out, hostOut, ctx.seed), sampledSnr(p, GemmOutput::Da, hostDa, ctx.seed),
                           sampledSnr(p, GemmOutput::Dw, hostDw, ctx.seed)};
    outcome.pass = nonFinite == 0;
    for (double snr : outcome.checkValues) outcome.pass = outcome.pass && snr > kSnrThresholdDb;
    if (!outcome.pass) {
      std::ostringstream note;
      note << "non-finite or unwritten output elements: " << nonFinite << "; SNR out/da/dw = " << outcome.checkValues[0]
           << "/" << outcome.checkValues[1] << "/" << outcome.checkValues[2] << " dB (threshold " << kSnrThresholdDb << ")";
      outcome.note = note.str();
    }
  }
  if (!outcome.pass || ctx.checkOnly) return outcome;

  const double flopsForward = 2.0 * B * static_cast<double>(M) * N * K;

  {  // Forward.
    const int sets = setsFor((aN + wN) * 2, gN * 2);
    std::vector<DeviceBuffer<std::uint16_t>> a(sets), w(sets), out(sets);
    for (int s = 0; s < sets; ++s) {
      a[s].allocate(aN);
      w[s].allocate(wN);
      out[s].allocate(gN);
    }
    int slot = 0;
    GemmProblem current;
    TimedCall call;
    call.prepare = [&](int sample) {
      slot = (sample >= 0 ? sample : -1 - sample) % sets;
      current = problemFor(shape, ctx.seed, generationOf(sample));
      fill(a[slot], current.a);
      fill(w[slot], current.w);
      poison(out[slot]);
    };
    call.launch = [&] { KOPT_HIP_CHECK(gemmForward(a[slot].get(), w[slot].get(), out[slot].get(), B, M, N, K, nullptr)); };
    call.verify = [&](int sample) { spotCheck(current, GemmOutput::Out, out[slot], sample, "forward output"); };
    outcome.forward = timeAdaptive(call, ctx.sampling.forShare(1.0 / 3), *flusher(), flopsForward,
                                   warmupCalls(ctx.sampling, ctx.seed, shape.label, true), ctx.launchCover);
  }
  {  // Backward: both launches (da and dw) in one timed call.
    const int sets = setsFor((gN + aN + wN) * 2, (aN + wN) * 2);
    std::vector<DeviceBuffer<std::uint16_t>> g(sets), a(sets), w(sets), da(sets), dw(sets);
    for (int s = 0; s < sets; ++s) {
      g[s].allocate(gN);
      a[s].allocate(aN);
      w[s].allocate(wN);
      da[s].allocate(aN);
      dw[s].allocate(wN);
    }
    int slot = 0;
    GemmProblem current;
    TimedCall call;
    call.prepare = [&](int sample) {
      slot = (sample >= 0 ? sample : -1 - sample) % sets;
      current = problemFor(shape, ctx.seed ^ 0xb0b0b0b0ull, generationOf(sample));
      fill(g[slot], current.g);
      fill(a[slot], current.a);
      fill(w[slot], current.w);
      poison(da[slot]);
      poison(dw[slot]);
    };
    call.launch = [&] {
      KOPT_HIP_CHECK(gemmBackward(g[slot].get(), a[slot].get(), w[slot].get(), da[slot].get(), dw[slot].get(), B, M, N, K,
                                  nullptr));
    };
    call.verify = [&](int sample) {
      spotCheck(current, GemmOutput::Da, da[slot], sample, "backward da");
      spotCheck(current, GemmOutput::Dw, dw[slot], sample, "backward dw");
    };
    outcome.backward = timeAdaptive(call, ctx.sampling.forShare(2.0 / 3), *flusher(), 2.0 * flopsForward,
                                    warmupCalls(ctx.sampling, ctx.seed, shape.label, false), ctx.launchCover);
  }
  return outcome;
}

Shape gemmShape(long long b, long long m, long long n, long long k, const char* prefix = "") {
  Shape s;
  s.b = b;
  s.m = m;
  s.n = n;
  s.k = k;
  s.label = std::string(prefix) + (b > 1 ? "b" + std::to_string(b) + "_" : std::string()) + "m" + std::to_string(m) +
            "_n" + std::to_string(n) + "_k" + std::to_string(k);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  BenchDefinition bench;
  bench.harness = "hip_gemm_bf16";
  bench.schema = Schema::Gemm;
  // Square sizes around the ridge point, a wide FFN-like projection, a tall-skinny and a deep-K shape.
  bench.shapes = {gemmShape(1, 2048, 2048, 2048), gemmShape(1, 4096, 4096, 4096), gemmShape(1, 8192, 8192, 8192),
                  gemmShape(1, 4096, 14336, 4096), gemmShape(1, 16384, 2048, 1024)};
  // Tails that do not divide the tiles or the vector width, a batch, and a long K.
  bench.edgeShapes = {gemmShape(1, 1000, 1000, 1000, "edge_"), gemmShape(1, 129, 257, 65, "edge_"),
                      gemmShape(3, 512, 384, 260, "edge_"), gemmShape(1, 64, 64, 4104, "edge_"),
                      gemmShape(1, 1, 4096, 512, "edge_")};
  bench.deviceName = [] { return device().name; };
  bench.setUp = [](const RunContext& ctx) {
    DeviceContext& dev = device();
    if (!ctx.checkOnly) {
      flusher() = std::make_unique<L2Flusher>(ctx.flushBytes ? *ctx.flushBytes : defaultFlushBytes(dev.l2Bytes, dev.amd),
                                             ctx.flushMode);
    }
  };
  bench.runShape = runShape;
  return runBenchMain(argc, argv, bench);
}
