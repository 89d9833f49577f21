#pragma once
// The facts about the current device the harness needs: its name (for the samples header), the
// last-level cache size (flush and pool sizing) and free memory (the pool's budget).
#include <cstdint>
#include <string>

namespace kopt::hipbench {

struct DeviceContext {
  int device = 0;
  std::string name;
  std::string arch;
  int computeUnits = 0;
  std::uint64_t l2Bytes = 0;
  std::uint64_t freeBytes = 0;
  bool amd = false;

  static DeviceContext current();  // throws when no device is usable
};

}  // namespace kopt::hipbench
