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

TEST_CASE("memory size tells apart products that share an arch or a name") {
  constexpr std::uint64_t GiB = 1ull << 30;
  const std::uint64_t h200Memory = 150'110'000'000ull;  // 139.8 GiB, read on an H200

  // An sm_90 whose name the table does not know is taken by its memory: ~141 GB is an H200, and
  // the lookup says it was the memory, not the name.
  auto unnamed = lookupPeak("NVIDIA Graphics Device", "sm_90", h200Memory);
  REQUIRE(unnamed.entry);
  CHECK(unnamed.entry->product == "H200 SXM");
  CHECK(unnamed.matchedBy == PeakMatch::ByMemory);
  CHECK(unnamed.entry->hbmGBps == doctest::Approx(4800));

  auto h100 = lookupPeak("", "sm_90", 80 * GiB - 400 * (1ull << 20));  // 79.6 GiB
  REQUIRE(h100.entry);
  CHECK(h100.entry->product == "H100 SXM");
  CHECK(h100.matchedBy == PeakMatch::ByMemory);

  auto nvl = lookupPeak("", "sm_90", 93 * GiB);
  REQUIRE(nvl.entry);
  CHECK(nvl.entry->product == "H100 NVL");
  CHECK(nvl.matchedBy == PeakMatch::ByMemory);

  // A memory size no row claims: the arch default, marked as such.
  auto odd = lookupPeak("", "sm_90", 40 * GiB);
  REQUIRE(odd.entry);
  CHECK(odd.matchedBy == PeakMatch::ByArch);

  // The memory of one arch says nothing about another.
  auto amd = lookupPeak("", "gfx942", h200Memory);
  REQUIRE(amd.entry);
  CHECK(amd.entry->product == "MI300X");
  CHECK(amd.matchedBy == PeakMatch::ByArch);

  // One name, two memory sizes: GH200 with 96 GB HBM3 or 144 GB HBM3e.
  auto gh96 = lookupPeak("NVIDIA GH200 480GB", "sm_90", 96 * GiB);
  auto gh144 = lookupPeak("NVIDIA GH200 144G HBM3e", "sm_90", 143 * GiB);
  REQUIRE(gh96.entry);
  REQUIRE(gh144.entry);
  CHECK(gh96.entry->hbmGBps == doctest::Approx(4000));
  CHECK(gh144.entry->hbmGBps == doctest::Approx(4900));
  CHECK(gh144.matchedBy == PeakMatch::ByName);
  // Memory unknown: the first row of the name, as before memory was read.
  CHECK(lookupPeak("NVIDIA GH200 480GB", "sm_90").entry->product == "GH200");
}

TEST_CASE("a known name is trusted over a memory size that fits none of its rows") {
  // A MIG slice of an H200 reports a fraction of the memory and is still an H200.
  auto mig = lookupPeak("NVIDIA H200 MIG 1g.18gb", "sm_90", 16ull << 30);
  REQUIRE(mig.entry);
  CHECK(mig.entry->product == "H200 SXM");
  CHECK(mig.matchedBy == PeakMatch::ByName);
  // And the runtime's name of the real part, with its memory, is matched by name.
  auto h200 = lookupPeak("NVIDIA H200", "sm_90", 150'110'000'000ull);
  REQUIRE(h200.entry);
  CHECK(h200.entry->product == "H200 SXM");
  CHECK(h200.matchedBy == PeakMatch::ByName);
  CHECK(toJson(*h200.entry, h200.matchedBy)["matched_by"] == "name");
  CHECK(toJson(*mig.entry, PeakMatch::ByMemory)["matched_by"] == "memory");
}

TEST_CASE("memory-identified rows of one arch do not overlap") {
  const auto& table = peakTable();
  for (size_t i = 0; i < table.size(); ++i) {
    const auto& a = table[i];
    if (!a.identifiedByMemory) continue;
    REQUIRE(a.memoryGiB);
    CHECK(a.memoryGiB->min < a.memoryGiB->max);
    for (size_t j = i + 1; j < table.size(); ++j) {
      const auto& b = table[j];
      if (!b.identifiedByMemory || b.arch != a.arch) continue;
      INFO(a.product << " vs " << b.product);
      CHECK((a.memoryGiB->max <= b.memoryGiB->min || b.memoryGiB->max <= a.memoryGiB->min));
    }
  }
}
