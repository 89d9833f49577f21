#pragma once
// `device_info`: what GPU kopt runs on (name, arch, compute units, clocks, memory, bandwidth), its
// datasheet peak, and its measured ceilings (a large device copy, a large vendor-library bf16
// matmul), cached per machine. Answers "present": false with the reason when there is no GPU.
#include <filesystem>
#include <functional>
#include <memory>

#include "device/device_runtime.h"
#include "mcp/tool_api.h"

namespace kopt::tools {

struct DeviceInfoToolOptions {
  // Creates the runtime each call uses (default: device::makeSystemRuntime()).
  std::function<std::unique_ptr<device::DeviceRuntime>()> makeRuntime;
  // The ceilings cache (default: device::defaultCeilingCachePath()).
  std::filesystem::path cacheFile;
  device::MeasureOptions measure;
};

mcp::ToolSpec makeDeviceInfoTool();
mcp::ToolSpec makeDeviceInfoTool(DeviceInfoToolOptions options);

// The outputSchema the tool declares (exposed so tests can check results against it).
mcp::json deviceInfoOutputSchema();

}  // namespace kopt::tools
