#pragma once
// The tools, resources and prompts the official MCP conformance suite (0.1.16 server scenarios)
// calls by name, plus a few test-only tools the e2e tests need (a long cancellable call, a
// structured result with an outputSchema, an echo for the round-trip benchmark). Registered only
// by `kopt serve --conformance-fixtures`; never part of the real catalogue.
#include "mcp/tool_api.h"

namespace kopt::tools {

void registerConformanceFixtures(mcp::Registrar& registrar);

}  // namespace kopt::tools
