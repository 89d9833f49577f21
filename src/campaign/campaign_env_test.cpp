#include "campaign/campaign_env.h"

#include <doctest/doctest.h>

namespace kopt::campaign {

TEST_CASE("every command of a campaign shares the campaign's autotune cache, unless it sets its own") {
  std::map<std::string, std::string> env = {{"FOO", "1"}};
  addCampaignEnvironment(env, PlaceholderValues{"/r/.kopt/campaigns/c", "/r", "sm_90"});
  CHECK(env.at(kAutotuneCacheEnv) == "/r/.kopt/campaigns/c/autotune");
  CHECK(env.at("FOO") == "1");
  std::map<std::string, std::string> own = {{kAutotuneCacheEnv, "off"}};
  addCampaignEnvironment(own, PlaceholderValues{"/r/.kopt/campaigns/c", "/r", "sm_90"});
  CHECK(own.at(kAutotuneCacheEnv) == "off");
  std::map<std::string, std::string> none;
  addCampaignEnvironment(none, PlaceholderValues{});
  CHECK(none.empty());
}

}  // namespace kopt::campaign
