// kopt call <tool> '<json-args>': runs one tool in-process through the same registry and argument
// validation as the server, and prints the CallToolResult as pretty JSON. For humans debugging a
// tool; progress and log messages go to stderr.
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "exec/orphans.h"
#include "mcp/json_rpc.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "tools/catalog.h"
#include "tools/conformance_fixtures.h"

namespace kopt::cli {

namespace {

const char* kCallUsage = R"(Usage: kopt call <tool> ['<json-args>'] [--workspace DIR] [--conformance-fixtures]
       kopt call --list [--conformance-fixtures]

Runs one tool in-process and prints its result as JSON on stdout.
Exit status: 0 success, 1 the tool reported an error (isError), 2 usage error or unknown tool.
)";

// A RequestContext for a terminal: progress and logs to stderr, no client to ask.
class TerminalContext : public mcp::RequestContext {
 public:
  void progress(double progress, std::optional<double> total, std::string message) override {
    std::cerr << "progress: " << progress;
    if (total) std::cerr << "/" << *total;
    if (!message.empty()) std::cerr << " " << message;
    std::cerr << "\n";
  }
  void log(mcp::LogLevel level, const std::string& logger, const mcp::json& data) override {
    std::cerr << mcp::logLevelName(level) << (logger.empty() ? "" : " [" + logger + "]") << ": "
              << (data.is_string() ? data.get<std::string>() : mcp::rpc::serialize(data)) << "\n";
  }
  const CancellationToken& cancellation() const override { return token_; }
  const mcp::ClientInfo& client() const override { return client_; }
  std::optional<mcp::json> requestClient(const std::string& method, const mcp::json&, std::chrono::milliseconds,
                                         std::string* error) override {
    if (error) *error = "kopt call has no MCP client to answer " + method;
    return std::nullopt;
  }
  CancellationToken token_;

 private:
  mcp::ClientInfo client_{"kopt call", "", mcp::json::object(), ""};
};

int usageError(const std::string& message) {
  std::cerr << "kopt call: " << message << "\n\n" << kCallUsage;
  return 2;
}

}  // namespace

int callCommand(const Args& args) {
  tools::CatalogOptions options;
  std::vector<std::string> positional;
  bool list = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << kCallUsage;
      return 0;
    } else if (args[i] == "--workspace") {
      if (i + 1 >= args.size()) return usageError("--workspace needs a directory");
      options.workspaceRoot = args[++i];
    } else if (args[i] == "--conformance-fixtures") {
      options.conformanceFixtures = true;
    } else if (args[i] == "--list") {
      list = true;
    } else {
      positional.push_back(args[i]);
    }
  }
  if (options.workspaceRoot.empty()) options.workspaceRoot = std::filesystem::current_path();
  // A `kopt call` runs builds and benches like a server does: the same clean-up before, and the
  // same mark on its children, so a call killed with -9 leaves nothing the next one misses.
  if (const std::string ended = exec::takeOverFromDeadServers("kopt call"); !ended.empty()) std::cerr << ended << "\n";
  mcp::Registry registry;
  try {
    tools::registerCatalog(registry, options);
    if (options.conformanceFixtures && !registry.findTool("test_simple_text")) tools::registerConformanceFixtures(registry);
  } catch (const std::exception& e) {
    std::cerr << "kopt call: cannot build the tool catalogue: " << e.what() << "\n";
    return 1;
  }
  if (list) {
    for (const auto& name : registry.toolNames()) std::cout << name << "\n";
    return 0;
  }
  if (positional.empty() || positional.size() > 2) return usageError("expected a tool name and optional JSON arguments");
  const mcp::ToolSpec* tool = registry.findTool(positional[0]);
  if (!tool) {
    std::string known;
    for (const auto& name : registry.toolNames()) known += (known.empty() ? "" : ", ") + name;
    return usageError("unknown tool '" + positional[0] + "'" + (known.empty() ? " (no tools registered)" : "; known tools: " + known));
  }
  mcp::json arguments = mcp::json::object();
  if (positional.size() == 2) {
    mcp::rpc::Error error;
    auto parsed = mcp::rpc::parseJson(positional[1], &error);
    if (!parsed) return usageError("arguments are not valid JSON: " + error.message);
    if (!parsed->is_object()) return usageError("arguments must be a JSON object, e.g. '{\"name\": \"value\"}'");
    arguments = std::move(*parsed);
  }

  // Ctrl-C cancels the tool the way notifications/cancelled would, so it can clean up.
  TerminalContext ctx;
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread canceller([&] {
    int received = 0;
    sigwait(&signals, &received);
    ctx.token_.cancel();
  });
  canceller.detach();  // it only touches the token, which outlives it until exit

  mcp::ToolResult result = registry.callTool(*tool, arguments, ctx);
  std::cout << mcp::Registry::toJson(result).dump(2, ' ', false, mcp::json::error_handler_t::replace) << "\n";
  return result.isError ? 1 : 0;
}

}  // namespace kopt::cli
