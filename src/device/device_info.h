#pragma once
// What kopt knows about the GPUs of the machine it runs on: one DeviceInfo per device, read from
// the vendor runtime at run time (see device_runtime.h), plus the datasheet peak (peak_table.h)
// and the ceilings measured on this machine (ceiling_cache.h). Plain structs; JSON only at the
// edge (toJson), so the campaign and measure layers can use them without parsing anything.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::device {

enum class Vendor { None, Nvidia, Amd };

std::string vendorName(Vendor vendor);  // "none" | "nvidia" | "amd"

struct DeviceInfo {
  int index = 0;                 // the runtime's device ordinal
  Vendor vendor = Vendor::None;
  std::string name;              // as the runtime reports it, e.g. "NVIDIA H200"
  std::string arch;              // "sm_90", "gfx942", ... ("" when the runtime gave nothing usable)
  int computeUnits = 0;          // streaming multiprocessors (NVIDIA) or compute units (AMD)
  std::optional<int> smClockMHz;       // peak shader clock the runtime reports
  std::optional<int> memoryClockMHz;   // peak memory clock the runtime reports
  std::uint64_t memoryBytes = 0;
  std::optional<int> memoryBusBits;
  std::optional<std::uint64_t> l2Bytes;
  // clock x 2 (double data rate) x bus width / 8, when both are known. A lead, like the datasheet.
  std::optional<double> theoreticalBandwidthGBps;
  std::string pciBusId;          // "0000:c1:00.0" when known (used in the per-machine cache key)
  std::string driverVersion;     // e.g. "13.0" (CUDA driver API version) or the HIP driver version
};

// The whole answer: either devices, or the reason there are none ("no GPU found: ...").
struct DeviceSnapshot {
  bool present = false;
  std::string reason;    // empty when present
  std::string backend;   // which runtime answered, e.g. "cuda-driver (libcuda.so.1)"
  std::vector<DeviceInfo> devices;
};

nlohmann::json toJson(const DeviceInfo& info);

// Theoretical DRAM bandwidth from the runtime's clock and bus width (GB/s, 1e9 bytes/s).
std::optional<double> theoreticalBandwidthGBps(std::optional<int> memoryClockMHz, std::optional<int> busBits);

// "sm_90" from compute capability 9.0; "sm_100" from 10.0; "sm_90a" is never produced here
// (the `a` variant is a compile target, not a property of the chip).
std::string nvidiaArchFromComputeCapability(int major, int minor);

}  // namespace kopt::device
