#pragma once
// What kopt adds to the environment of every command a campaign runs (build, tests, bench
// processes and bench workers), beside what the manifest's command line sets.
#include <map>
#include <string>

#include "campaign/manifest.h"

namespace kopt::campaign {

// The quick harness pins a Triton autotuner's choice per tree in a cache under this folder
// (harness/CONTRACT.md, "Autotuned kernels"): kopt gives every process of a campaign the
// campaign's own, so the tests, the A/A sessions and both arms of a look share it, and nothing
// of one campaign outlives it in the user's home.
inline constexpr const char* kAutotuneCacheEnv = "KOPT_AUTOTUNE_CACHE_DIR";

// `env` with the campaign's variables added; a value the command sets itself is kept (the
// user's informed choice, e.g. KOPT_AUTOTUNE_CACHE_DIR=off).
void addCampaignEnvironment(std::map<std::string, std::string>& env, const PlaceholderValues& values);

}  // namespace kopt::campaign
