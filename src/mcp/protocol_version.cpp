#include "mcp/protocol_version.h"

#include <algorithm>

namespace kopt::mcp {

const std::vector<std::string>& supportedProtocolVersions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

const std::string& latestProtocolVersion() { return supportedProtocolVersions().front(); }

bool isSupportedProtocolVersion(const std::string& version) {
  const auto& all = supportedProtocolVersions();
  return std::find(all.begin(), all.end(), version) != all.end();
}

std::string negotiateProtocolVersion(const std::string& requested) {
  return isSupportedProtocolVersion(requested) ? requested : latestProtocolVersion();
}

bool protocolAllowsBatches(const std::string& negotiated) { return negotiated == "2025-03-26"; }

}  // namespace kopt::mcp
