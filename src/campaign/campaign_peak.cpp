#include "campaign/campaign_peak.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "device/device_report.h"
#include "device/device_runtime.h"
#include "device/peak_table.h"
#include "util/text.h"

namespace kopt::campaign {

const char* peakSourceName(PeakSource source) {
  switch (source) {
    case PeakSource::MeasuredCeiling: return "measured_ceiling";
    case PeakSource::DeviceDatasheet: return "device_datasheet";
    case PeakSource::ArchDatasheet: break;
  }
  return "arch_datasheet";
}

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  std::string out = text;
  if (out.size() > 2 && out.compare(out.size() - 2, 2, ".0") == 0) out.resize(out.size() - 2);
  return out;
}

// The datasheet figure of `entry` for the metric, and what it is ("bf16 989.4 TFLOPS").
std::optional<std::pair<double, std::string>> datasheetFigure(const device::PeakEntry& entry, const std::string& unit,
                                                              bool fp8) {
  if (unit == "TFLOPS") {
    if (fp8 && entry.fp8DenseTflops) return std::make_pair(*entry.fp8DenseTflops, "fp8 " + number(*entry.fp8DenseTflops) + " TFLOPS");
    // A non-fp8 op is held to the bf16 tensor rate, which Hopper, Blackwell and CDNA share with fp16.
    if (entry.bf16DenseTflops > 0) return std::make_pair(entry.bf16DenseTflops, "bf16 " + number(entry.bf16DenseTflops) + " TFLOPS");
    return std::nullopt;
  }
  if (unit == "GB/s" && entry.hbmGBps > 0) return std::make_pair(entry.hbmGBps, "HBM " + number(entry.hbmGBps) + " GB/s");
  return std::nullopt;
}

// The chip's arch of a target: "sm_90a" -> "sm_90" (the `a` variant is a compile target, not a
// property of the chip, and the runtime and the peak table know the chip's arch only).
std::string chipArch(const std::string& target) {
  if (target.rfind("sm_", 0) == 0 && target.size() > 3 && target.back() == 'a') return target.substr(0, target.size() - 1);
  return target;
}

std::string deviceLabel(const device::DeviceInfo& info) {
  return "device " + std::to_string(info.index) + ", " + (info.name.empty() ? std::string("unnamed") : info.name);
}

std::string tableSource(const device::PeakEntry& entry) {
  return std::string("peak table ") + device::kPeakTableVersion + ", " + entry.source;
}

// The measured ceiling for the metric, with what it is and how it was measured; or why there is
// none usable (fp8: only bf16 is measured; a half-failed measurement).
std::optional<PeakChoice> measuredChoice(const CampaignDevice& d, const std::string& unit, bool fp8, const std::string& product,
                                         std::string* whyNot) {
  if (!d.ceilings) {
    *whyNot = "no ceiling measured on this device yet (call device_info with {\"measure_ceilings\": true})";
    return std::nullopt;
  }
  const device::Ceilings& c = *d.ceilings;
  std::optional<double> value;
  std::string what, method;
  if (unit == "TFLOPS") {
    if (fp8) {
      *whyNot = "only a bf16 matmul ceiling is measured, not an fp8 one";
      return std::nullopt;
    }
    value = c.matmulBf16Tflops;
    what = "bf16 matmul ceiling";
    method = c.matmulMethod;
  } else {
    value = c.copyGBps;
    what = "device copy ceiling (read + write)";
    method = c.copyMethod;
  }
  if (!value || !(*value > 0)) {
    *whyNot = "the cached ceilings have no " + what + (method.empty() ? "" : " (" + method + ")");
    return std::nullopt;
  }
  PeakChoice choice;
  choice.value = *value;
  choice.unit = unit;
  choice.source = PeakSource::MeasuredCeiling;
  choice.reason = "measured " + what + " " + number(*value) + " " + unit + " of " + deviceLabel(*d.info) + " (" + product +
                  ") on this machine: " + method + (c.measuredAt.empty() ? "" : ", " + c.measuredAt) +
                  (d.cacheFile.empty() ? "" : "; from " + d.cacheFile);
  return choice;
}

}  // namespace

