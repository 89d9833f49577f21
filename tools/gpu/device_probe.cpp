// kopt_device_probe [--measure] [--refresh] [--device N] [--cache PATH]
// Prints the device report as JSON (the device_info tool's structuredContent) on stdout. Exit 0
// when a GPU was found, 3 when none was (the JSON then says why), 2 on a usage error.
#include <cstdlib>
#include <iostream>
#include <string>

#include "device/device_report.h"

int main(int argc, char** argv) {
  using namespace kopt::device;
  ReportOptions options;
  std::filesystem::path cache = defaultCeilingCachePath();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--measure") {
      options.measureCeilings = true;
    } else if (arg == "--refresh") {
      options.refresh = true;
    } else if (arg == "--device" && i + 1 < argc) {
      options.device = std::atoi(argv[++i]);
    } else if (arg == "--cache" && i + 1 < argc) {
      cache = argv[++i];
    } else {
      std::cerr << "usage: kopt_device_probe [--measure] [--refresh] [--device N] [--cache PATH]\n";
      return 2;
    }
  }
  options.onProgress = [](const std::string& message) { std::cerr << "kopt_device_probe: " << message << "\n"; };
  auto runtime = makeSystemRuntime();
  CeilingCache ceilingCache(cache);
  const DeviceReport report = buildDeviceReport(*runtime, ceilingCache, options);
  if (!report.deviceError.empty()) {
    std::cerr << "kopt_device_probe: " << report.deviceError << "\n";
    return 2;
  }
  std::cout << toJson(report).dump(2) << "\n";
  return report.present ? 0 : 3;
}
