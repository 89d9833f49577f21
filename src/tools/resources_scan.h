#pragma once
// Finding the campaigns whose records are served as resources. Campaigns live at
// <repo>/.kopt/campaigns/<name> (docs/campaign-engine.md); the server's workspace is either a
// repository itself or a folder of repositories, so both <workspace>/.kopt/campaigns/* and
// <workspace>/*/.kopt/campaigns/* are scanned, on demand (a campaign defined a second ago shows
// up in the next resources/list). Campaigns elsewhere (an explicit campaign_dir) are added with
// rememberCampaignDir by whoever creates them.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt::tools::resources {

struct CampaignLocation {
  std::string name;            // the directory's name, which is the campaign name
  std::filesystem::path dir;   // canonical
};

// A directory is a campaign when it holds manifest.yaml, state.json or ledger.jsonl.
bool looksLikeCampaign(const std::filesystem::path& dir);

// Sorted by name; when two directories share a name the first by path wins (the other is still
// reachable through its tools, not through a resource URI).
std::vector<CampaignLocation> discoverCampaigns(const std::filesystem::path& workspaceRoot);

std::optional<CampaignLocation> findCampaign(const std::filesystem::path& workspaceRoot, const std::string& name);

// Process-wide: a campaign directory outside the scanned places. Thread-safe; a directory that
// disappears later is simply skipped.
void rememberCampaignDir(const std::filesystem::path& dir);
void forgetRememberedCampaignDirs();  // tests

// The round numbers present under <dir>/rounds (round-N folders), ascending.
std::vector<int> roundNumbers(const std::filesystem::path& campaignDir);

}  // namespace kopt::tools::resources
