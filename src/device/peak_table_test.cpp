#include "device/peak_table.h"

#include <set>

#include <doctest/doctest.h>

using namespace kopt::device;

TEST_CASE("product names map to their arch") {
  CHECK(archForProduct("NVIDIA H200") == "sm_90");
  CHECK(archForProduct("NVIDIA H100 80GB HBM3") == "sm_90");
  CHECK(archForProduct("NVIDIA B200") == "sm_100");
  CHECK(archForProduct("AMD Instinct MI300X") == "gfx942");
  CHECK(archForProduct("AMD Instinct MI325X") == "gfx942");
  CHECK(archForProduct("mi355x") == "gfx950");  // case-insensitive
  CHECK(archForProduct("NVIDIA A100-SXM4-80GB") == "sm_80");
  CHECK(archForProduct("Some Unknown Accelerator") == "");
  CHECK(archForProduct("") == "");
}

TEST_CASE("the most specific product wins") {
  auto h100pcie = lookupPeak("NVIDIA H100 PCIe", "sm_90");
  REQUIRE(h100pcie.entry);
  CHECK(h100pcie.entry->product == "H100 PCIe");
  CHECK(h100pcie.matchedBy == PeakMatch::ByName);

  auto gh200 = lookupPeak("NVIDIA GH200 480GB", "sm_90");
  REQUIRE(gh200.entry);
  CHECK(gh200.entry->product == "GH200");

  auto h200 = lookupPeak("NVIDIA H200", "sm_90");
  REQUIRE(h200.entry);
  CHECK(h200.entry->product == "H200 SXM");
  CHECK(h200.entry->hbmGBps == doctest::Approx(4800));
  CHECK(h200.entry->bf16DenseTflops == doctest::Approx(989.4));
}

TEST_CASE("an unknown name falls back to the arch default, and says so") {
  auto lookup = lookupPeak("NVIDIA Hopper Engineering Sample", "sm_90");
  REQUIRE(lookup.entry);
  CHECK(lookup.matchedBy == PeakMatch::ByArch);
  CHECK(lookup.entry->arch == "sm_90");

  auto amd = lookupPeak("", "gfx942");
  REQUIRE(amd.entry);
  CHECK(amd.entry->product == "MI300X");

  CHECK(lookupPeak("", "").entry == nullptr);
  CHECK(lookupPeak("mystery", "sm_12345").entry == nullptr);
}

TEST_CASE("a name that contradicts the runtime's arch is not trusted") {
  // A device named like an H200 but reporting gfx942 gets the gfx942 default, not the H200 row.
  auto lookup = lookupPeak("H200 (renamed)", "gfx942");
  REQUIRE(lookup.entry);
  CHECK(lookup.entry->arch == "gfx942");
  CHECK(lookup.matchedBy == PeakMatch::ByArch);
}

TEST_CASE("every table row is complete and every arch has exactly one default") {
  std::set<std::string> arches, defaults;
  for (const auto& entry : peakTable()) {
    INFO(entry.product);
    CHECK_FALSE(entry.product.empty());
    CHECK_FALSE(entry.nameMatches.empty());
    CHECK(entry.bf16DenseTflops > 0);
    CHECK(entry.hbmGBps > 0);
    CHECK_FALSE(entry.source.empty());
    if (entry.fp8DenseTflops) CHECK(*entry.fp8DenseTflops >= entry.bf16DenseTflops);
    arches.insert(entry.arch);
    if (entry.archDefault) CHECK(defaults.insert(entry.arch).second);
  }
  CHECK(arches == defaults);
  for (const char* arch : {"gfx942", "gfx950", "sm_90", "sm_100"}) CHECK(arches.count(arch) == 1);
}

TEST_CASE("peak JSON carries the table version and the match kind") {
  auto lookup = lookupPeak("AMD Instinct MI300X", "gfx942");
  REQUIRE(lookup.entry);
  auto j = toJson(*lookup.entry, lookup.matchedBy);
  CHECK(j["table_version"] == kPeakTableVersion);
  CHECK(j["matched_by"] == "name");
  CHECK(j["bf16_dense_tflops"].get<double>() == doctest::Approx(1307.4));
  auto a100 = lookupPeak("NVIDIA A100", "sm_80");
  REQUIRE(a100.entry);
  CHECK(toJson(*a100.entry, a100.matchedBy)["fp8_dense_tflops"].is_null());
}
