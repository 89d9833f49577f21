#include "device/kfd_topology.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace kopt::device {

std::map<std::string, std::int64_t> parseKfdProperties(const std::string& text) {
  std::map<std::string, std::int64_t> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string key;
    long long value = 0;
    if (fields >> key >> value) out[key] = value;
  }
  return out;
}

std::string gfxArchFromTargetVersion(std::int64_t version) {
  if (version <= 0) return {};
  const std::int64_t major = version / 10000;
  const std::int64_t minor = (version / 100) % 100;
  const std::int64_t step = version % 100;
  if (minor > 15 || step > 15) return {};
  static const char* hex = "0123456789abcdef";
  return "gfx" + std::to_string(major) + hex[minor] + hex[step];
}

std::optional<std::int64_t> kfdLocationIdFromPciBusId(const std::string& pciBusId) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(pciBusId.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return std::nullopt;
  return static_cast<std::int64_t>((bus << 8) | (device << 3) | function);
}

namespace {
std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<int> positive(const std::map<std::string, std::int64_t>& props, const char* key) {
  auto it = props.find(key);
  if (it == props.end() || it->second <= 0) return std::nullopt;
  return static_cast<int>(it->second);
}
}  // namespace

std::vector<KfdGpuNode> readKfdGpuNodes(const std::filesystem::path& topologyRoot) {
  std::vector<std::pair<int, KfdGpuNode>> numbered;
  std::error_code ec;
  const auto nodesDir = topologyRoot / "nodes";
  for (const auto& entry : std::filesystem::directory_iterator(nodesDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const auto props = parseKfdProperties(slurp(entry.path() / "properties"));
    const auto simd = positive(props, "simd_count");
    if (!simd) continue;  // a CPU node
    KfdGpuNode node;
    auto get = [&](const char* key) { auto it = props.find(key); return it == props.end() ? 0 : it->second; };
    node.arch = gfxArchFromTargetVersion(get("gfx_target_version"));
    const auto perCu = positive(props, "simd_per_cu");
    node.computeUnits = perCu ? *simd / *perCu : 0;
    node.engineClockMHz = positive(props, "max_engine_clk_fcompute");
    node.locationId = get("location_id");
    node.domain = get("domain");
    // The first VRAM bank carries the memory interface (heap_type 1 public / 2 private VRAM).
    for (const auto& bank : std::filesystem::directory_iterator(entry.path() / "mem_banks", ec)) {
      const auto bankProps = parseKfdProperties(slurp(bank.path() / "properties"));
      auto heap = bankProps.find("heap_type");
      if (heap == bankProps.end() || (heap->second != 1 && heap->second != 2)) continue;
      node.memoryBusBits = positive(bankProps, "width");
      node.memoryClockMHz = positive(bankProps, "mem_clk_max");
      break;
    }
    numbered.emplace_back(std::stoi(name), std::move(node));
  }
  std::sort(numbered.begin(), numbered.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<KfdGpuNode> out;
  for (auto& [index, node] : numbered) out.push_back(std::move(node));
  return out;
}

}  // namespace kopt::device
