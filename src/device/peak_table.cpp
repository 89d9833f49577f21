#include "device/peak_table.h"

#include <algorithm>
#include <cctype>

namespace kopt::device {

namespace {

// Order matters: lookup takes the first entry whose name matches, so the more specific names
// (GH200 before H200, "H100 PCIe" before "H100", GB200 before B200) come first.
//
// Sources (vendor datasheets; where a datasheet gives "with sparsity" figures only, they are halved):
//  [nv-h100]  NVIDIA H100 Tensor Core GPU datasheet: SXM5 BF16 1,979 / FP8 3,958 TFLOPS sparse,
//             3.35 TB/s; PCIe 1,513 / 3,026 sparse, 2.0 TB/s; NVL 1,671 / 3,341 sparse, 3.9 TB/s.
//  [nv-h200]  NVIDIA H200 Tensor Core GPU datasheet: SXM BF16 1,979 / FP8 3,958 TFLOPS sparse,
//             4.8 TB/s; NVL 1,671 / 3,341 sparse, 4.8 TB/s.
//  [nv-gh200] NVIDIA GH200 Grace Hopper Superchip datasheet: BF16 1,979 / FP8 3,958 sparse;
//             96 GB HBM3 4 TB/s; 144 GB HBM3e 4.9 TB/s (same name, told apart by memory size).
//  [nv-b200]  NVIDIA HGX B200 (1,000 W) figures: BF16 4.5 / FP8 9 PFLOPS sparse, 8 TB/s;
//             GB200 (1,200 W): BF16 5 / FP8 10 PFLOPS sparse, 8 TB/s.
//  [nv-a100]  NVIDIA A100 datasheet: BF16 312 TFLOPS dense, 80 GB SXM 2,039 GB/s; no fp8.
//  [nv-l40s]  NVIDIA L40S datasheet: BF16 362.05 dense (733 sparse), FP8 1,466 sparse, 864 GB/s.
//  [amd-mi300] AMD Instinct MI300X data sheet: BF16 1,307.4 / FP8 2,614.9 TFLOPS dense, 5.3 TB/s;
//             MI325X same compute, 6 TB/s; MI300A BF16 980.6 / FP8 1,961.2 dense, 5.3 TB/s.
//  [amd-mi350] AMD Instinct MI350 series (CDNA 4) product pages: MI355X BF16 ~2.5 / FP8 ~5.0
//             PFLOPS dense, MI350X BF16 ~2.3 / FP8 ~4.6 PFLOPS dense, both 8 TB/s HBM3E.
//  [amd-mi200] AMD Instinct MI250X data sheet: BF16 383 TFLOPS, 3.2768 TB/s for the package of two
//             GCDs; ROCm shows each GCD as one device, so the entry is half of both.
//
// Memory ranges are in GiB as the runtime reports them. The H200's 139.8 GiB ("141 GB") was read on
// the device (docs/gpu-validation.md); the others are estimated from the marketing size the same
// way (H100 80 GB -> ~79.6, H100 NVL 94 GB -> ~93.6, GH200 96 GB -> ~95.6), so only the H200 row's
// bounds are checked against a real device. The identifiedByMemory rows of one arch must not
// overlap (a test checks).
std::vector<PeakEntry> buildTable() {
  return {
      {"GH200", "sm_90", {"GH200"}, false, 989.4, 1978.9, 4000, "[nv-gh200] 96 GB HBM3", MemoryRangeGiB{0, 120}},
      {"GH200 144GB", "sm_90", {"GH200"}, false, 989.4, 1978.9, 4900, "[nv-gh200] 144 GB HBM3e",
       MemoryRangeGiB{120, 200}},
      {"H200 NVL", "sm_90", {"H200 NVL"}, false, 835.5, 1670.5, 4800, "[nv-h200] NVL column"},
      {"H200 SXM", "sm_90", {"H200"}, false, 989.4, 1978.9, 4800, "[nv-h200] SXM column", MemoryRangeGiB{130, 150},
       true},
      {"H100 NVL", "sm_90", {"H100 NVL"}, false, 835.5, 1670.5, 3900, "[nv-h100] NVL column", MemoryRangeGiB{90, 94.5},
       true},
      {"H100 PCIe", "sm_90", {"H100 PCIe"}, false, 756.5, 1513.0, 2000, "[nv-h100] PCIe column"},
      {"H100 SXM", "sm_90", {"H100", "H800"}, true, 989.4, 1978.9, 3350, "[nv-h100] SXM column", MemoryRangeGiB{70, 88},
       true},
      {"GB200", "sm_100", {"GB200"}, false, 2500, 5000, 8000, "[nv-b200] GB200"},
      {"B200", "sm_100", {"B200"}, true, 2250, 4500, 8000, "[nv-b200] HGX B200"},
      {"A100 SXM 80GB", "sm_80", {"A100"}, true, 312, std::nullopt, 2039, "[nv-a100]"},
      {"L40S", "sm_89", {"L40S"}, true, 362.05, 733, 864, "[nv-l40s]"},
      {"MI325X", "gfx942", {"MI325X"}, false, 1307.4, 2614.9, 6000, "[amd-mi300] MI325X"},
      {"MI300A", "gfx942", {"MI300A"}, false, 980.6, 1961.2, 5300, "[amd-mi300] MI300A"},
      {"MI300X", "gfx942", {"MI300X", "MI308X"}, true, 1307.4, 2614.9, 5300, "[amd-mi300] MI300X"},
      {"MI355X", "gfx950", {"MI355X"}, false, 2516.6, 5033.2, 8000, "[amd-mi350] MI355X"},
      {"MI350X", "gfx950", {"MI350X"}, true, 2306.9, 4613.7, 8000, "[amd-mi350] MI350X"},
      {"MI250X (one GCD)", "gfx90a", {"MI250X", "MI250"}, true, 191.5, std::nullopt, 1638.4,
       "[amd-mi200] per GCD"},
  };
}

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool nameMatches(const PeakEntry& entry, const std::string& upperName) {
  for (const auto& needle : entry.nameMatches) {
    if (upperName.find(upper(needle)) != std::string::npos) return true;
  }
  return false;
}

// The first row the name matches whose memory range admits `memoryBytes` (0: unknown); when the
// name matches rows but none fits the memory, the first of them: the name is the more specific
// fact (a MIG slice of an H200 reports far less memory and is still an H200).
const PeakEntry* findByName(std::string_view name, std::uint64_t memoryBytes) {
  if (name.empty()) return nullptr;
  const std::string haystack = upper(name);
  const PeakEntry* first = nullptr;
  for (const auto& entry : peakTable()) {
    if (!nameMatches(entry, haystack)) continue;
    if (!first) first = &entry;
    if (memoryBytes == 0 || !entry.memoryGiB || entry.memoryGiB->contains(memoryBytes)) return &entry;
  }
  return first;
}

}  // namespace

const std::vector<PeakEntry>& peakTable() {
  static const std::vector<PeakEntry> table = buildTable();
  return table;
}

bool MemoryRangeGiB::contains(std::uint64_t bytes) const {
  const double gib = static_cast<double>(bytes) / static_cast<double>(1ull << 30);
  return gib >= min && gib < max;
}

const char* peakMatchName(PeakMatch match) {
  switch (match) {
    case PeakMatch::ByName: return "name";
    case PeakMatch::ByMemory: return "memory";
    case PeakMatch::ByArch: break;
  }
  return "arch";
}

std::string archForProduct(std::string_view productName) {
  const PeakEntry* entry = findByName(productName, 0);
  return entry ? entry->arch : std::string{};
}

PeakLookup lookupPeak(std::string_view runtimeName, std::string_view arch, std::uint64_t memoryBytes) {
  const PeakEntry* byName = findByName(runtimeName, memoryBytes);
  if (byName) {
    // A name that contradicts a known arch (a renamed or virtual device) is not trusted.
    if (arch.empty() || byName->arch == arch) return {byName, PeakMatch::ByName};
  }
  // Only a device whose name is unknown is identified by its memory: a known name that contradicts
  // the arch is a renamed or virtual device, and its memory says nothing reliable either.
  if (!byName && memoryBytes > 0 && !arch.empty()) {
    for (const auto& entry : peakTable()) {
      if (entry.identifiedByMemory && entry.arch == arch && entry.memoryGiB && entry.memoryGiB->contains(memoryBytes)) {
        return {&entry, PeakMatch::ByMemory};
      }
    }
  }
  for (const auto& entry : peakTable()) {
    if (entry.archDefault && !arch.empty() && entry.arch == arch) return {&entry, PeakMatch::ByArch};
  }
  return {};
}

nlohmann::json toJson(const PeakEntry& entry, PeakMatch matchedBy) {
  return {
      {"table_version", kPeakTableVersion},
      {"product", entry.product},
      {"arch", entry.arch},
      {"matched_by", peakMatchName(matchedBy)},
      {"bf16_dense_tflops", entry.bf16DenseTflops},
      {"fp8_dense_tflops", entry.fp8DenseTflops ? nlohmann::json(*entry.fp8DenseTflops) : nlohmann::json(nullptr)},
      {"hbm_gbps", entry.hbmGBps},
      {"source", entry.source},
  };
}

}  // namespace kopt::device
