#pragma once
// `device_info`: what GPU kopt runs on (name, arch, compute units, clocks, memory, bandwidth), its
// datasheet peak, and its measured ceilings (a large device copy, a large vendor-library bf16
// matmul), cached per machine. Answers "present": false with the reason when there is no GPU.
#include "mcp/tool_api.h"
#include "tools/device_info_report.h"

namespace kopt::tools {

mcp::ToolSpec makeDeviceInfoTool();
mcp::ToolSpec makeDeviceInfoTool(DeviceInfoToolOptions options);

}  // namespace kopt::tools
