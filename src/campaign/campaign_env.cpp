#include "campaign/campaign_env.h"

#include <filesystem>

namespace kopt::campaign {

void addCampaignEnvironment(std::map<std::string, std::string>& env, const PlaceholderValues& values) {
  if (values.campaignDir.empty()) return;
  env.emplace(kAutotuneCacheEnv, (std::filesystem::path(values.campaignDir) / "autotune").string());
}

}  // namespace kopt::campaign
