#include "tools/device_info_tool.h"

#include "tools/typed_tool_spec.h"

namespace kopt::tools {

mcp::ToolSpec makeDeviceInfoTool() { return makeDeviceInfoTool(DeviceInfoToolOptions{}); }

mcp::ToolSpec makeDeviceInfoTool(DeviceInfoToolOptions options) {
  mcp::ToolSpec t = checkedTool<DeviceInfoArgs, device::DeviceReport>(
      toolText("device_info"), [options = withDefaults(std::move(options))](const DeviceInfoArgs& a,
                                                                            mcp::RequestContext& request) {
        return reportDevices(options, a, request);
      });
  t.annotations = inspectionAnnotations(/*readOnly=*/false);  // measuring writes the per-machine cache
  return t;
}

}  // namespace kopt::tools
