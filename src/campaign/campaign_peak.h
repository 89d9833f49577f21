#pragma once
// The hardware peak a campaign's numbers are held to: the plausibility audit's speed of light
// (validate_round) and T2's fraction of peak (termination_check, report). One function chooses it,
// so the two can never disagree about what "the hardware can do" means.
//
// The order, best first:
//  1. a ceiling measured on the device the campaign runs on (the ceiling cache that device_info
//     {"measure_ceilings": true} writes): what the vendor library reaches, e.g. 791 TFLOPS bf16 on
//     an H200 where the datasheet says 989;
//  2. the datasheet row of that device, identified by name and memory size (an sm_90 with 141 GB
//     is an H200, 4.8 TB/s, not an H100, 3.35 TB/s);
//  3. the datasheet default of the manifest's arch, when no device could be identified; the
//     reason then says so and why.
//
// Nothing in the ledger or the campaign's records names the device (the manifest names an arch
// only), so the device is detected here through the device layer: on this machine, the device the
// executor's commands run on. A campaign that runs through Slurm runs on another node; its device
// is not detected and the arch default applies.
#include <optional>
#include <string>

#include "campaign/manifest.h"
#include "device/ceiling_cache.h"
#include "device/device_info.h"
#include "measure/scoring.h"

namespace kopt::campaign {

enum class PeakSource {
  MeasuredCeiling,  // measured on the campaign's device (ceiling cache)
  DeviceDatasheet,  // the datasheet row of the identified device
  ArchDatasheet,    // the datasheet default of the manifest's arch: the device was not identified
};
const char* peakSourceName(PeakSource source);  // "measured_ceiling" | "device_datasheet" | "arch_datasheet"

struct PeakChoice {
  double value = 0;    // in `unit`
  std::string unit;    // "TFLOPS" | "GB/s" (the primary metric's)
  PeakSource source = PeakSource::ArchDatasheet;
  std::string reason;  // the number, what it is and where it comes from, for records and people
};

// What is known about the device the campaign's commands run on.
struct CampaignDevice {
  std::optional<device::DeviceInfo> info;    // unset: not known, `why` says why
  std::optional<device::Ceilings> ceilings;  // measured on that device (ceiling cache), when cached
  std::string why;                           // why `info` is unset
  std::string cacheFile;                     // where ceilings were looked for (for the reason text)
};

// nullopt when the metric is not a throughput the hardware bounds (a custom column) or nothing at
// all is known about the arch (target_gpu cpu, an arch with no table row).
std::optional<PeakChoice> campaignPeak(const Manifest& m, const measure::PrimaryMetric& metric,
                                       const CampaignDevice& device);

// The campaign's device among `snapshot`'s: executor.devices' first id when set (the shard the
// executor binds with CUDA_VISIBLE_DEVICES/HIP_VISIBLE_DEVICES), else device 0; refused when the
// campaign runs through Slurm or the device's arch is not the manifest's target_gpu. Its
// ceilings are read from `cache` under machineKey(info, hostname).
CampaignDevice detectCampaignDevice(const Manifest& m, const device::DeviceSnapshot& snapshot,
                                    const device::CeilingCache& cache, const std::string& hostname);

// detectCampaignDevice on this machine: the system runtime's snapshot is taken once per process
// (loading the driver costs a fraction of a second, and the devices do not change under a running
// server); the ceiling cache is read on every call, so ceilings measured mid-campaign are used
// from the next call on. A target_gpu of "cpu" never touches the GPU runtime.
CampaignDevice processCampaignDevice(const Manifest& m);

// campaignPeak(m, metric, processCampaignDevice(m)), skipping detection when the metric has no
// hardware peak anyway.
std::optional<PeakChoice> campaignPeak(const Manifest& m, const measure::PrimaryMetric& metric);

}  // namespace kopt::campaign
