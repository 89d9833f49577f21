#pragma once
// Datasheet peaks per known GPU product, versioned. They are leads, not readings: the speed-of-
// light check prefers the ceilings measured on the machine (ceiling_cache.h) and falls back to
// these. Every figure is dense (no 2:4 sparsity) and per runtime device (a multi-die part that the
// runtime shows as several devices lists the per-device share).
//
// A device is identified by its runtime name AND its memory size: the arch alone cannot tell an
// H200 (sm_90, 141 GB, 4.8 TB/s) from an H100 (sm_90, 80 GB, 3.35 TB/s), and one name can cover
// parts with different memory (GH200 with 96 GB HBM3 or 144 GB HBM3e).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::device {

// Bump when a figure changes, so a record made against an older table says so.
inline constexpr const char* kPeakTableVersion = "2026.2";

// Device memory as the runtime reports it (cuDeviceTotalMem / hipDeviceTotalMem), in GiB, [min, max).
// A product's marketing size is a little above it (an H200's "141 GB" reads as 139.8 GiB).
struct MemoryRangeGiB {
  double min = 0;
  double max = 0;
  bool contains(std::uint64_t bytes) const;
};

struct PeakEntry {
  std::string product;                 // "H200 SXM"
  std::string arch;                    // "sm_90", "gfx942", ...
  std::vector<std::string> nameMatches;  // case-insensitive substrings of the runtime's name
  bool archDefault = false;            // the entry used when only the arch is known
  double bf16DenseTflops = 0;
  std::optional<double> fp8DenseTflops;  // none where the chip has no fp8 matrix path
  double hbmGBps = 0;
  std::string source;
  // When set, a device whose memory is known and outside the range is not this product even if
  // the name matches (the next matching row is tried).
  std::optional<MemoryRangeGiB> memoryGiB = std::nullopt;
  // A device of this arch whose name matches no row, with memory in memoryGiB, is taken to be
  // this product (at most one such row per arch and memory size).
  bool identifiedByMemory = false;
};

// ByName: the runtime's name (and memory, where the row has a range); ByMemory: the name matched
// nothing, the arch and the memory size did; ByArch: only the arch's default row.
enum class PeakMatch { ByName, ByMemory, ByArch };
const char* peakMatchName(PeakMatch match);  // "name" | "memory" | "arch"

struct PeakLookup {
  const PeakEntry* entry = nullptr;  // nullptr when neither name nor arch is known
  PeakMatch matchedBy = PeakMatch::ByName;
};

const std::vector<PeakEntry>& peakTable();

// The arch of a product named by the runtime or by a user ("NVIDIA H200" -> "sm_90",
// "AMD Instinct MI300X" -> "gfx942", "mi355x" -> "gfx950"); "" when unknown.
std::string archForProduct(std::string_view productName);

// Name first (the most specific entry wins: "H100 PCIe" before "H100"; a row whose memory range
// excludes a known `memoryBytes` is skipped, unless no row of that name fits, when the name is
// trusted over the memory), then arch + memory (identifiedByMemory rows), then the arch's default.
// memoryBytes 0: unknown.
PeakLookup lookupPeak(std::string_view runtimeName, std::string_view arch, std::uint64_t memoryBytes = 0);

nlohmann::json toJson(const PeakEntry& entry, PeakMatch matchedBy);

}  // namespace kopt::device
