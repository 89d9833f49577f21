#include "tools/device_info_fields.h"

namespace kopt::tools {

namespace {

using device::CeilingStatus;
using device::PeakMatch;
using device::Vendor;

// A matched datasheet row as device_info shows it: the row, how it was matched, the table's version.
struct PeakShown {
  device::PeakEntry entry;
  PeakMatch matchedBy = PeakMatch::ByName;
};

void describe(FieldVisitor& v, PeakShown& p) {
  std::string tableVersion = device::kPeakTableVersion;
  v.field(out("table_version"), tableVersion);
  v.field(out("product"), p.entry.product);
  v.field(out("arch"), p.entry.arch);
  static const NameTable<PeakMatch> matches = spelledBy(
      std::vector<PeakMatch>{PeakMatch::ByName, PeakMatch::ByMemory, PeakMatch::ByArch},
      [](PeakMatch m) { return std::string(device::peakMatchName(m)); });
  choice(v, out("matched_by"), p.matchedBy, matches);
  v.field(out("bf16_dense_tflops"), p.entry.bf16DenseTflops);
  v.field(out("fp8_dense_tflops"), p.entry.fp8DenseTflops);
  v.field(out("hbm_gbps"), p.entry.hbmGBps);
  v.field(out("source"), p.entry.source);
}

// `peak`: null when neither the name nor the arch matched a row. The lookup points into the
// peak table, so only the writer and the schema use this (device_info takes no peak argument).
void describePeak(FieldVisitor& v, const device::PeakLookup& lookup) {
  std::optional<PeakShown> peak;
  if (lookup.entry) peak = PeakShown{*lookup.entry, lookup.matchedBy};
  object(v, out("peak").required(), peak);
}

}  // namespace

void describe(FieldVisitor& v, DeviceInfoArgs& a) {
  v.field(arg("device", "Only this device index (default: every device).").atLeast(0), a.device);
  v.field(arg("measure_ceilings",
              "Measure the device-copy and bf16-matmul ceilings when this machine has none cached (takes a few "
              "seconds per device; the result is cached per machine).")
              .defaultShown(),
          a.measureCeilings);
  v.field(arg("refresh", "With measure_ceilings: measure again even when cached.").defaultShown(), a.refresh);
}

void describe(FieldVisitor& v, device::DeviceInfo& d) {
  static const NameTable<Vendor> vendors = spelledBy(std::vector<Vendor>{Vendor::Nvidia, Vendor::Amd, Vendor::None},
                                                     [](Vendor x) { return device::vendorName(x); });
  v.field(out("index").required(), d.index);
  choice(v, out("vendor").required(), d.vendor, vendors);
  v.field(out("name").required(), d.name);
  v.field(out("arch").required(), d.arch);
  v.field(out("compute_units").required(), d.computeUnits);
  v.field(out("sm_clock_mhz"), d.smClockMHz);
  v.field(out("memory_clock_mhz"), d.memoryClockMHz);
  v.field(out("memory_bytes").required(), d.memoryBytes);
  v.field(out("memory_bus_bits"), d.memoryBusBits);
  v.field(out("l2_bytes"), d.l2Bytes);
  v.field(out("theoretical_bandwidth_gbps"), d.theoreticalBandwidthGBps);
  v.field(out("pci_bus_id"), d.pciBusId);
  v.field(out("driver_version"), d.driverVersion);
}

void describe(FieldVisitor& v, device::Ceilings& c) {
  v.field(out("copy_gbps"), c.copyGBps);
  v.field(out("copy_method"), c.copyMethod);
  v.field(out("matmul_bf16_tflops"), c.matmulBf16Tflops);
  v.field(out("matmul_method"), c.matmulMethod);
  v.field(out("measured_at"), c.measuredAt);
  v.field(out("device_name"), c.deviceName);
  v.field(out("driver_version"), c.driverVersion);
}

void describe(FieldVisitor& v, device::DeviceEntry& e) {
  describe(v, e.info);  // the runtime's facts, then what kopt adds to them, in one flat object
  describePeak(v, e.peak);
  std::string identifiedAs = device::describeIdentity(e.info, e.peak);
  v.field(out("identified_as"), identifiedAs);
  object(v, out("ceilings").required(), e.ceilings);
  static const NameTable<CeilingStatus> statuses = spelledBy(
      std::vector<CeilingStatus>{CeilingStatus::NotMeasured, CeilingStatus::Cached, CeilingStatus::Measured,
                                 CeilingStatus::Failed},
      [](CeilingStatus s) { return device::ceilingStatusName(s); });
  choice(v, out("ceilings_status").required(), e.ceilingStatus, statuses);
  v.field(out("ceilings_note"), e.ceilingNote);
  v.field(out("machine_key"), e.machineKey);
}

void describe(FieldVisitor& v, device::DeviceReport& r) {
  v.field(out("present").required(), r.present);
  std::optional<std::string> reason;  // null when there is a GPU
  if (!r.present) reason = r.reason;
  v.field(out("reason").required(), reason);
  r.reason = reason.value_or("");
  v.field(out("backend").required(), r.backend);
  v.field(out("device_count").required().atLeast(0), r.deviceCount);
  objects(v, out("devices").required(), r.devices);
  std::string tableVersion = device::kPeakTableVersion;
  v.field(out("peak_table_version").required(), tableVersion);
  std::string cacheFile = r.cacheFile.string();
  v.field(out("ceiling_cache"), cacheFile);
  r.cacheFile = cacheFile;
  v.field(out("warnings"), r.warnings);
}

}  // namespace kopt::tools
