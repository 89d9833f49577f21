#pragma once
// What device_info does once its arguments are read: the device report they ask for, measuring
// the ceilings (with progress, one measurement at a time in this process) when asked to.
#include <filesystem>
#include <functional>
#include <memory>

#include "device/device_report.h"
#include "device/device_runtime.h"
#include "mcp/tool_api.h"
#include "tools/device_info_fields.h"
#include "tools/field_reader.h"

namespace kopt::tools {

struct DeviceInfoToolOptions {
  // Creates the runtime each call uses (default: device::makeSystemRuntime()).
  std::function<std::unique_ptr<device::DeviceRuntime>()> makeRuntime;
  // The ceilings cache (default: device::defaultCeilingCachePath()).
  std::filesystem::path cacheFile;
  device::MeasureOptions measure;
};

// The options with their defaults filled in.
DeviceInfoToolOptions withDefaults(DeviceInfoToolOptions options);

// The report, or the argument at fault (refresh without measure_ceilings, a device index that
// names no device). Progress and cancellation are the request's.
Checked<device::DeviceReport> reportDevices(const DeviceInfoToolOptions& options, const DeviceInfoArgs& args,
                                            mcp::RequestContext& request);

}  // namespace kopt::tools
