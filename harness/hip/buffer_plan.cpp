#include "harness/hip/buffer_plan.h"

#include <algorithm>

namespace kopt::hipbench {

std::uint64_t defaultFlushBytes(std::uint64_t l2Bytes, bool amd) {
  const std::uint64_t floor = amd ? (512ull << 20) : (256ull << 20);
  return std::max<std::uint64_t>(2 * l2Bytes, floor);
}

int inputSetsFor(std::uint64_t bytesPerSet, std::uint64_t minTotalBytes, std::uint64_t budgetBytes, int maxSets) {
  if (bytesPerSet == 0) return 2;
  std::uint64_t sets = (minTotalBytes + bytesPerSet - 1) / bytesPerSet;
  sets = std::max<std::uint64_t>(sets, 2);
  sets = std::min<std::uint64_t>(sets, static_cast<std::uint64_t>(std::max(maxSets, 2)));
  const std::uint64_t fit = budgetBytes / bytesPerSet;
  if (fit >= 2) sets = std::min(sets, fit);
  else sets = 2;
  return static_cast<int>(sets);
}

}  // namespace kopt::hipbench
