#pragma once
// Protocol revisions this server speaks, and the negotiation rule of the MCP lifecycle: echo a
// version we support, otherwise offer our latest (the client then decides whether to go on).
#include <string>
#include <vector>

namespace kopt::mcp {

// Newest first.
const std::vector<std::string>& supportedProtocolVersions();
const std::string& latestProtocolVersion();
bool isSupportedProtocolVersion(const std::string& version);
std::string negotiateProtocolVersion(const std::string& requested);
// JSON-RPC batches exist only in the 2025-03-26 revision (added there, removed in 2025-06-18).
bool protocolAllowsBatches(const std::string& negotiated);

}  // namespace kopt::mcp
