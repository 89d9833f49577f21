#include "tools/conformance_fixtures.h"

#include <atomic>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kopt::tools {

using mcp::json;
using mcp::ToolResult;
using mcp::ToolSpec;

namespace {

// A 1x1 red PNG and a 1-channel 8-sample silent WAV, generated once and pasted here.
const char* kPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
const char* kWav = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const json kNoArgs = json{{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};

// Sleeps in small slices so a cancelled call stops within a few milliseconds; false if cancelled.
bool pause(mcp::RequestContext& ctx, std::chrono::milliseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
    if (ctx.cancellation().cancelled()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(end - std::chrono::steady_clock::now(),
                                                                             std::chrono::milliseconds(5)));
  }
  return !ctx.cancellation().cancelled();
}

ToolSpec simple(std::string name, std::string description, std::function<ToolResult()> result) {
  ToolSpec t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.inputSchema = kNoArgs;
  t.annotations.readOnlyHint = true;
  t.handler = [result = std::move(result)](const json&, mcp::RequestContext&) { return result(); };
  return t;
}

// Counts long-running calls that saw their cancellation, so a test can prove the server stopped
// the work (not just stopped answering) without sleeping.
struct CancellationLedger {
  std::mutex mutex;
  std::condition_variable cv;
  int cancelled = 0;
};

CancellationLedger& ledger() {
  static CancellationLedger instance;
  return instance;
}

void addContentTools(mcp::Registrar& r) {
  r.addTool(simple("test_simple_text", "Returns a fixed text block (conformance: tools-call-simple-text)",
                   [] { return ToolResult::text("This is a simple text response for testing."); }));
  r.addTool(simple("test_image_content", "Returns a 1x1 PNG image block (conformance: tools-call-image)", [] {
    ToolResult res;
    res.content.push_back(mcp::imageContent(kPng, "image/png"));
    return res;
  }));
  r.addTool(simple("test_audio_content", "Returns a tiny WAV audio block (conformance: tools-call-audio)", [] {
    ToolResult res;
    res.content.push_back(mcp::audioContent(kWav, "audio/wav"));
    return res;
  }));
  r.addTool(simple("test_embedded_resource", "Returns an embedded text resource (conformance: tools-call-embedded-resource)", [] {
    ToolResult res;
    res.content.push_back(mcp::embeddedTextResource("test://embedded-resource", "text/plain",
                                                    "This is an embedded resource content."));
    return res;
  }));
  r.addTool(simple("test_multiple_content_types", "Returns text, image and resource blocks (conformance: tools-call-mixed-content)", [] {
    ToolResult res;
    res.content.push_back(mcp::textContent("Multiple content types test:"));
    res.content.push_back(mcp::imageContent(kPng, "image/png"));
    res.content.push_back(mcp::embeddedTextResource("test://mixed-content-resource", "application/json",
                                                    R"({"test":"data","value":123})"));
    return res;
  }));
  r.addTool(simple("test_error_handling", "Always fails with an isError result (conformance: tools-call-error)", [] {
    return ToolResult::error("This tool intentionally returns an error for testing");
  }));
}

void addStreamingTools(mcp::Registrar& r) {
  ToolSpec logging = simple("test_tool_with_logging", "Sends three info log messages while running (conformance: tools-call-with-logging)", nullptr);
  logging.handler = [](const json&, mcp::RequestContext& ctx) {
    ctx.log(mcp::LogLevel::Info, "conformance", "Tool execution started");
    pause(ctx, std::chrono::milliseconds(50));
    ctx.log(mcp::LogLevel::Info, "conformance", "Tool processing data");
    pause(ctx, std::chrono::milliseconds(50));
    ctx.log(mcp::LogLevel::Info, "conformance", "Tool execution completed");
    return ToolResult::text("Tool with logging executed successfully");
  };
  r.addTool(std::move(logging));

  ToolSpec progress = simple("test_tool_with_progress", "Reports progress 0, 50, 100 of 100 (conformance: tools-call-with-progress)", nullptr);
  progress.handler = [](const json&, mcp::RequestContext& ctx) {
    ctx.progress(0, 100);
    pause(ctx, std::chrono::milliseconds(50));
    ctx.progress(50, 100);
    pause(ctx, std::chrono::milliseconds(50));
    ctx.progress(100, 100);
    return ToolResult::text("Tool with progress executed successfully");
  };
  r.addTool(std::move(progress));

  // Test-only: a long call that honours cancellation (e2e cancel tests) and reports progress.
  ToolSpec slow;
  slow.name = "test_long_running";
  slow.description = "Test fixture: runs for `seconds` (default 30) in `steps` steps, reporting progress; stops when cancelled";
  slow.inputSchema = json{{"type", "object"},
                          {"properties",
                           {{"seconds", {{"type", "number"}, {"minimum", 0}, {"maximum", 600}, {"description", "how long to run"}}},
                            {"steps", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}, {"description", "progress steps"}}}}},
                          {"additionalProperties", false}};
  slow.annotations.readOnlyHint = true;
  slow.handler = [](const json& args, mcp::RequestContext& ctx) {
    const double seconds = args.value("seconds", 30.0);
    const int steps = args.value("steps", 10);
    const auto step = std::chrono::milliseconds(static_cast<long>(seconds * 1000 / steps));
    for (int i = 1; i <= steps; ++i) {
      if (!pause(ctx, step)) {
        std::lock_guard<std::mutex> lock(ledger().mutex);
        ++ledger().cancelled;
        ledger().cv.notify_all();
        std::fprintf(stderr, "test_long_running: cancelled at step %d of %d\n", i, steps);
        return ToolResult::error("cancelled");
      }
      ctx.progress(i, steps, "step " + std::to_string(i));
    }
    return ToolResult::text("finished " + std::to_string(steps) + " steps");
  };
  r.addTool(std::move(slow));

  ToolSpec count;
  count.name = "test_cancelled_calls";
  count.description = "Test fixture: waits (up to 10 s) until at least `at_least` test_long_running calls saw their "
                      "cancellation, then returns the count";
  count.inputSchema = json{{"type", "object"},
                           {"properties", {{"at_least", {{"type", "integer"}, {"minimum", 0}}}}},
                           {"additionalProperties", false}};
  count.outputSchema = json{{"type", "object"}, {"properties", {{"cancelled", {{"type", "integer"}}}}}, {"required", {"cancelled"}}};
  count.annotations.readOnlyHint = true;
  count.handler = [](const json& args, mcp::RequestContext&) {
    const int atLeast = args.value("at_least", 0);
    std::unique_lock<std::mutex> lock(ledger().mutex);
    ledger().cv.wait_for(lock, std::chrono::seconds(10), [&] { return ledger().cancelled >= atLeast; });
    return ToolResult::structured(json{{"cancelled", ledger().cancelled}});
  };
  r.addTool(std::move(count));
}

