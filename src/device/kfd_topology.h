#pragma once
// AMD GPU facts from the kernel driver's topology (/sys/class/kfd/kfd/topology/nodes/*). The HIP
// runtime's attribute enum and hipDeviceProp_t layout have both changed between ROCm releases,
// which a caller that loads libamdhip64 at run time cannot follow; the KFD topology files are a
// stable kernel interface that every ROCm release reads itself.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kopt::device {

// "key value" lines, as in a node's `properties` file.
std::map<std::string, std::int64_t> parseKfdProperties(const std::string& text);

// gfx_target_version 90402 -> "gfx942", 90010 -> "gfx90a", 110000 -> "gfx1100"; "" when 0/invalid.
std::string gfxArchFromTargetVersion(std::int64_t version);

// PCI location "0000:c1:00.0" -> KFD location_id (bus << 8 | device << 3 | function); nullopt on bad input.
std::optional<std::int64_t> kfdLocationIdFromPciBusId(const std::string& pciBusId);

struct KfdGpuNode {
  std::string arch;
  int computeUnits = 0;
  std::optional<int> engineClockMHz;
  std::optional<int> memoryClockMHz;
  std::optional<int> memoryBusBits;
  std::int64_t locationId = -1;
  std::int64_t domain = 0;
};

// Every GPU node (a node with simd_count > 0) under `topologyRoot`, in node order.
std::vector<KfdGpuNode> readKfdGpuNodes(const std::filesystem::path& topologyRoot);

}  // namespace kopt::device
