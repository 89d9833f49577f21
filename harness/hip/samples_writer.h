#pragma once
// The raw-sample side file (--samples, JSON Lines; shared formats): a header object, then one
// object per (shape, direction) with every timed call in ms.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/hip/sampling.h"

namespace kopt::hipbench {

struct SampleSeries {
  std::string label;
  bool forward = true;
  std::vector<double> timesMs;
  std::optional<double> flops;
  std::optional<double> bytes;
  StopReason stop = StopReason::Rsd;
};

std::string jsonEscape(const std::string& text);
std::string samplesFileText(const std::string& harness, const std::string& device, std::uint64_t seed,
                            const std::vector<SampleSeries>& series);

}  // namespace kopt::hipbench
