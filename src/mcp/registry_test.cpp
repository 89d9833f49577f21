#include "mcp/registry.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace kopt::mcp;

namespace {

ToolSpec tool(std::string name) {
  ToolSpec t;
  t.name = std::move(name);
  t.description = "test tool";
  t.inputSchema = json::parse(R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false})");
  t.handler = [](const json& args, RequestContext&) { return ToolResult::text("n=" + std::to_string(args["n"].get<int>())); };
  return t;
}

class NullContext : public RequestContext {
 public:
  void progress(double, std::optional<double>, std::string) override {}
  void log(LogLevel, const std::string&, const json&) override {}
  const kopt::CancellationToken& cancellation() const override { return token; }
  const ClientInfo& client() const override { return info; }
  std::optional<json> requestClient(const std::string&, const json&, std::chrono::milliseconds, std::string*) override {
    return std::nullopt;
  }
  kopt::CancellationToken token;
  ClientInfo info;
};

json resultOf(const MethodResult& outcome) {
  REQUIRE(std::holds_alternative<json>(outcome));
  return std::get<json>(outcome);
}

rpc::Error errorOf(const MethodResult& outcome) {
  REQUIRE(std::holds_alternative<rpc::Error>(outcome));
  return std::get<rpc::Error>(outcome);
}

}  // namespace

TEST_CASE("tool names must be portable snake_case and unique") {
  Registry r;
  CHECK_NOTHROW(r.addTool(tool("run_quick_bench")));
  CHECK_THROWS_AS(r.addTool(tool("run_quick_bench")), std::invalid_argument);
  CHECK_THROWS_AS(r.addTool(tool("Bad-Name")), std::invalid_argument);
  CHECK_THROWS_AS(r.addTool(tool("dotted.name")), std::invalid_argument);
  CHECK_THROWS_AS(r.addTool(tool(std::string(65, 'a'))), std::invalid_argument);
  CHECK_NOTHROW(r.addTool(tool(std::string(64, 'a'))));
  ToolSpec noSchema = tool("no_schema");
  noSchema.inputSchema = json();
  CHECK_THROWS_AS(r.addTool(noSchema), std::invalid_argument);
  ToolSpec noDescription = tool("no_description");
  noDescription.description.clear();
  CHECK_THROWS_AS(r.addTool(noDescription), std::invalid_argument);
}

TEST_CASE("pagination: opaque cursors, no nextCursor on the last page, bad cursor is -32602") {
  Registry r(2);
  for (const char* name : {"a1", "a2", "a3", "a4", "a5"}) r.addTool(tool(name));
  json page1 = resultOf(r.listTools(json::object()));
  CHECK(page1["tools"].size() == 2);
  REQUIRE(page1.contains("nextCursor"));
  json page2 = resultOf(r.listTools(json{{"cursor", page1["nextCursor"]}}));
  CHECK(page2["tools"][0]["name"] == "a3");
  json page3 = resultOf(r.listTools(json{{"cursor", page2["nextCursor"]}}));
  CHECK(page3["tools"].size() == 1);
  CHECK_FALSE(page3.contains("nextCursor"));

  CHECK(errorOf(r.listTools(json{{"cursor", "garbage"}})).code == -32602);
  CHECK(errorOf(r.listTools(json{{"cursor", ""}})).code == -32602);
  CHECK(errorOf(r.listTools(json{{"cursor", 5}})).code == -32602);
  // A cursor of another list does not page this one.
  Registry prompts(1);
  for (const char* name : {"p1", "p2"}) {
    PromptSpec p;
    p.name = name;
    p.description = "d";
    p.get = [](const json&) { return std::vector<PromptMessage>{}; };
    prompts.addPrompt(p);
  }
  json promptPage = resultOf(prompts.listPrompts(json::object()));
  CHECK(errorOf(r.listTools(json{{"cursor", promptPage["nextCursor"]}})).code == -32602);
}

TEST_CASE("one page by default") {
  Registry r;
  for (int i = 0; i < 50; ++i) r.addTool(tool("t" + std::to_string(i)));
  json page = resultOf(r.listTools(json::object()));
  CHECK(page["tools"].size() == 50);
  CHECK_FALSE(page.contains("nextCursor"));
}

