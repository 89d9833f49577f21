#pragma once
// How much memory the harness sets aside for cold-cache timing, decided on the host so it can be
// tested without a GPU.
#include <cstdint>

namespace kopt::hipbench {

// The flush buffer written between timed calls: at least twice the last-level cache. NVIDIA's L2
// is the last level; MI300X/MI355X put a 256 MiB Infinity Cache (MALL) behind their L2, so on AMD
// the floor is 512 MiB (measurement.md, B.3). Never below 256 MiB (Triton's own flush size).
std::uint64_t defaultFlushBytes(std::uint64_t l2Bytes, bool amd);

// Input sets to rotate through so that the sets together are at least `minTotalBytes`: a call never
// finds its inputs left in cache by the previous call, even before the flush. At least 2, at most
// `maxSets`, and never more than fits in `budgetBytes` (but 2 even if that overshoots: the caller's
// allocation then fails with a clear message rather than silently timing a warm cache).
int inputSetsFor(std::uint64_t bytesPerSet, std::uint64_t minTotalBytes, std::uint64_t budgetBytes, int maxSets = 64);

}  // namespace kopt::hipbench
