#pragma once
// Campaign records as MCP resources (URI scheme: tools/resources_uri.h, docs/resources.md):
// a static kopt://campaigns list, a lister that enumerates every existing record of every
// campaign found under the workspace (on demand, so new rounds appear without a restart), and one
// template per URI pattern so clients can read records that are not listed (e.g. any artifact).
// Read-only: nothing here writes. Change notifications are the engine's: it calls
// Registrar::notifyResourceUpdated with the URIs built by resources_uri.h.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mcp/tool_api.h"
#include "tools/resources_read.h"

namespace kopt::tools {

void registerCampaignResources(mcp::Registrar& registrar, const std::filesystem::path& workspaceRoot);

namespace resources {

// The read behind every kopt:// resource; nullopt = not found (-32002). Exposed for tests and for
// tools that want to embed a record in their result.
std::optional<std::vector<mcp::ResourceContents>> readCampaignResource(const std::filesystem::path& workspaceRoot,
                                                                       const std::string& uri,
                                                                       const ReadLimits& limits = {});

// Everything the lister would list, in order (campaigns by name, their files, rounds ascending).
std::vector<mcp::ResourceSpec> listCampaignResources(const std::filesystem::path& workspaceRoot,
                                                     const ReadLimits& limits = {});

inline constexpr std::size_t kMaxListedResources = 2000;
inline constexpr std::size_t kMaxListedArtifactsPerRound = 64;

}  // namespace resources
}  // namespace kopt::tools
