// The campaign tool adapters through the real registry (argument validation and outputSchema
// checks included) on the fake kernel: schemas are flat, refusals are isError texts that name the
// phase and the tool to call, confirm_target asks the user through elicitation when the client
// can, async calls are polled.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>

#include "campaign/engine_test_support.h"
#include "campaign/phase.h"
#include "mcp/registry.h"
#include "tools/catalog.h"

namespace kopt::tools {
namespace {

using json = nlohmann::json;

struct FakeContext : mcp::RequestContext {
  mcp::ClientInfo info;
  CancellationToken token;
  std::vector<double> progressSeen;
  std::optional<json> elicitationAnswer;  // what the "user" answers
  std::vector<json> requests;
  void progress(double p, std::optional<double>, std::string) override { progressSeen.push_back(p); }
  void log(mcp::LogLevel, const std::string&, const json&) override {}
  const CancellationToken& cancellation() const override { return token; }
  const mcp::ClientInfo& client() const override { return info; }
  std::optional<json> requestClient(const std::string& method, const json& params, std::chrono::milliseconds,
                                    std::string* error) override {
    requests.push_back(json{{"method", method}, {"params", params}});
    if (!elicitationAnswer && error) *error = "no answer";
    return elicitationAnswer;
  }
};

std::string text(const mcp::ToolResult& r) {
  std::string out;
  for (const auto& c : r.content) out += c.value("text", "") + "\n";
  return out;
}

struct Catalog {
  campaign::testing::FakeWorkspace ws;
  mcp::Registry registry;
  Catalog() {
    CatalogOptions o;
    o.workspaceRoot = ws.root;
    setenv("KOPT_TIPS_ROOT", (ws.root / "tips").c_str(), 1);
    registerCatalog(registry, o);
  }
  mcp::ToolResult call(const std::string& tool, const json& args, FakeContext& ctx) {
    const auto* spec = registry.findTool(tool);
    REQUIRE_MESSAGE(spec, tool);
    return registry.callTool(*spec, args, ctx);
  }
  mcp::ToolResult ok(const std::string& tool, const json& args, FakeContext& ctx) {
    auto r = call(tool, args, ctx);
    REQUIRE_MESSAGE(!r.isError, tool << ": " << text(r));
    REQUIRE(r.structuredContent);
    return r;
  }
};

// The tools whose schemas come from their described types (tools/typed_tool_spec.h).
std::set<std::string> campaignToolNames() {
  return {"define_target", "confirm_target", "prepare_environment", "read_tips", "run_baseline", "begin_round",
          "rebuild_kernel", "run_tests", "run_quick_bench", "validate_round", "accept_or_revert", "termination_check",
          "final_acceptance", "report", "campaign_status", "query_trend", "list_ineffective_directions",
          "read_best_summary", "query_tips", "append_tip", "poll_job"};
}

}  // namespace

TEST_CASE("campaign tools: every schema is flat, every name snake_case, annotations as documented") {
  Catalog c;
  const std::set<std::string> mine = campaignToolNames();
  std::set<std::string> seen;
  for (const auto& name : c.registry.toolNames()) {
    const auto* t = c.registry.findTool(name);
    CAPTURE(name);
    CHECK(name.size() <= 64);
    for (char ch : name) CHECK(((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'));
    if (!mine.count(name)) continue;
    seen.insert(name);
    CHECK(t->inputSchema["type"] == "object");
    CHECK(t->inputSchema.dump().find("$ref") == std::string::npos);
    for (const auto& [prop, schema] : t->inputSchema["properties"].items()) {
      CAPTURE(prop);
      CHECK(schema.contains("description"));
      const std::string type = schema["type"];
      if (type == "array") CHECK(schema["items"]["type"] == "string");
      else CHECK((type == "string" || type == "integer" || type == "number" || type == "boolean"));
      // Integers are bounded (at most to int): nothing wraps on the way into the engine.
      if (type == "integer") {
        CHECK(schema["minimum"].get<long long>() >= std::numeric_limits<int>::min());
        CHECK(schema["maximum"].get<long long>() <= std::numeric_limits<int>::max());
      }
    }
    REQUIRE(t->outputSchema);
    CHECK((*t->outputSchema)["type"] == "object");
    // A result's phase is one of the engine's phase names, said in the schema (not a free string).
    const json& props = (*t->outputSchema)["properties"];
    if (props.contains("phase")) {
      CHECK(props["phase"]["enum"].size() == campaign::allPhases().size());
      CHECK(props["phase"]["enum"][0] == "DEFINE_TARGET");
    }
  }
  CHECK(seen == mine);
  CHECK(c.registry.findTool("campaign_status")->annotations.readOnlyHint == true);
  CHECK(c.registry.findTool("query_trend")->annotations.readOnlyHint == true);
  CHECK(c.registry.findTool("accept_or_revert")->annotations.destructiveHint == true);
  CHECK(c.registry.findTool("parse_bench_csv"));
  CHECK(c.registry.findTool("device_info"));
}

TEST_CASE("campaign tools: the loop tool set keeps the loop's tools and drops the queries") {
  campaign::testing::FakeWorkspace ws;
  mcp::Registry registry;
  CatalogOptions o;
  o.workspaceRoot = ws.root;
  o.toolSet = CatalogOptions::ToolSet::Loop;
  registerCatalog(registry, o);
  const auto names = registry.toolNames();
  const std::set<std::string> have(names.begin(), names.end());
  for (const char* t : {"define_target", "run_baseline", "validate_round", "accept_or_revert", "report", "poll_job",
                        "campaign_status", "parse_bench_csv"}) {
    CHECK_MESSAGE(have.count(t), t);
  }
  for (const char* t : {"query_trend", "list_ineffective_directions", "read_best_summary", "query_tips", "append_tip",
                        "device_info"}) {
    CHECK_MESSAGE(!have.count(t), t);
  }
  CHECK(have.size() == 17);
}

TEST_CASE("campaign tools: an integer beyond int is refused with the field named, not wrapped") {
  Catalog c;
  FakeContext ctx;
  auto r = c.call("append_tip", {{"op", "gemm"}, {"backend", "cpu"}, {"gpu", "cpu"}, {"round", 2147483648LL},
                                 {"takeaway", "x"}}, ctx);
  CHECK(r.isError);
  CHECK(text(r).find("round") != std::string::npos);
  CHECK(text(r).find("-2147483648") == std::string::npos);
}

TEST_CASE("campaign tools: an oversized string is refused with its length, not echoed; every string is bounded") {
  Catalog c;
  FakeContext ctx;
  const std::string huge(10u << 20, 'a');
  auto r = c.call("campaign_status", {{"campaign_dir", huge}}, ctx);
  CHECK(r.isError);
  CHECK(text(r).find("campaign_dir") != std::string::npos);
  CHECK(text(r).find("at most 8192") != std::string::npos);
  CHECK(text(r).size() < 4096);
  // A long hypothesis never reaches the engine (nor the ledger).
  auto b = c.call("begin_round", {{"campaign_dir", "/nonexistent"}, {"statement", std::string(20000, 'x')},
                                  {"change", "x"}, {"expected_size_pct", 5}, {"rule11_bucket", "K1"}, {"files", {"a"}}},
                  ctx);
  CHECK(b.isError);
  CHECK(text(b).find("statement") != std::string::npos);
  CHECK(text(b).find("at most 8192") != std::string::npos);
  CHECK(text(b).size() < 4096);
  // The schemas say so, for every string and list of strings of every tool.
  for (const auto& tool : campaignToolNames()) {
    const auto* t = c.registry.findTool(tool);
    REQUIRE_MESSAGE(t, tool);
    for (const auto& [name, schema] : t->inputSchema["properties"].items()) {
      CAPTURE(tool);
      CAPTURE(name);
      if (schema.value("type", "") == "string") CHECK(schema.contains("maxLength"));
      if (schema.value("type", "") == "array") {
        CHECK(schema.contains("maxItems"));
        CHECK(schema["items"].contains("maxLength"));
      }
    }
  }
}

TEST_CASE("campaign tools: define_target's schema and tips_root fields reach the manifest") {
  Catalog c;
  FakeContext ctx;
  auto defined = c.ok("define_target",
                      {{"repo_path", "repo"}, {"manifest_path", "manifest.yaml"}, {"schema", "memory"},
                       {"primary_metric", "Forward GB/s"}, {"tips_root", "my-tips"}},
                      ctx);
  const std::string yaml = (*defined.structuredContent)["manifest_yaml"];
  CHECK(yaml.find("schema: memory") != std::string::npos);
  CHECK(yaml.find("tips_root: \"my-tips\"") != std::string::npos);
  auto bad = c.call("define_target", {{"repo_path", "repo"}, {"manifest_path", "manifest.yaml"}, {"schema", "csv"}}, ctx);
  CHECK(bad.isError);
  CHECK(text(bad).find("schema") != std::string::npos);
}

TEST_CASE("campaign tools: confirm_target asks the user through elicitation when the client can") {
  Catalog c;
  FakeContext ctx;
  std::vector<std::string> announced;
  std::mutex m;
  c.registry.addUpdateListener([&](const std::string& uri) {
    std::lock_guard<std::mutex> lock(m);
    announced.push_back(uri);
  });
  auto defined = c.ok("define_target", {{"repo_path", "repo"}, {"manifest_path", "manifest.yaml"}}, ctx);
  const std::string dir = (*defined.structuredContent)["campaign_dir"];
  // Subscribed clients hear that the campaign's manifest changed.
  const std::string name = (*defined.structuredContent)["campaign_name"];
  CAPTURE(announced.size());
  CHECK(std::find(announced.begin(), announced.end(), "kopt://campaign/" + name + "/manifest") != announced.end());
  // Without elicitation: confirm + confirmed_by are required.
  auto missing = c.call("confirm_target", {{"campaign_dir", dir}, {"confirm", true}}, ctx);
  CHECK(missing.isError);
  CHECK(text(missing).find("confirmed_by") != std::string::npos);
  // A client with elicitation: the user declines, then accepts.
  FakeContext human;
  human.info.name = "ide";
  human.info.capabilities = {{"elicitation", json::object()}};
  human.elicitationAnswer = json{{"action", "decline"}};
  auto declined = c.call("confirm_target", {{"campaign_dir", dir}, {"confirm", true}, {"confirmed_by", "agent"}}, human);
  CHECK(declined.isError);
  CHECK(text(declined).find("not_confirmed") != std::string::npos);
  REQUIRE(human.requests.size() == 1);
  CHECK(human.requests[0]["method"] == "elicitation/create");
  CHECK(human.requests[0]["params"]["message"].get<std::string>().find("fake_gemm") != std::string::npos);
  human.elicitationAnswer = json{{"action", "accept"}, {"content", {{"confirm", true}, {"name", "Ada"}}}};
  auto confirmed = c.ok("confirm_target", {{"campaign_dir", dir}}, human);
  CHECK((*confirmed.structuredContent)["confirmed_by"] == "elicitation:ide:Ada");
  CHECK((*confirmed.structuredContent)["phase"] == "PREPARE_ENVIRONMENT");
}

TEST_CASE("campaign tools: refusals are isError texts; async runs are polled to their result") {
  Catalog c;
  FakeContext ctx;
  auto defined = c.ok("define_target", {{"repo_path", "repo"}, {"manifest_path", "manifest.yaml"}}, ctx);
  const std::string dir = (*defined.structuredContent)["campaign_dir"];
  auto early = c.call("begin_round",
                      {{"campaign_dir", dir}, {"statement", "s"}, {"change", "c"}, {"expected_size_pct", 5},
                       {"rule11_bucket", "K1"}, {"files", {"kernel/config.ini"}}},
                      ctx);
  CHECK(early.isError);
  CHECK_FALSE(early.structuredContent);
  CHECK(text(early).find("begin_round refused (wrong_phase)") != std::string::npos);
  CHECK(text(early).find("Phase now: DEFINE_TARGET") != std::string::npos);
  CHECK(text(early).find("Call instead: confirm_target") != std::string::npos);
  auto badArg = c.call("begin_round", {{"campaign_dir", dir}, {"rule11_bucket", "K9"}}, ctx);
  CHECK(badArg.isError);
  c.ok("confirm_target", {{"campaign_dir", dir}, {"confirm", true}, {"confirmed_by", "tester"}}, ctx);
  c.ok("prepare_environment", {{"campaign_dir", dir}}, ctx);
  c.ok("read_tips", {{"campaign_dir", dir}}, ctx);
  auto started = c.ok("run_baseline", {{"campaign_dir", dir}, {"async", true}}, ctx);
  const std::string job = (*started.structuredContent)["job_id"];
  json polled;
  for (int i = 0; i < 120; ++i) {
    auto p = c.ok("poll_job", {{"job_id", job}, {"wait_seconds", 10}}, ctx);
    polled = *p.structuredContent;
    if (polled["state"] != "running") break;
  }
  REQUIRE(polled["state"] == "finished");
  CHECK(polled["result"]["phase"] == "ANALYZE");
  CHECK(polled["result"]["shapes"].size() == 4);
  auto status = c.ok("campaign_status", {{"campaign_dir", dir}}, ctx);
  CHECK((*status.structuredContent)["phase"] == "ANALYZE");
  CHECK((*status.structuredContent)["ledger_ok"] == true);
  // A restarted agent that lost its campaign_dir finds it.
  auto listed = c.ok("campaign_status", json::object(), ctx);
  REQUIRE((*listed.structuredContent)["campaigns"].size() == 1);
  CHECK((*listed.structuredContent)["campaigns"][0]["campaign_dir"] == dir);
  CHECK((*listed.structuredContent)["campaigns"][0]["phase"] == "ANALYZE");
  auto trend = c.ok("query_trend", {{"campaign_dir", dir}}, ctx);
  CHECK((*trend.structuredContent)["rows"].size() == 1);
  CHECK((*trend.structuredContent)["current_best_round"] == 1);
  auto best = c.ok("read_best_summary", {{"campaign_dir", dir}}, ctx);
  CHECK((*best.structuredContent)["round"] == 1);
  c.ok("append_tip", {{"campaign_dir", dir}, {"takeaway", "tiles of 64 are a good start"}}, ctx);
  auto tips = c.ok("query_tips", {{"campaign_dir", dir}, {"keyword", "tiles"}}, ctx);
  CHECK((*tips.structuredContent)["count"] == 1);
  auto none = c.call("poll_job", {{"job_id", "job-999"}}, ctx);
  CHECK(none.isError);
  // A synchronous long call reports progress that strictly increases.
  c.ok("begin_round",
       {{"campaign_dir", dir}, {"statement", "I expect more"}, {"change", "speed"}, {"expected_size_pct", 5},
        {"rule11_bucket", "K1"}, {"files", {"kernel/config.ini"}}},
       ctx);
  c.ws.setConfig("speed=140\n");
  ctx.progressSeen.clear();
  auto bench = c.ok("run_quick_bench", {{"campaign_dir", dir}, {"pairs", 2}}, ctx);
  CHECK((*bench.structuredContent)["pairs"] == 2);
  REQUIRE(ctx.progressSeen.size() > 2);
  for (std::size_t i = 1; i < ctx.progressSeen.size(); ++i) CHECK(ctx.progressSeen[i] > ctx.progressSeen[i - 1]);
}

}  // namespace kopt::tools
