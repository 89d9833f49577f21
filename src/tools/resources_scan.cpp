#include "tools/resources_scan.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

namespace kopt::tools::resources {

namespace fs = std::filesystem;

namespace {

std::mutex& rememberedMutex() {
  static std::mutex m;
  return m;
}

std::set<fs::path>& remembered() {
  static std::set<fs::path> dirs;
  return dirs;
}

void collectUnder(const fs::path& campaignsDir, std::map<std::string, fs::path>& found) {
  std::error_code ec;
  if (!fs::is_directory(campaignsDir, ec)) return;
  std::vector<fs::path> dirs;
  for (fs::directory_iterator it(campaignsDir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_directory(ec) && looksLikeCampaign(it->path())) dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    fs::path canonical = fs::canonical(dir, ec);
    if (ec) continue;
    found.emplace(dir.filename().string(), canonical);  // first by path wins
  }
}

}  // namespace

bool looksLikeCampaign(const fs::path& dir) {
  std::error_code ec;
  for (const char* marker : {"manifest.yaml", "state.json", "ledger.jsonl"})
    if (fs::is_regular_file(dir / marker, ec)) return true;
  return false;
}

std::vector<CampaignLocation> discoverCampaigns(const fs::path& workspaceRoot) {
  std::map<std::string, fs::path> found;
  std::error_code ec;
  if (!workspaceRoot.empty()) {
    collectUnder(workspaceRoot / ".kopt" / "campaigns", found);
    std::vector<fs::path> repos;
    for (fs::directory_iterator it(workspaceRoot, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      std::error_code dirEc;
      if (it->is_directory(dirEc) && it->path().filename() != ".kopt") repos.push_back(it->path());
    }
    std::sort(repos.begin(), repos.end());
    for (const auto& repo : repos) collectUnder(repo / ".kopt" / "campaigns", found);
  }
  std::vector<fs::path> extra;
  {
    std::lock_guard<std::mutex> lock(rememberedMutex());
    extra.assign(remembered().begin(), remembered().end());
  }
  for (const auto& dir : extra) {
    if (!looksLikeCampaign(dir)) continue;
    fs::path canonical = fs::canonical(dir, ec);
    if (!ec) found.emplace(canonical.filename().string(), canonical);
  }
  std::vector<CampaignLocation> out;
  for (auto& [name, dir] : found) out.push_back({name, dir});
  return out;
}

std::optional<CampaignLocation> findCampaign(const fs::path& workspaceRoot, const std::string& name) {
  for (auto& location : discoverCampaigns(workspaceRoot))
    if (location.name == name) return location;
  return std::nullopt;
}

void rememberCampaignDir(const fs::path& dir) {
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec);
  if (ec) return;
  std::lock_guard<std::mutex> lock(rememberedMutex());
  remembered().insert(absolute.lexically_normal());
}

void forgetRememberedCampaignDirs() {
  std::lock_guard<std::mutex> lock(rememberedMutex());
  remembered().clear();
}

std::vector<int> roundNumbers(const fs::path& campaignDir) {
  std::vector<int> rounds;
  std::error_code ec;
  for (fs::directory_iterator it(campaignDir / "rounds", fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind("round-", 0) != 0 || name.size() <= 6 || name.size() > 13) continue;
    std::string digits = name.substr(6);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits[0] == '0')
      continue;
    std::error_code dirEc;
    if (it->is_directory(dirEc)) rounds.push_back(std::stoi(digits));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds;
}

}  // namespace kopt::tools::resources
