#include "device/device_info.h"

namespace kopt::device {

std::string vendorName(Vendor vendor) {
  switch (vendor) {
    case Vendor::Nvidia: return "nvidia";
    case Vendor::Amd: return "amd";
    case Vendor::None: break;
  }
  return "none";
}

std::optional<double> theoreticalBandwidthGBps(std::optional<int> memoryClockMHz, std::optional<int> busBits) {
  if (!memoryClockMHz || !busBits || *memoryClockMHz <= 0 || *busBits <= 0) return std::nullopt;
  // HBM and GDDR both move data on both clock edges as the runtimes report the clock.
  return 2.0 * static_cast<double>(*memoryClockMHz) * 1e6 * (static_cast<double>(*busBits) / 8.0) / 1e9;
}

std::string nvidiaArchFromComputeCapability(int major, int minor) {
  if (major <= 0 || minor < 0) return {};
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

namespace {
template <typename T>
nlohmann::json optionalJson(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json toJson(const DeviceInfo& info) {
  return {
      {"index", info.index},
      {"vendor", vendorName(info.vendor)},
      {"name", info.name},
      {"arch", info.arch},
      {"compute_units", info.computeUnits},
      {"sm_clock_mhz", optionalJson(info.smClockMHz)},
      {"memory_clock_mhz", optionalJson(info.memoryClockMHz)},
      {"memory_bytes", info.memoryBytes},
      {"memory_bus_bits", optionalJson(info.memoryBusBits)},
      {"l2_bytes", optionalJson(info.l2Bytes)},
      {"theoretical_bandwidth_gbps", optionalJson(info.theoreticalBandwidthGBps)},
      {"pci_bus_id", info.pciBusId},
      {"driver_version", info.driverVersion},
  };
}

}  // namespace kopt::device
