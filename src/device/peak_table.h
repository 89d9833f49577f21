#pragma once
// Datasheet peaks per known GPU product, versioned. They are leads, not readings: the speed-of-
// light check prefers the ceilings measured on the machine (ceiling_cache.h) and falls back to
// these. Every figure is dense (no 2:4 sparsity) and per runtime device (a multi-die part that the
// runtime shows as several devices lists the per-device share).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::device {

// Bump when a figure changes, so a record made against an older table says so.
inline constexpr const char* kPeakTableVersion = "2026.1";

struct PeakEntry {
  std::string product;                 // "H200 SXM"
  std::string arch;                    // "sm_90", "gfx942", ...
  std::vector<std::string> nameMatches;  // case-insensitive substrings of the runtime's name
  bool archDefault = false;            // the entry used when only the arch is known
  double bf16DenseTflops = 0;
  std::optional<double> fp8DenseTflops;  // none where the chip has no fp8 matrix path
  double hbmGBps = 0;
  std::string source;
};

enum class PeakMatch { ByName, ByArch };

struct PeakLookup {
  const PeakEntry* entry = nullptr;  // nullptr when neither name nor arch is known
  PeakMatch matchedBy = PeakMatch::ByName;
};

const std::vector<PeakEntry>& peakTable();

// The arch of a product named by the runtime or by a user ("NVIDIA H200" -> "sm_90",
// "AMD Instinct MI300X" -> "gfx942", "mi355x" -> "gfx950"); "" when unknown.
std::string archForProduct(std::string_view productName);

// Name first (the most specific entry wins: "H100 PCIe" before "H100"), then the arch's default.
PeakLookup lookupPeak(std::string_view runtimeName, std::string_view arch);

nlohmann::json toJson(const PeakEntry& entry, PeakMatch matchedBy);

}  // namespace kopt::device
