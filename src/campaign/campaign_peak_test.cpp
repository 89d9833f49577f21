#include "campaign/campaign_peak.h"

#include <unistd.h>

#include <filesystem>

#include <doctest/doctest.h>

#include "device/fake_runtime_test_support.h"

using namespace kopt;
using namespace kopt::campaign;
using kopt::device::testing::FakeRuntime;
namespace fs = std::filesystem;

namespace {

Manifest sm90(std::string op = "gemm_bf16") {
  Manifest m;
  m.targetOp = std::move(op);
  m.targetGpu = "sm_90";
  return m;
}

measure::PrimaryMetric tflops() { return measure::PrimaryMetric{measure::PrimaryMetricKind::CombinedStepTflops, ""}; }
measure::PrimaryMetric gbps() { return measure::PrimaryMetric{measure::PrimaryMetricKind::ForwardGbps, ""}; }

// The H200 as the device layer sees it (name, sm_90, 139.8 GiB), with or without the ceilings
// measured on the real one (docs/gpu-validation.md: 4,267 GB/s copy, 791 TFLOPS bf16 matmul).
CampaignDevice h200(bool withCeilings) {
  CampaignDevice d;
  d.info = FakeRuntime::withH200().snap.devices.front();
  d.cacheFile = "/cache/ceilings.json";
  if (withCeilings) {
    device::Ceilings c;
    c.copyGBps = 4267.0;
    c.copyMethod = "cuMemcpyDtoDAsync 2 GiB, median of 20";
    c.matmulBf16Tflops = 791.0;
    c.matmulMethod = "cublasGemmEx bf16 8192^3, median of 20";
    c.measuredAt = "2026-11-30T10:00:00Z";
    c.deviceName = "NVIDIA H200";
    d.ceilings = c;
  }
  return d;
}

struct TempCache {
  fs::path dir = fs::temp_directory_path() / ("kopt_campaign_peak_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  device::CeilingCache cache{dir / "ceilings.json"};
  static inline int n = 0;
  TempCache() { fs::remove_all(dir); }
  ~TempCache() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("a measured ceiling of the campaign's device comes first") {
  const auto d = h200(true);
  auto compute = campaignPeak(sm90(), tflops(), d);
  REQUIRE(compute);
  CHECK(compute->value == doctest::Approx(791.0));
  CHECK(compute->unit == "TFLOPS");
  CHECK(compute->source == PeakSource::MeasuredCeiling);
  CHECK(compute->reason.find("measured bf16 matmul ceiling 791 TFLOPS of device 0, NVIDIA H200 (H200 SXM)") == 0);
  CHECK(compute->reason.find("cublasGemmEx") != std::string::npos);

  auto memory = campaignPeak(sm90("rmsnorm"), gbps(), d);
  REQUIRE(memory);
  CHECK(memory->value == doctest::Approx(4267.0));
  CHECK(memory->source == PeakSource::MeasuredCeiling);
  CHECK(std::string(peakSourceName(memory->source)) == "measured_ceiling");
}

TEST_CASE("without a measured ceiling: the identified device's datasheet, an H200's and not an H100's") {
  auto memory = campaignPeak(sm90("rmsnorm"), gbps(), h200(false));
  REQUIRE(memory);
  CHECK(memory->value == doctest::Approx(4800));  // the arch default (H100 SXM) would say 3350
  CHECK(memory->source == PeakSource::DeviceDatasheet);
  CHECK(memory->reason.find("datasheet HBM 4800 GB/s of the H200 SXM (device 0, NVIDIA H200, identified by name") == 0);
  CHECK(memory->reason.find("measure_ceilings") != std::string::npos);

  // fp8: only bf16 is measured, so even with ceilings the fp8 figure is the device's datasheet.
  auto fp8 = campaignPeak(sm90("gemm_fp8_blockwise"), tflops(), h200(true));
  REQUIRE(fp8);
  CHECK(fp8->value == doctest::Approx(1978.9));
  CHECK(fp8->source == PeakSource::DeviceDatasheet);
  CHECK(fp8->reason.find("not an fp8 one") != std::string::npos);

  // A half-failed measurement (copy failed) falls back for GB/s only.
  auto half = h200(true);
  half.ceilings->copyGBps.reset();
  half.ceilings->copyMethod = "failed: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY";
  auto copy = campaignPeak(sm90("rmsnorm"), gbps(), half);
  REQUIRE(copy);
  CHECK(copy->source == PeakSource::DeviceDatasheet);
  CHECK(copy->reason.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos);
  CHECK(campaignPeak(sm90(), tflops(), half)->source == PeakSource::MeasuredCeiling);
}

TEST_CASE("an unnamed sm_90 with 141 GB is held to the H200's datasheet") {
  auto d = h200(false);
  d.info->name = "NVIDIA Graphics Device";
  auto memory = campaignPeak(sm90("rmsnorm"), gbps(), d);
  REQUIRE(memory);
  CHECK(memory->value == doctest::Approx(4800));
  CHECK(memory->source == PeakSource::DeviceDatasheet);
  CHECK(memory->reason.find("identified by arch and memory size") != std::string::npos);
}

TEST_CASE("only the arch is known: its datasheet default, and the reason says so and why") {
  CampaignDevice none;
  none.why = "no GPU found: CUDA driver library: not found";
  auto memory = campaignPeak(sm90("rmsnorm"), gbps(), none);
  REQUIRE(memory);
  CHECK(memory->value == doctest::Approx(3350));
  CHECK(memory->source == PeakSource::ArchDatasheet);
  CHECK(memory->reason.rfind(
            "datasheet HBM 3350 GB/s of the H100 SXM, the sm_90 default, because the device was not identified: no GPU found",
            0) == 0);

  // A device that neither name nor memory identifies: also the arch default, naming the device.
  auto bare = h200(false);
  bare.info->name = "NVIDIA Graphics Device";
  bare.info->memoryBytes = 0;
  auto guessed = campaignPeak(sm90(), tflops(), bare);
  REQUIRE(guessed);
  CHECK(guessed->source == PeakSource::ArchDatasheet);
  CHECK(guessed->reason.find("NVIDIA Graphics Device (sm_90, memory unknown) matches no datasheet row") != std::string::npos);

  // The compile-target spelling of the arch is the same chip.
  Manifest a = sm90();
  a.targetGpu = "sm_90a";
  auto archA = campaignPeak(a, tflops(), none);
  REQUIRE(archA);
  CHECK(archA->value == doctest::Approx(989.4));
}

TEST_CASE("no peak for a metric the hardware does not bound, or for the CPU") {
  CHECK_FALSE(campaignPeak(sm90(), measure::PrimaryMetric{measure::PrimaryMetricKind::Custom, "us"}, h200(true)));
  Manifest cpu = sm90();
  cpu.targetGpu = "cpu";
  CHECK_FALSE(campaignPeak(cpu, tflops(), CampaignDevice{}));
  CHECK_FALSE(campaignPeak(cpu, tflops()));  // the process-level entry does not touch a GPU runtime for it
}

TEST_CASE("detection: the executor's device on this machine, with its cached ceilings") {
  TempCache temp;
  FakeRuntime fake = FakeRuntime::withH200();
  device::DeviceInfo second = fake.snap.devices.front();
  second.index = 1;
  second.pciBusId = "0000:00:06.0";
  fake.snap.devices.push_back(second);
  device::Ceilings measured = *h200(true).ceilings;
  measured.copyGBps = 4100.0;  // device 1 only
  std::string error;
  REQUIRE(temp.cache.store(device::machineKey(second, "host-a"), measured, &error));

  Manifest m = sm90();
  auto first = detectCampaignDevice(m, fake.snap, temp.cache, "host-a");
  REQUIRE(first.info);
  CHECK(first.info->index == 0);
  CHECK_FALSE(first.ceilings);  // device 0 was never measured

  m.executor.devices = {"1", "0"};
  auto sharded = detectCampaignDevice(m, fake.snap, temp.cache, "host-a");
  REQUIRE(sharded.info);
  CHECK(sharded.info->index == 1);
  REQUIRE(sharded.ceilings);
  CHECK(*sharded.ceilings->copyGBps == doctest::Approx(4100.0));
  CHECK(campaignPeak(m, gbps(), sharded)->value == doctest::Approx(4100.0));

  // Another host's ceilings are not this machine's.
  CHECK_FALSE(detectCampaignDevice(m, fake.snap, temp.cache, "host-b").ceilings);
}

TEST_CASE("detection refuses a device the campaign does not run on, and says why") {
  TempCache temp;
  FakeRuntime fake = FakeRuntime::withH200();
  Manifest m = sm90();

  Manifest amd = m;
  amd.targetGpu = "gfx942";
  auto wrongArch = detectCampaignDevice(amd, fake.snap, temp.cache, "h");
  CHECK_FALSE(wrongArch.info);
  CHECK(wrongArch.why == "device 0, NVIDIA H200 is sm_90, not the manifest's gfx942");

  Manifest slurm = m;
  slurm.executor.kind = ExecutorKind::Slurm;
  auto remote = detectCampaignDevice(slurm, fake.snap, temp.cache, "h");
  CHECK_FALSE(remote.info);
  CHECK(remote.why.find("Slurm") != std::string::npos);

  Manifest missing = m;
  missing.executor.devices = {"3"};
  CHECK(detectCampaignDevice(missing, fake.snap, temp.cache, "h").why == "device 3 does not exist here (1 device(s) found)");
  missing.executor.devices = {"GPU-5f1c"};
  CHECK(detectCampaignDevice(missing, fake.snap, temp.cache, "h").why.find("'GPU-5f1c'") != std::string::npos);

  FakeRuntime nothing = FakeRuntime::withoutGpu("no GPU found: test");
  auto absent = detectCampaignDevice(m, nothing.snap, temp.cache, "h");
  CHECK_FALSE(absent.info);
  CHECK(absent.why == "no GPU found: test");
  auto fallback = campaignPeak(m, gbps(), absent);
  REQUIRE(fallback);
  CHECK(fallback->source == PeakSource::ArchDatasheet);
  CHECK(fallback->reason.find("no GPU found: test") != std::string::npos);

  Manifest sm90a = m;
  sm90a.targetGpu = "sm_90a";
  CHECK(detectCampaignDevice(sm90a, fake.snap, temp.cache, "h").info);
}
