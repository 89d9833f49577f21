#pragma once
// What every campaign tool adapter shares: flat input schemas, argument reading with errors that
// name the field, the engine's Outcome turned into a tool result (structuredContent + text, or an
// isError text with the refusal's what/why/phase/tool-to-call), progress and cancellation bridged
// from the MCP request to the engine, and a guard that turns an unexpected exception into an
// isError result instead of a dead server.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine.h"
#include "mcp/tool_api.h"
#include "tools/field_schema.h"

namespace kopt::tools {

using json = nlohmann::json;

class ToolJobs;

// What the campaign tool factories need.
struct CampaignToolDeps {
  std::shared_ptr<campaign::CampaignEngine> engine;
  std::shared_ptr<ToolJobs> jobs;  // for `async: true`
};

// A flat input schema: type object, primitive properties (and arrays of strings), enums,
// required, descriptions; no $ref, no nesting.
class FlatSchema {
 public:
  // Every string argument is bounded (docs/robustness.md, item 9): unbounded, a 10 MB campaign_dir came back
  // as a 10.5 MB error and a 10 MB hypothesis landed in the ledger. The registry validates the
  // schema before any handler runs, and its refusal gives the length, not the value.
  static constexpr long long kMaxStringChars = 8192;     // paths, names, prose of one round
  static constexpr long long kMaxDocumentChars = 262144;  // whole documents (manifest_yaml)
  static constexpr long long kMaxListItems = 256;
  FlatSchema& string(const std::string& name, const std::string& description, bool required = false,
                     long long maxLength = kMaxStringChars);
  FlatSchema& enumeration(const std::string& name, const std::vector<std::string>& values, const std::string& description,
                          bool required = false);
  FlatSchema& integer(const std::string& name, const std::string& description, bool required = false,
                      std::optional<long long> minimum = std::nullopt, std::optional<long long> maximum = std::nullopt);
  FlatSchema& number(const std::string& name, const std::string& description, bool required = false);
  FlatSchema& boolean(const std::string& name, const std::string& description, bool required = false);
  FlatSchema& strings(const std::string& name, const std::string& description, bool required = false);
  // campaign_dir, required.
  FlatSchema& campaignDir();
  // async (bool): run as a job and return its id at once; poll with poll_job.
  FlatSchema& async();
  json build() const;

 private:
  json properties_ = json::object();
  std::vector<std::string> required_;
};

// {"type": "string", "enum": [every phase name]}: what a `phase` field of a result holds.
json phaseSchema();

// Output schema builder: properties with types.
class OutputSchema {
 public:
  OutputSchema& prop(const std::string& name, const json& schema, bool required = false);
  OutputSchema& string(const std::string& name, bool required = false) { return prop(name, {{"type", "string"}}, required); }
  OutputSchema& integer(const std::string& name, bool required = false) { return prop(name, {{"type", "integer"}}, required); }
  OutputSchema& boolean(const std::string& name, bool required = false) { return prop(name, {{"type", "boolean"}}, required); }
  OutputSchema& nullableNumber(const std::string& name) { return prop(name, nullable("number")); }
  OutputSchema& strings(const std::string& name, bool required = false) {
    return prop(name, {{"type", "array"}, {"items", {{"type", "string"}}}}, required);
  }
  // The campaign's phase: a string from the engine's phase names (campaign/phase.h), as an enum.
  OutputSchema& phase(bool required = false);
  // job_id / job_state: present when the call ran with async: true.
  OutputSchema& jobFields();
  json build() const;

 private:
  json properties_ = json::object();
  std::vector<std::string> required_;
};

// Reading arguments (already validated against the input schema by the registry, but read
// defensively: `kopt call` and tests may skip that).
std::string argString(const json& args, const std::string& name, const std::string& fallback = "");
std::optional<std::string> argOptString(const json& args, const std::string& name);
bool argBool(const json& args, const std::string& name, bool fallback = false);
std::optional<long long> argInt(const json& args, const std::string& name);
std::optional<double> argNumber(const json& args, const std::string& name);
std::optional<std::vector<std::string>> argStrings(const json& args, const std::string& name);

// The refusal / failure as the isError text the agent reads.
mcp::ToolResult refusalResult(const campaign::Refusal& refusal);
mcp::ToolResult failureResult(const campaign::ToolFailure& failure);

// Outcome -> ToolResult: structured = toJson(value); the text block is `summary(value)` followed
// by the compact JSON (the spec's backward-compatible mirror).
template <class T>
mcp::ToolResult respond(const campaign::Outcome<T>& outcome, const std::function<json(const T&)>& toJson,
                        const std::function<std::string(const T&)>& summary) {
  if (outcome.refused()) return refusalResult(outcome.refusal());
  if (outcome.failed()) return failureResult(outcome.failure());
  json structured = toJson(outcome.value());
  mcp::ToolResult r;
  std::string text = summary ? summary(outcome.value()) : std::string();
  r.content.push_back(mcp::textContent(text.empty() ? structured.dump() : text));
  r.content.push_back(mcp::textContent(structured.dump(-1, ' ', false, json::error_handler_t::replace)));
  r.structuredContent = std::move(structured);
  return r;
}

// A CallContext whose progress goes to the request's progress token (strictly increasing) and
// whose cancellation is the request's.
campaign::CallContext callContextFor(mcp::RequestContext& ctx);

// Runs `body`; an exception becomes an isError result ("internal error in <tool>: ...").
mcp::ToolResult guarded(const std::string& tool, const std::function<mcp::ToolResult()>& body);

// A long tool's handler: runs `body` now, or (async: true) as a job whose id is returned at once.
using LongBody = std::function<mcp::ToolResult(const json& args, const campaign::CallContext& ctx)>;
std::function<mcp::ToolResult(const json&, mcp::RequestContext&)> longHandler(const std::string& tool,
                                                                             std::shared_ptr<ToolJobs> jobs, LongBody body);

// A window of a long text (a log, a report) with a marker saying what was left out and the
// offset to ask for next. `offset`/`limit` are the tool's paging arguments (bytes).
std::string pageText(const std::string& text, std::size_t offset, std::size_t limit, const std::string& what);
inline constexpr std::size_t kTextLimit = 40000;
// The annotations of a tool that writes the campaign's records or the working tree: not read-only,
// never destroys the user's work (a rollback restores the last accepted files), local only.
mcp::ToolAnnotations campaignWriteAnnotations();

// Adds offset/limit paging arguments to a schema.
FlatSchema& paging(FlatSchema& schema, const std::string& what);

// Shared JSON shapes of the engine's result pieces.
json optNumber(const std::optional<double>& v);
json shapeRowJson(const campaign::ShapeRow& row);
json shapeRowsJson(const std::vector<campaign::ShapeRow>& rows);
json aggregateJson(const campaign::AggregateRow& a);
json reasonsJson(const std::vector<campaign::GateReason>& reasons);
json nextJson(const std::vector<campaign::NextStep>& next);
json shapeRowSchema();
json aggregateSchema();
json reasonsSchema();
json nextSchema();
// "label  check  candidate  best  ratio  CI  verdict" lines for summaries.
std::string shapeTable(const std::vector<campaign::ShapeRow>& rows);

}  // namespace kopt::tools
