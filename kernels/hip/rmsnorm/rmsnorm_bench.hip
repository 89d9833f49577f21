// Native bench of the sample RMSNorm (harness/hip command-line contract, memory-bound schema):
//   kopt_hip_rmsnorm_bench --summary-csv PATH --samples PATH [--shapes L1,L2] [--seed N]
//   kopt_hip_rmsnorm_bench --check-only
// Per shape: one checked call of forward and backward (outputs poisoned first), every element of
// y, dx and dw compared with the float64 host reference (|out - ref| <= 1e-2 + 1e-2 |ref|), then
// each direction timed one call at a time on fresh inputs from a pool larger than L2, with an L2
// flush between calls and a spot check of one row of every timed call's output.
// GB/s counts the bytes a perfect kernel must move: forward reads x and w and writes y; backward
// reads x, dy and w and writes dx and dw.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "harness/hip/bench_driver.h"
#include "harness/hip/buffer_plan.h"
#include "harness/hip/correctness.h"
#include "harness/hip/gpu/device_buffer.h"
#include "harness/hip/gpu/device_context.h"
#include "harness/hip/gpu/fill_kernels.h"
#include "harness/hip/gpu/l2_flush.h"
#include "harness/hip/gpu/timed_loop.h"
#include "harness/hip/parallel_for.h"
#include "rmsnorm/rmsnorm.h"
#include "rmsnorm/rmsnorm_reference.h"

namespace {

using namespace kopt::hipbench;
using namespace kopt::kernels;

constexpr float kEps = 1e-6f;
constexpr double kAtol = 1e-2, kRtol = 1e-2;

enum Tensor : std::uint32_t { kTensorX = 10, kTensorW = 11, kTensorDy = 12 };

DeviceContext& device() {
  static DeviceContext ctx = DeviceContext::current();
  return ctx;
}
std::unique_ptr<L2Flusher>& flusher() {
  static std::unique_ptr<L2Flusher> f;
  return f;
}

RmsnormProblem problemFor(const Shape& s, std::uint64_t seed, std::uint32_t generation) {
  RmsnormProblem p;
  p.m = static_cast<int>(s.m);
  p.n = static_cast<int>(s.n);
  p.eps = kEps;
  p.x = InputStream{seed, kTensorX, generation, 1.0f, 0.0f};
  p.w = InputStream{seed, kTensorW, generation, 0.5f, 1.0f};  // weights in [0.5, 1.5), as trained norms look
  p.dy = InputStream{seed, kTensorDy, generation, 1.0f, 0.0f};
  return p;
}

std::uint32_t generationOf(int sample) {
  return sample >= 0 ? 16u + static_cast<std::uint32_t>(sample) : static_cast<std::uint32_t>(-sample);
}

void fill(DeviceBuffer<std::uint16_t>& buffer, const InputStream& stream) { fillInputs(buffer.get(), buffer.size(), stream); }
void poison(DeviceBuffer<std::uint16_t>& buffer) { fillBits(buffer.get(), buffer.size(), kBf16Poison); }

int setsFor(std::uint64_t inputBytes, std::uint64_t outputBytes) {
  size_t freeBytes = 0, total = 0;
  KOPT_HIP_CHECK(hipMemGetInfo(&freeBytes, &total));
  const double inputShare = static_cast<double>(inputBytes) / static_cast<double>(inputBytes + outputBytes);
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(freeBytes) / 2 * inputShare);
  return inputSetsFor(inputBytes, 2 * device().l2Bytes, budget);
}

// Compares one output row (or dw) with its reference; merges into `check`.
void compareRow(ToleranceCheck& check, std::size_t base, const std::vector<double>& ref, const std::uint16_t* got) {
  for (std::size_t j = 0; j < ref.size(); ++j) check.add(base + j, ref[j], bf16BitsToFloat(got[j]));
}

