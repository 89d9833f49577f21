#include "tools/resources_notify.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "tools/resources_scan.h"
#include "tools/resources_test_support.h"

using namespace kopt::tools;
using kopt::mcp::json;
using kopt::tools::testing::TempWorkspace;

namespace {

struct RecordingRegistrar : kopt::mcp::Registrar {
  std::vector<std::string> updated;
  void addTool(kopt::mcp::ToolSpec) override {}
  void addResource(kopt::mcp::ResourceSpec) override {}
  void addResourceLister(kopt::mcp::ResourceLister) override {}
  void addResourceTemplate(kopt::mcp::ResourceTemplateSpec) override {}
  void addPrompt(kopt::mcp::PromptSpec) override {}
  void notifyResourceUpdated(const std::string& uri) override { updated.push_back(uri); }
  bool saw(const std::string& uri) const { return std::find(updated.begin(), updated.end(), uri) != updated.end(); }
};

struct NullContext : kopt::mcp::RequestContext {
  int progressCalls = 0;
  kopt::CancellationToken token;
  kopt::mcp::ClientInfo info;
  void progress(double, std::optional<double>, std::string) override { ++progressCalls; }
  void log(kopt::mcp::LogLevel, const std::string&, const json&) override {}
  const kopt::CancellationToken& cancellation() const override { return token; }
  const kopt::mcp::ClientInfo& client() const override { return info; }
  std::optional<json> requestClient(const std::string&, const json&, std::chrono::milliseconds, std::string*) override {
    return std::nullopt;
  }
};

kopt::mcp::ToolSpec tool(std::string name, std::function<kopt::mcp::ToolResult(const json&, kopt::mcp::RequestContext&)> handler) {
  kopt::mcp::ToolSpec spec;
  spec.name = std::move(name);
  spec.description = "test";
  spec.handler = std::move(handler);
  return spec;
}

}  // namespace

TEST_CASE("a successful accept_or_revert announces the trend, log, state and the round's records") {
  TempWorkspace ws;
  auto dir = ws.campaign("c1");
  RecordingRegistrar registrar;
  auto notifier = std::make_shared<ResourceNotifier>(registrar, ws.root);
  auto wrapped = notifier->wrap(tool("accept_or_revert", [](const json&, kopt::mcp::RequestContext&) {
    return kopt::mcp::ToolResult::structured(json{{"round", 3}, {"status", "ACCEPTED"}});
  }));
  NullContext ctx;
  wrapped.handler(json{{"campaign_dir", "repo/.kopt/campaigns/c1"}}, ctx);
  for (const char* uri : {"kopt://campaign/c1", "kopt://campaign/c1/trend", "kopt://campaign/c1/log",
                          "kopt://campaign/c1/state", "kopt://campaign/c1/round/3/summary", "kopt://campaign/c1/round/3/decision"})
    CHECK_MESSAGE(registrar.saw(uri), uri);
}

TEST_CASE("errors announce nothing; read-only tools are not wrapped") {
  TempWorkspace ws;
  RecordingRegistrar registrar;
  auto notifier = std::make_shared<ResourceNotifier>(registrar, ws.root);
  auto failing = notifier->wrap(tool("validate_round", [](const json&, kopt::mcp::RequestContext&) {
    return kopt::mcp::ToolResult::error("refused", "campaign_dir");
  }));
  NullContext ctx;
  failing.handler(json{{"campaign_dir", "/x/c1"}}, ctx);
  CHECK(registrar.updated.empty());
  bool called = false;
  auto query = tool("campaign_status", [&](const json&, kopt::mcp::RequestContext&) {
    called = true;
    return kopt::mcp::ToolResult::text("ok");
  });
  auto same = notifier->wrap(query);
  same.handler(json::object(), ctx);
  CHECK(called);
  CHECK(registrar.updated.empty());
}

TEST_CASE("progress during a bench announces benchmark.csv of the open round, throttled") {
  TempWorkspace ws;
  auto dir = ws.campaign("c1");
  TempWorkspace::write(dir / "state.json", "{\"phase\": \"OPTIMIZE\", \"open_round\": 4}");
  RecordingRegistrar registrar;
  auto notifier = std::make_shared<ResourceNotifier>(registrar, ws.root);
  notifier->progressInterval = std::chrono::hours(1);  // only the first progress announces
  auto bench = notifier->wrap(tool("run_quick_bench", [](const json&, kopt::mcp::RequestContext& ctx) {
    ctx.progress(1, 10, "pair 1");
    ctx.progress(2, 10, "pair 2");
    return kopt::mcp::ToolResult::structured(json{{"round", 4}});
  }));
  NullContext ctx;
  bench.handler(json{{"campaign_dir", dir.string()}}, ctx);
  CHECK(ctx.progressCalls == 2);  // forwarded to the client untouched
  auto csv = "kopt://campaign/c1/round/4/artifacts/benchmark.csv";
  // once from progress (the second was throttled), once after the call
  CHECK(std::count(registrar.updated.begin(), registrar.updated.end(), csv) == 2);
}

TEST_CASE("async calls are announced when poll_job sees them finish; define_target remembers its directory") {
  TempWorkspace ws;
  TempWorkspace elsewhere;
  RecordingRegistrar registrar;
  auto notifier = std::make_shared<ResourceNotifier>(registrar, ws.root);
  NullContext ctx;
  auto define = notifier->wrap(tool("define_target", [&](const json&, kopt::mcp::RequestContext&) {
    TempWorkspace::write(elsewhere.root / "c9" / "manifest.yaml", "x: 1\n");
    return kopt::mcp::ToolResult::structured(
        json{{"campaign_name", "c9"}, {"campaign_dir", (elsewhere.root / "c9").string()}});
  }));
  define.handler(json{{"repo_path", "r"}}, ctx);
  CHECK(registrar.saw("kopt://campaigns"));
  CHECK(registrar.saw("kopt://campaign/c9/manifest"));
  CHECK(resources::findCampaign(ws.root, "c9"));
  resources::forgetRememberedCampaignDirs();

  registrar.updated.clear();
  auto validate = notifier->wrap(tool("validate_round", [](const json&, kopt::mcp::RequestContext&) {
    return kopt::mcp::ToolResult::structured(json{{"job_id", "j1"}, {"job_state", "running"}});
  }));
  validate.handler(json{{"campaign_dir", "/somewhere/c9"}}, ctx);
  CHECK(registrar.updated.empty());
  auto poll = notifier->wrap(tool("poll_job", [](const json& args, kopt::mcp::RequestContext&) {
    return kopt::mcp::ToolResult::structured(
        json{{"job_id", args["job_id"]}, {"state", "finished"}, {"tool", "validate_round"}, {"result", {{"round", 5}}}});
  }));
  poll.handler(json{{"job_id", "j1"}}, ctx);
  CHECK(registrar.saw("kopt://campaign/c9/round/5/artifacts/benchmark.csv"));
  registrar.updated.clear();
  poll.handler(json{{"job_id", "j1"}}, ctx);  // already announced
  CHECK(registrar.updated.empty());
}