std::optional<PeakChoice> campaignPeak(const Manifest& m, const measure::PrimaryMetric& metric, const CampaignDevice& d) {
  const std::string unit = metric.unit();
  if (unit != "TFLOPS" && unit != "GB/s") return std::nullopt;
  const bool fp8 = util::containsIgnoreCase(m.targetOp, "fp8");

  std::string notIdentified = d.why.empty() ? "the campaign's device is not known" : d.why;
  if (d.info) {
    const auto lookup = device::lookupPeak(d.info->name, d.info->arch, d.info->memoryBytes);
    const std::string product = lookup.entry ? lookup.entry->product : std::string("no datasheet row");
    std::string whyNotMeasured;
    if (auto measured = measuredChoice(d, unit, fp8, product, &whyNotMeasured)) return measured;
    if (lookup.entry && lookup.matchedBy != device::PeakMatch::ByArch) {
      if (auto figure = datasheetFigure(*lookup.entry, unit, fp8)) {
        PeakChoice choice;
        choice.value = figure->first;
        choice.unit = unit;
        choice.source = PeakSource::DeviceDatasheet;
        choice.reason = "datasheet " + figure->second + " of the " + lookup.entry->product + " (" + deviceLabel(*d.info) +
                        ", identified by " + (lookup.matchedBy == device::PeakMatch::ByName ? "name" : "arch and memory size") +
                        "; " + tableSource(*lookup.entry) + "); " + whyNotMeasured;
        return choice;
      }
    }
    notIdentified = deviceLabel(*d.info) + " (" + d.info->arch + ", " +
                    (d.info->memoryBytes ? device::formatGiB(d.info->memoryBytes) : std::string("memory unknown")) +
                    ") matches no datasheet row by name or memory size";
  }

  const auto archLookup = device::lookupPeak("", chipArch(m.targetGpu));
  if (!archLookup.entry) return std::nullopt;
  const auto figure = datasheetFigure(*archLookup.entry, unit, fp8);
  if (!figure) return std::nullopt;
  PeakChoice choice;
  choice.value = figure->first;
  choice.unit = unit;
  choice.source = PeakSource::ArchDatasheet;
  choice.reason = "datasheet " + figure->second + " of the " + archLookup.entry->product + ", the " + m.targetGpu +
                  " default, because the device was not identified: " + notIdentified + " (" +
                  tableSource(*archLookup.entry) + ")";
  return choice;
}

CampaignDevice detectCampaignDevice(const Manifest& m, const device::DeviceSnapshot& snapshot,
                                    const device::CeilingCache& cache, const std::string& hostname) {
  CampaignDevice d;
  d.cacheFile = cache.file().string();
  if (m.executor.kind == ExecutorKind::Slurm) {
    d.why = "the campaign runs through Slurm, on a compute node's GPU, not this machine's";
    return d;
  }
  if (!snapshot.present) {
    d.why = snapshot.reason.empty() ? std::string("no GPU found") : snapshot.reason;
    return d;
  }
  int index = 0;
  if (!m.executor.devices.empty()) {
    // The executor binds a shard with CUDA_VISIBLE_DEVICES=<id>; the first shard stands for all
    // (a full validation's shards are one machine's GPUs, of one product in practice).
    const std::string& id = m.executor.devices.front();
    char* end = nullptr;
    const long parsed = std::strtol(id.c_str(), &end, 10);
    if (id.empty() || *end != '\0' || parsed < 0) {
      d.why = "executor.devices names device '" + id + "', which is not a device index of this machine";
      return d;
    }
    index = static_cast<int>(parsed);
  }
  const device::DeviceInfo* found = nullptr;
  for (const auto& info : snapshot.devices) {
    if (info.index == index) found = &info;
  }
  if (!found) {
    d.why = "device " + std::to_string(index) + " does not exist here (" + std::to_string(snapshot.devices.size()) +
            " device(s) found)";
    return d;
  }
  if (found->arch != chipArch(m.targetGpu)) {
    // This machine's GPU is not the one the manifest targets (a campaign defined for another
    // machine, or a mixed host): its numbers would be the wrong ones.
    d.why = deviceLabel(*found) + " is " + (found->arch.empty() ? std::string("of unknown arch") : found->arch) +
            ", not the manifest's " + m.targetGpu;
    return d;
  }
  d.info = *found;
  std::string error;
  d.ceilings = cache.find(device::machineKey(*found, hostname), &error);
  if (!d.ceilings && !error.empty()) d.cacheFile += " (" + error + ")";
  return d;
}

CampaignDevice processCampaignDevice(const Manifest& m) {
  if (m.targetGpu.empty() || m.targetGpu == "cpu") {
    CampaignDevice d;
    d.why = "target_gpu is " + (m.targetGpu.empty() ? std::string("not set") : m.targetGpu);
    return d;
  }
  static std::mutex mutex;
  static std::optional<device::DeviceSnapshot> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!snapshot) snapshot = device::makeSystemRuntime()->snapshot();
  }
  const device::CeilingCache cache(device::defaultCeilingCachePath());
  return detectCampaignDevice(m, *snapshot, cache, device::currentHostname());
}

std::optional<PeakChoice> campaignPeak(const Manifest& m, const measure::PrimaryMetric& metric) {
  const std::string unit = metric.unit();
  if (unit != "TFLOPS" && unit != "GB/s") return std::nullopt;
  if (!device::lookupPeak("", chipArch(m.targetGpu)).entry) return std::nullopt;  // no peak for this arch, whatever the device
  return campaignPeak(m, metric, processCampaignDevice(m));
}

}  // namespace kopt::campaign
