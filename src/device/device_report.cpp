#include "device/device_report.h"

#include <cstdio>

namespace kopt::device {

std::string ceilingStatusName(CeilingStatus status) {
  switch (status) {
    case CeilingStatus::Cached: return "cached";
    case CeilingStatus::Measured: return "measured";
    case CeilingStatus::Failed: return "failed";
    case CeilingStatus::NotMeasured: break;
  }
  return "not_measured";
}

std::string formatGiB(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
  return text;
}

std::string describeIdentity(const DeviceInfo& info, const PeakLookup& lookup) {
  const std::string memory = info.memoryBytes ? formatGiB(info.memoryBytes) : std::string("memory unknown");
  if (!lookup.entry) {
    return "unknown product (name \"" + info.name + "\", " + (info.arch.empty() ? "arch unknown" : info.arch) + ", " +
           memory + "): no datasheet row";
  }
  const std::string& product = lookup.entry->product;
  switch (lookup.matchedBy) {
    case PeakMatch::ByName:
      return product + " (by name \"" + info.name + "\" and " + memory + ")";
    case PeakMatch::ByMemory:
      return product + " (by " + info.arch + " and " + memory + "; the name \"" + info.name + "\" is not in the table)";
    case PeakMatch::ByArch:
      break;
  }
  return product + " (only the " + lookup.entry->arch + " default: neither the name \"" + info.name + "\" nor " + memory +
         " identified the product)";
}

namespace {

void measureInto(DeviceRuntime& runtime, CeilingCache& cache, const ReportOptions& options, DeviceEntry& entry,
                 std::vector<std::string>& warnings) {
  auto progress = [&](const std::string& what) {
    if (options.onProgress) options.onProgress(what + " on device " + std::to_string(entry.info.index));
  };
  progress("measuring the device-to-device copy ceiling");
  const Measurement copy = runtime.measureCopyGBps(entry.info.index, options.measure);
  progress("measuring the bf16 matmul ceiling");
  const Measurement matmul = runtime.measureMatmulTflops(entry.info.index, options.measure);

  Ceilings ceilings;
  ceilings.copyGBps = copy.value;
  ceilings.copyMethod = copy.value ? copy.method : "failed: " + copy.error;
  ceilings.matmulBf16Tflops = matmul.value;
  ceilings.matmulMethod = matmul.value ? matmul.method : "failed: " + matmul.error;
  ceilings.measuredAt = utcTimestamp();
  ceilings.deviceName = entry.info.name;
  ceilings.driverVersion = entry.info.driverVersion;

  if (!copy.value && !matmul.value) {
    entry.ceilingStatus = CeilingStatus::Failed;
    entry.ceilingNote = "copy: " + copy.error + "; matmul: " + matmul.error;
    return;
  }
  entry.ceilings = ceilings;
  entry.ceilingStatus = CeilingStatus::Measured;
  if (!copy.value || !matmul.value) {
    entry.ceilingNote = !copy.value ? "copy not measured: " + copy.error : "matmul not measured: " + matmul.error;
  }
  std::string error;
  if (!cache.store(entry.machineKey, ceilings, &error)) warnings.push_back("ceilings not cached: " + error);
}

}  // namespace

DeviceReport buildDeviceReport(DeviceRuntime& runtime, CeilingCache& cache, const ReportOptions& options) {
  DeviceReport report;
  report.cacheFile = cache.file();
  const DeviceSnapshot snap = runtime.snapshot();
  report.present = snap.present;
  report.reason = snap.present ? std::string{} : snap.reason;
  report.backend = snap.backend;
  report.deviceCount = static_cast<int>(snap.devices.size());
  if (!snap.present) return report;

  if (options.device && (*options.device < 0 || *options.device >= report.deviceCount)) {
    report.deviceError = "device " + std::to_string(*options.device) + " does not exist: " +
                         std::to_string(report.deviceCount) + " device(s) found (indices 0.." +
                         std::to_string(report.deviceCount - 1) + ")";
    return report;
  }

  const std::string hostname = options.hostname.empty() ? currentHostname() : options.hostname;
  for (const auto& info : snap.devices) {
    if (options.device && info.index != *options.device) continue;
    DeviceEntry entry;
    entry.info = info;
    entry.peak = lookupPeak(info.name, info.arch, info.memoryBytes);
    entry.machineKey = machineKey(info, hostname);
    std::string cacheError;
    auto cached = cache.find(entry.machineKey, &cacheError);
    if (!cacheError.empty()) report.warnings.push_back(cacheError);
    if (cached && !(options.measureCeilings && options.refresh)) {
      entry.ceilings = cached;
      entry.ceilingStatus = CeilingStatus::Cached;
    } else if (options.measureCeilings) {
      measureInto(runtime, cache, options, entry, report.warnings);
    } else {
      entry.ceilingNote = "not measured on this machine yet: call device_info with {\"measure_ceilings\": true}";
    }
    report.devices.push_back(std::move(entry));
  }
  return report;
}

nlohmann::json toJson(const DeviceReport& report) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& entry : report.devices) {
    nlohmann::json d = toJson(entry.info);
    d["peak"] = entry.peak.entry ? toJson(*entry.peak.entry, entry.peak.matchedBy) : nlohmann::json(nullptr);
    d["identified_as"] = describeIdentity(entry.info, entry.peak);
    d["ceilings"] = entry.ceilings ? toJson(*entry.ceilings) : nlohmann::json(nullptr);
    d["ceilings_status"] = ceilingStatusName(entry.ceilingStatus);
    d["ceilings_note"] = entry.ceilingNote;
    d["machine_key"] = entry.machineKey;
    devices.push_back(std::move(d));
  }
  return {
      {"present", report.present},
      {"reason", report.present ? nlohmann::json(nullptr) : nlohmann::json(report.reason)},
      {"backend", report.backend},
      {"device_count", report.deviceCount},
      {"devices", devices},
      {"peak_table_version", kPeakTableVersion},
      {"ceiling_cache", report.cacheFile.string()},
      {"warnings", report.warnings},
  };
}

}  // namespace kopt::device
