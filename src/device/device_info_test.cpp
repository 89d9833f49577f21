#include "device/device_info.h"

#include <doctest/doctest.h>

using namespace kopt::device;

TEST_CASE("compute capability becomes an sm_ arch") {
  CHECK(nvidiaArchFromComputeCapability(9, 0) == "sm_90");
  CHECK(nvidiaArchFromComputeCapability(10, 0) == "sm_100");
  CHECK(nvidiaArchFromComputeCapability(8, 9) == "sm_89");
  CHECK(nvidiaArchFromComputeCapability(0, 0) == "");
}

TEST_CASE("theoretical bandwidth from clock and bus width") {
  // H200: 3201 MHz HBM3e clock on a 6144-bit bus -> about 4.9 TB/s (datasheet says 4.8).
  auto h200 = theoreticalBandwidthGBps(3201, 6144);
  REQUIRE(h200);
  CHECK(*h200 == doctest::Approx(4917.0).epsilon(0.001));
  // H100 SXM: 2619 MHz on 5120 bits -> 3.35 TB/s.
  CHECK(*theoreticalBandwidthGBps(2619, 5120) == doctest::Approx(3352.3).epsilon(0.001));
  CHECK_FALSE(theoreticalBandwidthGBps(std::nullopt, 5120));
  CHECK_FALSE(theoreticalBandwidthGBps(2619, 0));
}

TEST_CASE("device JSON uses null for unknown values") {
  DeviceInfo info;
  info.vendor = Vendor::Amd;
  info.name = "AMD Instinct MI300X";
  info.arch = "gfx942";
  info.computeUnits = 304;
  info.memoryBytes = 192ull << 30;
  auto j = toJson(info);
  CHECK(j["vendor"] == "amd");
  CHECK(j["compute_units"] == 304);
  CHECK(j["sm_clock_mhz"].is_null());
  CHECK(j["theoretical_bandwidth_gbps"].is_null());
  CHECK(j["memory_bytes"].get<std::uint64_t>() == (192ull << 30));
  CHECK(vendorName(Vendor::Nvidia) == "nvidia");
  CHECK(vendorName(Vendor::None) == "none");
}
