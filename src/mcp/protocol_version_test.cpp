#include "mcp/protocol_version.h"

#include <doctest/doctest.h>

using namespace kopt::mcp;

TEST_CASE("a supported version is echoed, anything else gets the latest") {
  for (const auto& v : supportedProtocolVersions()) CHECK(negotiateProtocolVersion(v) == v);
  CHECK(negotiateProtocolVersion("2024-11-05") == "2024-11-05");
  CHECK(negotiateProtocolVersion("2099-01-01") == "2025-11-25");
  CHECK(negotiateProtocolVersion("") == latestProtocolVersion());
  CHECK(latestProtocolVersion() == "2025-11-25");
}

TEST_CASE("batches only for 2025-03-26") {
  CHECK(protocolAllowsBatches("2025-03-26"));
  CHECK_FALSE(protocolAllowsBatches("2025-06-18"));
  CHECK_FALSE(protocolAllowsBatches("2025-11-25"));
  CHECK_FALSE(protocolAllowsBatches("2024-11-05"));
}
