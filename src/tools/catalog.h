#pragma once
// Everything kopt serves: campaign tools, queries, resources and prompts, assembled from the
// one-adapter-per-tool files in this folder. `kopt serve` and `kopt call` both start here.
#include <filesystem>

#include "mcp/tool_api.h"

namespace kopt::tools {

struct CatalogOptions {
  // Where campaigns live when a tool argument gives a relative path (default: the server's cwd).
  std::filesystem::path workspaceRoot;
  // Register the fixture tools/resources/prompts the MCP conformance suite calls.
  bool conformanceFixtures = false;
  // Loop: only what the loop calls (its 14 steps, poll_job, campaign_status, parse_bench_csv):
  // about a fifth less of tools/list for an agent's context. All: the queries too (the default).
  enum class ToolSet { All, Loop };
  ToolSet toolSet = ToolSet::All;
  // The server outlives each call (`kopt serve`): work for a later call may start early
  // (EngineOptions::startWorkersAhead).
  bool longLived = false;
};

void registerCatalog(mcp::Registrar& registrar, const CatalogOptions& options);

// The folder holding the quick-harness template (harness/python/quick_test_bench.py): $KOPT_TOOLS_DIR, else
// share/kopt/harness/python of an install, else the source tree's harness/python beside a build
// tree. Empty when none is found.
std::filesystem::path findHarnessTemplateDir();

}  // namespace kopt::tools
