#pragma once
// What every campaign tool adapter shares besides its described types (tools/typed_tool_spec.h):
// the engine's Outcome turned into a tool result (structuredContent + text, or an isError text
// with the refusal's what/why/phase/tool-to-call), progress and cancellation bridged from the
// MCP request to the engine, and a guard that turns an unexpected exception into an isError
// result instead of a dead server.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine.h"
#include "mcp/tool_api.h"

namespace kopt::tools {

using json = nlohmann::json;

class ToolJobs;

// What the campaign tool factories need.
struct CampaignToolDeps {
  std::shared_ptr<campaign::CampaignEngine> engine;
  std::shared_ptr<ToolJobs> jobs;  // for `async: true`
};

// One argument read before the tool's own reader runs (tools/field_reader.h reads the rest):
// the campaign a call touched, whether it runs as a job.
std::string argString(const json& args, const std::string& name, const std::string& fallback = "");
bool argBool(const json& args, const std::string& name, bool fallback = false);

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
// The annotations of a tool that only reads the campaign's records: read-only, local only.
mcp::ToolAnnotations campaignReadAnnotations();
// The annotations of an inspection tool outside the campaign (a CSV, the GPU): never destroys
// anything, answers a repeated call the same, local only; `readOnly` false where it keeps a cache.
mcp::ToolAnnotations inspectionAnnotations(bool readOnly);

}  // namespace kopt::tools