void spotCheckRow(const RmsnormProblem& p, const DeviceBuffer<std::uint16_t>& out, bool forward, int sample) {
  std::mt19937_64 rng(0x5eed1000ull + static_cast<std::uint64_t>(sample) * 104729u + (forward ? 0 : 1));
  const int row = static_cast<int>(rng() % static_cast<std::uint64_t>(p.m));
  const RmsnormRow ref = rmsnormReferenceRow(p, row);
  std::vector<std::uint16_t> got(p.n);
  KOPT_HIP_CHECK(hipMemcpy(got.data(), out.get() + static_cast<std::size_t>(row) * p.n, got.size() * 2, hipMemcpyDeviceToHost));
  ToleranceCheck check;
  check.atol = kAtol;
  check.rtol = kRtol;
  compareRow(check, 0, forward ? ref.y : ref.dx, got.data());
  if (!check.pass()) {
    std::ostringstream msg;
    msg << (forward ? "y" : "dx") << " of timed call " << sample << " is wrong in row " << row << " column "
        << check.firstFailure << ": got " << check.firstOut << ", expected " << check.firstRef
        << " (the output must be recomputed for every call's inputs)";
    throw CheckFailure(msg.str());
  }
}

ShapeOutcome runShape(const Shape& shape, const RunContext& ctx) {
  ShapeOutcome outcome;
  const int M = static_cast<int>(shape.m), N = static_cast<int>(shape.n);
  const std::size_t mn = static_cast<std::size_t>(M) * N;
  const std::size_t workspace = rmsnormBackwardWorkspaceBytes(M, N);

  {  // The checked call.
    const RmsnormProblem p = problemFor(shape, ctx.seed, 0);
    DeviceBuffer<std::uint16_t> x(mn), w(N), dy(mn), y(mn), dx(mn), dw(N);
    DeviceBuffer<float> ws(workspace / sizeof(float) + 1);
    fill(x, p.x);
    fill(w, p.w);
    fill(dy, p.dy);
    poison(y);
    poison(dx);
    poison(dw);
    KOPT_HIP_CHECK(rmsnormForward(x.get(), w.get(), y.get(), M, N, kEps, nullptr));
    KOPT_HIP_CHECK(rmsnormBackward(dy.get(), x.get(), w.get(), dx.get(), dw.get(), ws.get(), ws.bytes(), M, N, kEps, nullptr));
    KOPT_HIP_CHECK(hipDeviceSynchronize());
    const auto hostY = y.toHost(), hostDx = dx.toHost(), hostDw = dw.toHost();

    std::vector<ToleranceCheck> perRow(M);
    parallelFor(static_cast<std::size_t>(M), [&](std::size_t row) {
      ToleranceCheck& check = perRow[row];
      check.atol = kAtol;
      check.rtol = kRtol;
      const RmsnormRow ref = rmsnormReferenceRow(p, static_cast<int>(row));
      compareRow(check, row * N, ref.y, hostY.data() + row * N);
      compareRow(check, row * N, ref.dx, hostDx.data() + row * N);
    }, /*grain=*/16);
    ToleranceCheck dwCheck;
    dwCheck.atol = kAtol;
    dwCheck.rtol = kRtol;
    compareRow(dwCheck, 0, rmsnormReferenceDw(p), hostDw.data());

    double maxAbs = dwCheck.maxAbsErr;
    std::size_t failures = dwCheck.failures + dwCheck.nonFinite;
    const ToleranceCheck* first = dwCheck.pass() ? nullptr : &dwCheck;
    for (const auto& c : perRow) {
      maxAbs = std::max(maxAbs, c.maxAbsErr);
      failures += c.failures + c.nonFinite;
      if (!first && !c.pass()) first = &c;
    }
    outcome.pass = failures == 0;
    outcome.checkValues = {maxAbs};
    if (!outcome.pass) {
      std::ostringstream note;
      note << failures << " elements of y/dx/dw outside |err| <= " << kAtol << " + " << kRtol << "|ref| or not finite";
      if (first) note << "; first at flat index " << first->firstFailure << ": got " << first->firstOut << ", expected " << first->firstRef
                      << (first == &dwCheck ? " (dw)" : " (y or dx)");
      outcome.note = note.str();
    }
  }
  if (!outcome.pass || ctx.checkOnly) return outcome;

  const double bytesForward = 2.0 * static_cast<double>(mn) * 2 + 2.0 * N;
  const double bytesBackward = 3.0 * static_cast<double>(mn) * 2 + 2.0 * 2 * N;

  {  // Forward.
    const int sets = setsFor(mn * 2 + N * 2, mn * 2);
    std::vector<DeviceBuffer<std::uint16_t>> x(sets), w(sets), y(sets);
    for (int s = 0; s < sets; ++s) {
      x[s].allocate(mn);
      w[s].allocate(N);
      y[s].allocate(mn);
    }
    int slot = 0;
    RmsnormProblem current;
    TimedCall call;
    call.prepare = [&](int sample) {
      slot = (sample >= 0 ? sample : -1 - sample) % sets;
      current = problemFor(shape, ctx.seed, generationOf(sample));
      fill(x[slot], current.x);
      fill(w[slot], current.w);
      poison(y[slot]);
    };
    call.launch = [&] { KOPT_HIP_CHECK(rmsnormForward(x[slot].get(), w[slot].get(), y[slot].get(), M, N, kEps, nullptr)); };
    call.verify = [&](int sample) { spotCheckRow(current, y[slot], true, sample); };
    outcome.forward = timeAdaptive(call, ctx.sampling.forShare(1.0 / 3), *flusher(), bytesForward,
                                   warmupCalls(ctx.sampling, ctx.seed, shape.label, true), ctx.launchCover);
  }
  {  // Backward.
    const int sets = setsFor(mn * 2 * 2 + N * 2, mn * 2 + N * 2 + workspace);
    std::vector<DeviceBuffer<std::uint16_t>> dy(sets), x(sets), w(sets), dx(sets), dw(sets);
    std::vector<DeviceBuffer<float>> ws(sets);
    for (int s = 0; s < sets; ++s) {
      dy[s].allocate(mn);
      x[s].allocate(mn);
      w[s].allocate(N);
      dx[s].allocate(mn);
      dw[s].allocate(N);
      ws[s].allocate(workspace / sizeof(float) + 1);
    }
    int slot = 0;
    RmsnormProblem current;
    TimedCall call;
    call.prepare = [&](int sample) {
      slot = (sample >= 0 ? sample : -1 - sample) % sets;
      current = problemFor(shape, ctx.seed ^ 0xb0b0b0b0ull, generationOf(sample));
      fill(dy[slot], current.dy);
      fill(x[slot], current.x);
      fill(w[slot], current.w);
      poison(dx[slot]);
      poison(dw[slot]);
    };
    call.launch = [&] {
      KOPT_HIP_CHECK(rmsnormBackward(dy[slot].get(), x[slot].get(), w[slot].get(), dx[slot].get(), dw[slot].get(),
                                     ws[slot].get(), ws[slot].bytes(), M, N, kEps, nullptr));
    };
    call.verify = [&](int sample) { spotCheckRow(current, dx[slot], false, sample); };
    outcome.backward = timeAdaptive(call, ctx.sampling.forShare(2.0 / 3), *flusher(), bytesBackward,
                                    warmupCalls(ctx.sampling, ctx.seed, shape.label, false), ctx.launchCover);
  }
  return outcome;
}

Shape rmsShape(long long m, long long n, const char* prefix = "") {
  Shape s;
  s.m = m;
  s.n = n;
  s.label = std::string(prefix) + "m" + std::to_string(m) + "_n" + std::to_string(n);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  BenchDefinition bench;
  bench.harness = "hip_rmsnorm_bf16";
  bench.schema = Schema::Memory;
  // Hidden sizes of common models at token counts that make each tensor 16 MiB to 256 MiB.
  bench.shapes = {rmsShape(8192, 4096), rmsShape(16384, 8192), rmsShape(32768, 2048), rmsShape(4096, 16384),
                  rmsShape(65536, 1024)};
  // Odd row lengths (no vector loads), a tiny shape, a row long enough to need 1024 threads.
  bench.edgeShapes = {rmsShape(1000, 1001, "edge_"), rmsShape(3, 5, "edge_"), rmsShape(33, 2056, "edge_"),
                      rmsShape(257, 12288, "edge_"), rmsShape(7, 40000, "edge_"), rmsShape(2, 65536, "edge_")};
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