void addClientRequestTools(mcp::Registrar& r) {
  ToolSpec sampling;
  sampling.name = "test_sampling";
  sampling.description = "Asks the client's LLM via sampling/createMessage (conformance: tools-call-sampling)";
  sampling.inputSchema = json{{"type", "object"},
                              {"properties", {{"prompt", {{"type", "string"}, {"description", "The prompt to send to the LLM"}}}}},
                              {"required", {"prompt"}}};
  sampling.handler = [](const json& args, mcp::RequestContext& ctx) {
    json params{{"messages", {{{"role", "user"}, {"content", {{"type", "text"}, {"text", args["prompt"]}}}}}},
                {"maxTokens", 100}};
    std::string error;
    auto result = ctx.requestClient("sampling/createMessage", params, std::chrono::seconds(30), &error);
    if (!result) return ToolResult::error("sampling failed: " + error);
    std::string text = result->contains("content") ? (*result)["content"].value("text", "") : "";
    return ToolResult::text("LLM response: " + text);
  };
  r.addTool(std::move(sampling));

  ToolSpec elicitation;
  elicitation.name = "test_elicitation";
  elicitation.description = "Asks the user for input via elicitation/create (conformance: tools-call-elicitation)";
  elicitation.inputSchema = json{{"type", "object"},
                                 {"properties", {{"message", {{"type", "string"}, {"description", "The message to show the user"}}}}},
                                 {"required", {"message"}}};
  elicitation.handler = [](const json& args, mcp::RequestContext& ctx) {
    json params{{"message", args["message"]},
                {"requestedSchema",
                 {{"type", "object"},
                  {"properties",
                   {{"username", {{"type", "string"}, {"description", "User's response"}}},
                    {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                  {"required", {"username", "email"}}}}};
    std::string error;
    auto result = ctx.requestClient("elicitation/create", params, std::chrono::seconds(30), &error);
    if (!result) return ToolResult::error("elicitation failed: " + error);
    return ToolResult::text("User response: action=" + result->value("action", "") +
                            ", content=" + result->value("content", json::object()).dump());
  };
  r.addTool(std::move(elicitation));

  auto elicit = [](json schema) {
    return [schema = std::move(schema)](const json&, mcp::RequestContext& ctx) {
      std::string error;
      auto result = ctx.requestClient("elicitation/create",
                                      json{{"message", "Please review and update the form fields"}, {"requestedSchema", schema}},
                                      std::chrono::seconds(30), &error);
      if (!result) return ToolResult::error("elicitation failed: " + error);
      return ToolResult::text("Elicitation completed: action=" + result->value("action", "") +
                              ", content=" + result->value("content", json::object()).dump());
    };
  };
  ToolSpec defaults = simple("test_elicitation_sep1034_defaults",
                             "Elicitation with defaults for every primitive type (conformance: elicitation-sep1034-defaults)", nullptr);
  defaults.annotations.readOnlyHint.reset();
  defaults.handler = elicit(json{{"type", "object"},
                                 {"properties",
                                  {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
                                   {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
                                   {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
                                   {"status", {{"type", "string"}, {"description", "User status"},
                                               {"enum", {"active", "inactive", "pending"}}, {"default", "active"}}},
                                   {"verified", {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}}}});
  r.addTool(std::move(defaults));

  ToolSpec enums = simple("test_elicitation_sep1330_enums",
                          "Elicitation with the five enum schema forms (conformance: elicitation-sep1330-enums)", nullptr);
  enums.annotations.readOnlyHint.reset();
  enums.handler = elicit(json{
      {"type", "object"},
      {"properties",
       {{"untitledSingle", {{"type", "string"}, {"description", "Untitled single-select"}, {"enum", {"option1", "option2", "option3"}}}},
        {"titledSingle", {{"type", "string"}, {"description", "Titled single-select"},
                          {"oneOf", {{{"const", "value1"}, {"title", "First Option"}},
                                     {{"const", "value2"}, {"title", "Second Option"}},
                                     {{"const", "value3"}, {"title", "Third Option"}}}}}},
        {"legacyEnum", {{"type", "string"}, {"description", "Legacy titled enum"}, {"enum", {"opt1", "opt2", "opt3"}},
                        {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
        {"untitledMulti", {{"type", "array"}, {"description", "Untitled multi-select"},
                           {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
        {"titledMulti", {{"type", "array"}, {"description", "Titled multi-select"},
                         {"items", {{"anyOf", {{{"const", "value1"}, {"title", "First Choice"}},
                                               {{"const", "value2"}, {"title", "Second Choice"}},
                                               {{"const", "value3"}, {"title", "Third Choice"}}}}}}}}}}});
  r.addTool(std::move(enums));
}

void addSchemaTools(mcp::Registrar& r) {
  ToolSpec schema;
  schema.name = "json_schema_2020_12_tool";
  schema.description = "Tool with JSON Schema 2020-12 features (conformance: json-schema-2020-12)";
  schema.inputSchema = json{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"type", "object"},
      {"$defs", {{"address", {{"type", "object"}, {"properties", {{"street", {{"type", "string"}}}, {"city", {{"type", "string"}}}}}}}}},
      {"properties", {{"name", {{"type", "string"}}}, {"address", {{"$ref", "#/$defs/address"}}}}},
      {"additionalProperties", false}};
  schema.handler = [](const json& args, mcp::RequestContext&) { return ToolResult::text("received " + args.dump()); };
  r.addTool(std::move(schema));

  // Test-only: a result with structuredContent that the SDK checks against the outputSchema.
  ToolSpec structured;
  structured.name = "test_structured_content";
  structured.title = "Sum and product";
  structured.description = "Test fixture: returns {sum, product} of two integers as structuredContent";
  structured.inputSchema = json{{"type", "object"},
                                {"properties", {{"a", {{"type", "integer"}, {"description", "first operand"}}},
                                                {"b", {{"type", "integer"}, {"description", "second operand"}}}}},
                                {"required", {"a", "b"}},
                                {"additionalProperties", false}};
  structured.outputSchema = json{{"type", "object"},
                                 {"properties", {{"sum", {{"type", "integer"}}}, {"product", {{"type", "integer"}}}}},
                                 {"required", {"sum", "product"}},
                                 {"additionalProperties", false}};
  structured.annotations.readOnlyHint = true;
  structured.annotations.idempotentHint = true;
  structured.handler = [](const json& args, mcp::RequestContext&) {
    const long long a = args["a"].get<long long>(), b = args["b"].get<long long>();
    return ToolResult::structured(json{{"sum", a + b}, {"product", a * b}});
  };
  r.addTool(std::move(structured));

  // Test-only: the trivial call of the round-trip benchmark (same shape as server-everything's echo).
  ToolSpec echo;
  echo.name = "test_echo";
  echo.description = "Test fixture: echoes `message` back";
  echo.inputSchema = json{{"type", "object"},
                          {"properties", {{"message", {{"type", "string"}, {"description", "text to echo"}}}}},
                          {"required", {"message"}}};
  echo.annotations.readOnlyHint = true;
  echo.handler = [](const json& args, mcp::RequestContext&) {
    return ToolResult::text("Echo: " + args["message"].get<std::string>());
  };
  r.addTool(std::move(echo));

  // Test-only: output that is not UTF-8 (like raw process output); the transport must replace it.
  r.addTool(simple("test_invalid_utf8_output", "Test fixture: returns text containing invalid UTF-8 bytes",
                   [] { return ToolResult::text(std::string("raw bytes: \xff\xfe end")); }));
}

void addResources(mcp::Registrar& r) {
  auto fixed = [](std::string uri, std::string name, std::string description, std::string mime,
                  std::optional<std::string> text, std::optional<std::string> blob) {
    mcp::ResourceSpec res;
    res.uri = uri;
    res.name = std::move(name);
    res.description = std::move(description);
    res.mimeType = mime;
    res.read = [uri, mime, text, blob] { return std::vector<mcp::ResourceContents>{{uri, mime, text, blob}}; };
    return res;
  };
  r.addResource(fixed("test://static-text", "static-text", "A static text resource (conformance: resources-read-text)",
                      "text/plain", "This is the content of the static text resource.", std::nullopt));
  r.addResource(fixed("test://static-binary", "static-binary", "A static PNG resource (conformance: resources-read-binary)",
                      "image/png", std::nullopt, std::string(kPng)));
  r.addResource(fixed("test://watched-resource", "watched-resource",
                      "A resource clients may subscribe to (conformance: resources-subscribe)", "text/plain",
                      "Watched resource content", std::nullopt));
  mcp::ResourceTemplateSpec tmpl;
  tmpl.uriTemplate = "test://template/{id}/data";
  tmpl.name = "template-data";
  tmpl.description = "Data for one id (conformance: resources-templates-read)";
  tmpl.mimeType = "application/json";
  tmpl.read = [](const std::string& uri, const std::vector<std::pair<std::string, std::string>>& vars)
      -> std::optional<std::vector<mcp::ResourceContents>> {
    const std::string id = vars.empty() ? "" : vars.front().second;
    json data{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
    return std::vector<mcp::ResourceContents>{{uri, "application/json", data.dump(), std::nullopt}};
  };
  r.addResourceTemplate(std::move(tmpl));
}

void addPrompts(mcp::Registrar& r) {
  mcp::PromptSpec simplePrompt;
  simplePrompt.name = "test_simple_prompt";
  simplePrompt.description = "A prompt without arguments (conformance: prompts-get-simple)";
  simplePrompt.get = [](const json&) {
    return std::vector<mcp::PromptMessage>{{"user", mcp::textContent("This is a simple prompt for testing.")}};
  };
  r.addPrompt(std::move(simplePrompt));

  mcp::PromptSpec withArgs;
  withArgs.name = "test_prompt_with_arguments";
  withArgs.description = "A prompt with two required arguments (conformance: prompts-get-with-args, completion-complete)";
  withArgs.arguments = {{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}};
  withArgs.get = [](const json& args) {
    return std::vector<mcp::PromptMessage>{
        {"user", mcp::textContent("Prompt with arguments: arg1='" + args.value("arg1", "") + "', arg2='" +
                                  args.value("arg2", "") + "'")}};
  };
  withArgs.complete = [](const std::string& argument, const std::string& prefix) {
    std::vector<std::string> out;
    if (argument != "arg1") return out;
    for (const char* v : {"paris", "park", "party", "test", "testing"}) {
      if (std::string(v).rfind(prefix, 0) == 0) out.emplace_back(v);
    }
    return out;
  };
  r.addPrompt(std::move(withArgs));

  mcp::PromptSpec embedded;
  embedded.name = "test_prompt_with_embedded_resource";
  embedded.description = "A prompt embedding a resource (conformance: prompts-get-embedded-resource)";
  embedded.arguments = {{"resourceUri", "URI of the resource to embed", true}};
  embedded.get = [](const json& args) {
    return std::vector<mcp::PromptMessage>{
        {"user", mcp::embeddedTextResource(args.value("resourceUri", ""), "text/plain", "Embedded resource content for testing.")},
        {"user", mcp::textContent("Please process the embedded resource above.")}};
  };
  r.addPrompt(std::move(embedded));

  mcp::PromptSpec image;
  image.name = "test_prompt_with_image";
  image.description = "A prompt with an image (conformance: prompts-get-with-image)";
  image.get = [](const json&) {
    return std::vector<mcp::PromptMessage>{{"user", mcp::imageContent(kPng, "image/png")},
                                           {"user", mcp::textContent("Please analyze the image above.")}};
  };
  r.addPrompt(std::move(image));
}

}  // namespace

void registerConformanceFixtures(mcp::Registrar& registrar) {
  addContentTools(registrar);
  addStreamingTools(registrar);
  addClientRequestTools(registrar);
  addSchemaTools(registrar);
  addResources(registrar);
  addPrompts(registrar);
}

}  // namespace kopt::tools
