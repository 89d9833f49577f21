#include "device/device_report.h"

#include <unistd.h>

#include <doctest/doctest.h>

#include "device/fake_runtime_test_support.h"

using namespace kopt::device;
using kopt::device::testing::FakeRuntime;
namespace fs = std::filesystem;

namespace {
struct TempCache {
  fs::path dir = fs::temp_directory_path() / ("kopt_report_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  CeilingCache cache{dir / "ceilings.json"};
  TempCache() { fs::remove_all(dir); }
  ~TempCache() { fs::remove_all(dir); }
  static inline int counter = 0;
};
}  // namespace

TEST_CASE("no GPU: the report says so and why, with no devices") {
  FakeRuntime fake = FakeRuntime::withoutGpu("no GPU found: libcuda.so.1: cannot open shared object file");
  TempCache temp;
  ReportOptions options;
  options.measureCeilings = true;
  auto report = buildDeviceReport(fake, temp.cache, options);
  CHECK_FALSE(report.present);
  CHECK(report.reason.rfind("no GPU found: ", 0) == 0);
  CHECK(report.devices.empty());
  CHECK(fake.copyCalls == 0);
  auto j = toJson(report);
  CHECK(j["present"] == false);
  CHECK(j["reason"].get<std::string>().find("libcuda") != std::string::npos);
  CHECK(j["device_count"] == 0);
  CHECK(j["peak_table_version"] == kPeakTableVersion);
}

TEST_CASE("a device gets its peak; ceilings are not measured unless asked") {
  FakeRuntime fake = FakeRuntime::withH200();
  TempCache temp;
  ReportOptions options;
  options.hostname = "host-a";
  auto report = buildDeviceReport(fake, temp.cache, options);
  REQUIRE(report.devices.size() == 1);
  const auto& entry = report.devices[0];
  REQUIRE(entry.peak.entry);
  CHECK(entry.peak.entry->product == "H200 SXM");
  CHECK(entry.ceilingStatus == CeilingStatus::NotMeasured);
  CHECK(entry.ceilingNote.find("measure_ceilings") != std::string::npos);
  CHECK(fake.copyCalls == 0);
  auto j = toJson(report)["devices"][0];
  CHECK(j["ceilings"].is_null());
  CHECK(j["ceilings_status"] == "not_measured");
  CHECK(j["peak"]["product"] == "H200 SXM");
}

TEST_CASE("measured ceilings are cached per machine and reused") {
  FakeRuntime fake = FakeRuntime::withH200();
  TempCache temp;
  ReportOptions options;
  options.hostname = "host-a";
  options.measureCeilings = true;
  std::vector<std::string> progress;
  options.onProgress = [&](const std::string& m) { progress.push_back(m); };

  auto first = buildDeviceReport(fake, temp.cache, options);
  REQUIRE(first.devices.size() == 1);
  CHECK(first.devices[0].ceilingStatus == CeilingStatus::Measured);
  CHECK(*first.devices[0].ceilings->copyGBps == doctest::Approx(4300.0));
  CHECK(progress.size() == 2);
  CHECK(fake.copyCalls == 1);

  auto second = buildDeviceReport(fake, temp.cache, options);
  CHECK(second.devices[0].ceilingStatus == CeilingStatus::Cached);
  CHECK(*second.devices[0].ceilings->matmulBf16Tflops == doctest::Approx(780.0));
  CHECK(fake.copyCalls == 1);  // not measured again

  options.refresh = true;
  fake.copy.value = 4400.0;
  auto third = buildDeviceReport(fake, temp.cache, options);
  CHECK(third.devices[0].ceilingStatus == CeilingStatus::Measured);
  CHECK(*third.devices[0].ceilings->copyGBps == doctest::Approx(4400.0));
  CHECK(fake.copyCalls == 2);

  // Another host does not see this host's numbers.
  options.refresh = false;
  options.measureCeilings = false;
  options.hostname = "host-b";
  auto elsewhere = buildDeviceReport(fake, temp.cache, options);
  CHECK(elsewhere.devices[0].ceilingStatus == CeilingStatus::NotMeasured);
}

TEST_CASE("a failed measurement is reported and not cached") {
  FakeRuntime fake = FakeRuntime::withH200();
  fake.copy = Measurement{std::nullopt, "", "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY"};
  fake.matmul = Measurement{std::nullopt, "", "cuBLAS not loadable"};
  TempCache temp;
  ReportOptions options;
  options.hostname = "h";
  options.measureCeilings = true;
  auto report = buildDeviceReport(fake, temp.cache, options);
  CHECK(report.devices[0].ceilingStatus == CeilingStatus::Failed);
  CHECK(report.devices[0].ceilingNote.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos);
  CHECK_FALSE(temp.cache.find(report.devices[0].machineKey));

  // Half a measurement is kept, with the missing half explained.
  fake.copy = Measurement{4300.0, "copy", ""};
  auto half = buildDeviceReport(fake, temp.cache, options);
  CHECK(half.devices[0].ceilingStatus == CeilingStatus::Measured);
  CHECK_FALSE(half.devices[0].ceilings->matmulBf16Tflops);
  CHECK(half.devices[0].ceilings->matmulMethod.find("cuBLAS not loadable") != std::string::npos);
  CHECK(half.devices[0].ceilingNote.find("matmul not measured") != std::string::npos);
}

TEST_CASE("asking for a device that does not exist is an error naming the range") {
  FakeRuntime fake = FakeRuntime::withH200();
  TempCache temp;
  ReportOptions options;
  options.device = 3;
  auto report = buildDeviceReport(fake, temp.cache, options);
  CHECK(report.devices.empty());
  CHECK(report.deviceError.find("device 3 does not exist") != std::string::npos);
  CHECK(report.deviceError.find("0..0") != std::string::npos);
}

TEST_CASE("an H200 (sm_90, 141 GB) is reported as an H200, by name and by memory") {
  FakeRuntime fake = FakeRuntime::withH200();
  TempCache temp;
  ReportOptions options;
  options.hostname = "h";
  auto report = buildDeviceReport(fake, temp.cache, options);
  REQUIRE(report.devices.size() == 1);
  auto j = toJson(report)["devices"][0];
  CHECK(j["peak"]["product"] == "H200 SXM");
  CHECK(j["peak"]["hbm_gbps"].get<double>() == doctest::Approx(4800));
  CHECK(j["identified_as"] == "H200 SXM (by name \"NVIDIA H200\" and 139.8 GiB)");

  // The same device behind a name the table does not know is still found by its memory.
  fake.snap.devices[0].name = "NVIDIA Graphics Device";
  auto unnamed = buildDeviceReport(fake, temp.cache, options);
  REQUIRE(unnamed.devices[0].peak.entry);
  CHECK(unnamed.devices[0].peak.entry->product == "H200 SXM");
  CHECK(unnamed.devices[0].peak.matchedBy == PeakMatch::ByMemory);
  CHECK(toJson(unnamed)["devices"][0]["identified_as"].get<std::string>().find("by sm_90 and 139.8 GiB") !=
        std::string::npos);

  // Without name or memory only the arch is known, and the text says the product is a guess.
  fake.snap.devices[0].name = "";
  fake.snap.devices[0].memoryBytes = 0;
  auto bare = buildDeviceReport(fake, temp.cache, options);
  CHECK(bare.devices[0].peak.matchedBy == PeakMatch::ByArch);
  CHECK(describeIdentity(bare.devices[0].info, bare.devices[0].peak).find("only the sm_90 default") != std::string::npos);
}
