#include "tools/device_info_tool.h"

#include <mutex>

#include "device/device_report.h"
#include "tools/tool_texts.h"

namespace kopt::tools {

using mcp::json;
using mcp::ToolResult;

namespace {

json nullable(const char* type) { return json{{"type", json::array({type, "null"})}}; }

json inputSchema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"properties",
       {
           {"device",
            {{"type", "integer"}, {"minimum", 0}, {"description", "Only this device index (default: every device)."}}},
           {"measure_ceilings",
            {{"type", "boolean"},
             {"default", false},
             {"description",
              "Measure the device-copy and bf16-matmul ceilings when this machine has none cached "
              "(takes a few seconds per device; the result is cached per machine)."}}},
           {"refresh",
            {{"type", "boolean"},
             {"default", false},
             {"description", "With measure_ceilings: measure again even when cached."}}},
       }},
  };
}

// Only one measurement at a time in this process: two at once on one GPU would each see half of it.
std::mutex& measurementMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

json deviceInfoOutputSchema() {
  const json peak = {
      {"type", json::array({"object", "null"})},
      {"properties",
       {{"table_version", {{"type", "string"}}},
        {"product", {{"type", "string"}}},
        {"arch", {{"type", "string"}}},
        {"matched_by", {{"type", "string"}, {"enum", {"name", "memory", "arch"}}}},
        {"bf16_dense_tflops", {{"type", "number"}}},
        {"fp8_dense_tflops", nullable("number")},
        {"hbm_gbps", {{"type", "number"}}},
        {"source", {{"type", "string"}}}}},
  };
  const json ceilings = {
      {"type", json::array({"object", "null"})},
      {"properties",
       {{"copy_gbps", nullable("number")},
        {"copy_method", {{"type", "string"}}},
        {"matmul_bf16_tflops", nullable("number")},
        {"matmul_method", {{"type", "string"}}},
        {"measured_at", {{"type", "string"}}},
        {"device_name", {{"type", "string"}}},
        {"driver_version", {{"type", "string"}}}}},
  };
  const json deviceItem = {
      {"type", "object"},
      {"required", {"index", "vendor", "name", "arch", "compute_units", "memory_bytes", "peak", "ceilings", "ceilings_status"}},
      {"properties",
       {{"index", {{"type", "integer"}}},
        {"vendor", {{"type", "string"}, {"enum", {"nvidia", "amd", "none"}}}},
        {"name", {{"type", "string"}}},
        {"arch", {{"type", "string"}}},
        {"compute_units", {{"type", "integer"}}},
        {"sm_clock_mhz", nullable("integer")},
        {"memory_clock_mhz", nullable("integer")},
        {"memory_bytes", {{"type", "integer"}}},
        {"memory_bus_bits", nullable("integer")},
        {"l2_bytes", nullable("integer")},
        {"theoretical_bandwidth_gbps", nullable("number")},
        {"pci_bus_id", {{"type", "string"}}},
        {"driver_version", {{"type", "string"}}},
        {"identified_as", {{"type", "string"}}},
        {"peak", peak},
        {"ceilings", ceilings},
        {"ceilings_status", {{"type", "string"}, {"enum", {"not_measured", "cached", "measured", "failed"}}}},
        {"ceilings_note", {{"type", "string"}}},
        {"machine_key", {{"type", "string"}}}}},
  };
  return {
      {"type", "object"},
      {"required", {"present", "reason", "backend", "device_count", "devices", "peak_table_version"}},
      {"properties",
       {{"present", {{"type", "boolean"}}},
        {"reason", nullable("string")},
        {"backend", {{"type", "string"}}},
        {"device_count", {{"type", "integer"}, {"minimum", 0}}},
        {"devices", {{"type", "array"}, {"items", deviceItem}}},
        {"peak_table_version", {{"type", "string"}}},
        {"ceiling_cache", {{"type", "string"}}},
        {"warnings", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
  };
}

mcp::ToolSpec makeDeviceInfoTool() { return makeDeviceInfoTool(DeviceInfoToolOptions{}); }

mcp::ToolSpec makeDeviceInfoTool(DeviceInfoToolOptions options) {
  if (!options.makeRuntime) options.makeRuntime = [] { return device::makeSystemRuntime(); };
  if (options.cacheFile.empty()) options.cacheFile = device::defaultCeilingCachePath();

  mcp::ToolSpec tool;
  const ToolText text = toolText("device_info");
  tool.name = text.name;
  tool.title = text.title;
  tool.description = text.description;
  tool.inputSchema = inputSchema();
  tool.outputSchema = deviceInfoOutputSchema();
  tool.annotations.readOnlyHint = false;  // measuring writes the per-machine cache
  tool.annotations.destructiveHint = false;
  tool.annotations.idempotentHint = true;
  tool.annotations.openWorldHint = false;
  tool.handler = [options](const json& args, mcp::RequestContext& ctx) -> ToolResult {
    device::ReportOptions report;
    report.measure = options.measure;
    if (args.contains("device")) {
      const auto& d = args["device"];
      if (!d.is_number_integer() || d.get<long long>() < 0) {
        return ToolResult::error("must be a non-negative integer", "device", "omit it for every device, or give 0, 1, ...");
      }
      report.device = d.get<int>();
    }
    auto flag = [&](const char* name, bool* out) -> bool {
      if (!args.contains(name)) return true;
      if (!args[name].is_boolean()) return false;
      *out = args[name].get<bool>();
      return true;
    };
    if (!flag("measure_ceilings", &report.measureCeilings)) {
      return ToolResult::error("must be true or false", "measure_ceilings", "pass true to measure this machine's ceilings");
    }
    if (!flag("refresh", &report.refresh)) {
      return ToolResult::error("must be true or false", "refresh", "pass true to measure again even when cached");
    }
    if (report.refresh && !report.measureCeilings) {
      return ToolResult::error("refresh only applies when measuring", "refresh",
                               "pass measure_ceilings=true together with refresh=true");
    }
    double step = 0;
    report.onProgress = [&](const std::string& message) {
      if (ctx.cancellation().cancelled()) return;
      step += 1;
      ctx.progress(step, std::nullopt, message);
    };

    auto runtime = options.makeRuntime();
    device::CeilingCache cache(options.cacheFile);
    std::unique_lock<std::mutex> lock(measurementMutex(), std::defer_lock);
    if (report.measureCeilings) lock.lock();
    if (ctx.cancellation().cancelled()) return ToolResult::error("cancelled before the device was queried");
    const device::DeviceReport result = device::buildDeviceReport(*runtime, cache, report);
    if (!result.deviceError.empty()) {
      return ToolResult::error(result.deviceError, "device", "omit device, or pick an index from the device list");
    }
    return ToolResult::structured(device::toJson(result));
  };
  return tool;
}

}  // namespace kopt::tools
