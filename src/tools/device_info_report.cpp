#include "tools/device_info_report.h"

#include <mutex>

namespace kopt::tools {

namespace {

// Only one measurement at a time in this process: two at once on one GPU would each see half of it.
std::mutex& measurementMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

DeviceInfoToolOptions withDefaults(DeviceInfoToolOptions options) {
  if (!options.makeRuntime) options.makeRuntime = [] { return device::makeSystemRuntime(); };
  if (options.cacheFile.empty()) options.cacheFile = device::defaultCeilingCachePath();
  return options;
}

Checked<device::DeviceReport> reportDevices(const DeviceInfoToolOptions& options, const DeviceInfoArgs& args,
                                            mcp::RequestContext& request) {
  if (args.refresh && !args.measureCeilings) {
    return ArgumentProblem{"refresh", "refresh only applies when measuring",
                           "pass measure_ceilings=true together with refresh=true"};
  }
  device::ReportOptions report;
  report.measure = options.measure;
  report.device = args.device;
  report.measureCeilings = args.measureCeilings;
  report.refresh = args.refresh;
  double step = 0;
  report.onProgress = [&](const std::string& message) {
    if (request.cancellation().cancelled()) return;
    step += 1;
    request.progress(step, std::nullopt, message);
  };

  auto runtime = options.makeRuntime();
  device::CeilingCache cache(options.cacheFile);
  std::unique_lock<std::mutex> lock(measurementMutex(), std::defer_lock);
  if (report.measureCeilings) lock.lock();
  if (request.cancellation().cancelled()) return ArgumentProblem{"", "cancelled before the device was queried", ""};
  device::DeviceReport result = device::buildDeviceReport(*runtime, cache, report);
  if (!result.deviceError.empty()) {
    return ArgumentProblem{"device", result.deviceError, "omit device, or pick an index from the device list"};
  }
  return result;
}

}  // namespace kopt::tools