TEST_CASE("callTool validates arguments, catches exceptions and checks the outputSchema") {
  Registry r;
  r.addTool(tool("count"));
  ToolSpec throws = tool("throws");
  throws.handler = [](const json&, RequestContext&) -> ToolResult { throw std::runtime_error("boom"); };
  r.addTool(throws);
  ToolSpec structured = tool("structured");
  structured.outputSchema = json::parse(R"({"type":"object","properties":{"v":{"type":"integer"}},"required":["v"]})");
  structured.handler = [](const json& args, RequestContext&) {
    return ToolResult::structured(json{{"v", args["n"].get<int>() == 0 ? json("zero") : json(args["n"])}});
  };
  r.addTool(structured);
  NullContext ctx;

  CHECK(r.callTool(*r.findTool("count"), json{{"n", 2}}, ctx).content[0]["text"] == "n=2");
  ToolResult bad = r.callTool(*r.findTool("count"), json{{"n", "2"}}, ctx);
  CHECK(bad.isError);
  CHECK(bad.content[0]["text"].get<std::string>().find("'n'") != std::string::npos);
  ToolResult extra = r.callTool(*r.findTool("count"), json{{"n", 2}, {"m", 1}}, ctx);
  CHECK(extra.isError);
  CHECK(extra.content[0]["text"].get<std::string>().find("'m'") != std::string::npos);

  ToolResult boom = r.callTool(*r.findTool("throws"), json{{"n", 1}}, ctx);
  CHECK(boom.isError);
  CHECK(boom.content[0]["text"].get<std::string>().find("boom") != std::string::npos);

  ToolResult ok = r.callTool(*r.findTool("structured"), json{{"n", 3}}, ctx);
  CHECK_FALSE(ok.isError);
  json wire = Registry::toJson(ok);
  CHECK(wire["structuredContent"]["v"] == 3);
  CHECK(json::parse(wire["content"][0]["text"].get<std::string>()) == wire["structuredContent"]);
  CHECK_FALSE(wire.contains("isError"));
  CHECK(r.callTool(*r.findTool("structured"), json{{"n", 0}}, ctx).isError);  // breaks its own schema
}

TEST_CASE("structuredContent without content is mirrored as text") {
  ToolResult result;
  result.structuredContent = json{{"a", 1}};
  json wire = Registry::toJson(result);
  REQUIRE(wire["content"].size() == 1);
  CHECK(wire["content"][0]["type"] == "text");
  CHECK(json::parse(wire["content"][0]["text"].get<std::string>()) == json{{"a", 1}});
}

TEST_CASE("resources: static, listed, templates, not found") {
  Registry r;
  ResourceSpec fixed;
  fixed.uri = "kopt://a";
  fixed.name = "a";
  fixed.mimeType = "text/plain";
  fixed.read = [] { return std::vector<ResourceContents>{{"kopt://a", "text/plain", std::string("A"), std::nullopt}}; };
  r.addResource(fixed);
  r.addResourceLister([] {
    ResourceSpec listed;
    listed.uri = "kopt://listed";
    listed.name = "listed";
    listed.read = [] { return std::vector<ResourceContents>{{"kopt://listed", "", std::nullopt, std::string("AAEC")}}; };
    return std::vector<ResourceSpec>{listed};
  });
  ResourceTemplateSpec tmpl;
  tmpl.uriTemplate = "kopt://campaign/{name}/round/{n}";
  tmpl.name = "round";
  tmpl.read = [](const std::string& uri, const std::vector<std::pair<std::string, std::string>>& vars)
      -> std::optional<std::vector<ResourceContents>> {
    if (vars[0].second == "missing") return std::nullopt;
    return std::vector<ResourceContents>{{uri, "text/plain", vars[0].second + "/" + vars[1].second, std::nullopt}};
  };
  r.addResourceTemplate(tmpl);

  json list = resultOf(r.listResources(json::object()));
  CHECK(list["resources"].size() == 2);
  CHECK(resultOf(r.readResource(json{{"uri", "kopt://a"}}))["contents"][0]["text"] == "A");
  CHECK(resultOf(r.readResource(json{{"uri", "kopt://listed"}}))["contents"][0]["blob"] == "AAEC");
  CHECK(resultOf(r.readResource(json{{"uri", "kopt://campaign/gemm/round/3"}}))["contents"][0]["text"] == "gemm/3");
  auto missing = errorOf(r.readResource(json{{"uri", "kopt://campaign/missing/round/3"}}));
  CHECK(missing.code == -32002);
  CHECK(missing.data->at("uri") == "kopt://campaign/missing/round/3");
  CHECK(errorOf(r.readResource(json{{"uri", "kopt://nothing"}})).code == -32002);
  CHECK(errorOf(r.readResource(json::object())).code == -32602);
  CHECK(resultOf(r.listResourceTemplates(json::object()))["resourceTemplates"][0]["uriTemplate"] == tmpl.uriTemplate);
}

