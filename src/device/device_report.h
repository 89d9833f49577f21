#pragma once
// One answer to "what GPU is this, how fast can it go": the runtime's snapshot, each device's
// datasheet peak, and its measured ceilings (from the per-machine cache, or measured now when
// asked). `device_info` serves this; `kopt doctor` and the speed-of-light check read it too.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/ceiling_cache.h"
#include "device/device_info.h"
#include "device/device_runtime.h"
#include "device/peak_table.h"

namespace kopt::device {

enum class CeilingStatus { NotMeasured, Cached, Measured, Failed };
std::string ceilingStatusName(CeilingStatus status);  // "not_measured" | "cached" | "measured" | "failed"

struct DeviceEntry {
  DeviceInfo info;
  PeakLookup peak;
  std::optional<Ceilings> ceilings;
  CeilingStatus ceilingStatus = CeilingStatus::NotMeasured;
  std::string ceilingNote;  // how to measure, or why measuring failed
  std::string machineKey;
};

struct ReportOptions {
  std::optional<int> device;      // only this device; all when unset
  bool measureCeilings = false;   // measure devices that have no cached ceilings
  bool refresh = false;           // with measureCeilings: measure even when cached
  MeasureOptions measure;
  std::string hostname;           // currentHostname() when empty
  std::function<void(const std::string& message)> onProgress;  // called before each measurement
};

struct DeviceReport {
  bool present = false;
  std::string reason;             // "no GPU found: ..." when !present
  std::string backend;
  int deviceCount = 0;
  std::vector<DeviceEntry> devices;
  std::filesystem::path cacheFile;
  std::vector<std::string> warnings;
  std::string deviceError;        // set when options.device names no device; devices is then empty
};

// "139.8 GiB".
std::string formatGiB(std::uint64_t bytes);

// What the device was identified as, and from what, for people: "H200 SXM (by name \"NVIDIA H200\"
// and 139.8 GiB)", "H200 SXM (by sm_90 and 139.8 GiB; the name ... is not in the table)", or the
// arch default with a note that nothing identified the product.
std::string describeIdentity(const DeviceInfo& info, const PeakLookup& lookup);

DeviceReport buildDeviceReport(DeviceRuntime& runtime, CeilingCache& cache, const ReportOptions& options);

nlohmann::json toJson(const DeviceReport& report);

}  // namespace kopt::device