TEST_CASE("uri templates match level-1 variables") {
  auto vars = matchUriTemplate("test://template/{id}/data", "test://template/123/data");
  REQUIRE(vars);
  CHECK((*vars)[0] == std::make_pair(std::string("id"), std::string("123")));
  CHECK_FALSE(matchUriTemplate("test://template/{id}/data", "test://template//data"));
  CHECK_FALSE(matchUriTemplate("test://template/{id}/data", "test://template/1/2/data"));
  CHECK_FALSE(matchUriTemplate("test://template/{id}/data", "test://template/1/datax"));
  CHECK(matchUriTemplate("kopt://{a}.{b}", "kopt://x.y"));
}

TEST_CASE("prompts: required arguments, unknown prompt, completion") {
  Registry r;
  PromptSpec p;
  p.name = "greet";
  p.description = "greets";
  p.arguments = {{"who", "whom to greet", true}};
  p.get = [](const json& args) {
    return std::vector<PromptMessage>{{"user", textContent("hi " + args["who"].get<std::string>())}};
  };
  p.complete = [](const std::string& arg, const std::string& prefix) {
    std::vector<std::string> out;
    for (int i = 0; i < 150; ++i) {
      std::string v = arg + std::to_string(i);
      if (v.rfind(prefix, 0) == 0) out.push_back(v);
    }
    return out;
  };
  r.addPrompt(p);
  CHECK(resultOf(r.getPrompt(json{{"name", "greet"}, {"arguments", {{"who", "x"}}}}))["messages"][0]["content"]["text"] == "hi x");
  auto missing = errorOf(r.getPrompt(json{{"name", "greet"}}));
  CHECK(missing.code == -32602);
  CHECK(missing.message.find("who") != std::string::npos);
  CHECK(errorOf(r.getPrompt(json{{"name", "nope"}})).code == -32602);
  CHECK(errorOf(r.getPrompt(json{{"name", "greet"}, {"arguments", {{"who", 1}}}})).code == -32602);

  json all = resultOf(r.complete(json::parse(R"({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"who"}})")));
  CHECK(all["completion"]["values"].size() == 100);
  CHECK(all["completion"]["total"] == 150);
  CHECK(all["completion"]["hasMore"] == true);
  json some = resultOf(r.complete(json::parse(R"({"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"who14"}})")));
  CHECK(some["completion"]["values"].size() == 11);
  CHECK(errorOf(r.complete(json::parse(R"({"ref":{"type":"ref/prompt","name":"x"},"argument":{"name":"a","value":""}})"))).code == -32602);
  CHECK(errorOf(r.complete(json::parse(R"({"ref":{"type":"ref/other"},"argument":{"name":"a","value":""}})"))).code == -32602);
  CHECK(errorOf(r.complete(json::object())).code == -32602);
}

TEST_CASE("resource update listeners") {
  Registry r;
  std::vector<std::string> seen;
  auto handle = r.addUpdateListener([&](const std::string& uri) { seen.push_back(uri); });
  r.notifyResourceUpdated("kopt://x");
  r.removeUpdateListener(handle);
  r.notifyResourceUpdated("kopt://y");
  CHECK(seen == std::vector<std::string>{"kopt://x"});
}
