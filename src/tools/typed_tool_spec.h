#pragma once
// A campaign tool from its described types (tools/field_visitor.h): the input schema and the
// argument reader come from the arguments' describe(), the output schema and structuredContent
// from the result's, the words from tools/tool_texts.h and the text beside the result from
// tools/result_summaries.h, so an adapter keeps only the engine call and its annotations. As
// FastMCP derives a tool from a typed function.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "tools/field_reader.h"
#include "tools/field_schema.h"
#include "tools/field_writer.h"
#include "tools/request_fields.h"
#include "tools/result_fields.h"
#include "tools/result_summaries.h"
#include "tools/tool_support.h"
#include "tools/tool_texts.h"

namespace kopt::tools {

// A problem with one argument, as the isError result the agent reads (field and fix named).
mcp::ToolResult argumentError(const ArgumentProblem& problem);

// The engine's outcome as the tool result: structuredContent from the result's describe(), the
// text first from its summaryText overload.
template <class Result>
mcp::ToolResult typedResponse(const campaign::Outcome<Result>& outcome) {
  return respond<Result>(outcome, resultJson<Result>, [](const Result& r) { return summaryText(r); });
}

// The words and both schemas of a tool.
// `prototype` holds what the argument descriptions depend on (PagedArgs::what).
template <class Args, class Result>
mcp::ToolSpec typedSpec(ToolText text, Args prototype = Args{}) {
  mcp::ToolSpec t;
  t.name = std::move(text.name);
  t.title = std::move(text.title);
  t.description = std::move(text.description);
  t.inputSchema = inputSchemaOf(std::move(prototype));
  t.outputSchema = outputSchemaOf<Result>();
  return t;
}

// A tool answered at once: `run(args)` returns the engine's Outcome<Result>.
template <class Args, class Result, class Run>
mcp::ToolSpec quickTool(ToolText text, Run run, Args prototype = Args{}) {
  mcp::ToolSpec t = typedSpec<Args, Result>(std::move(text), prototype);
  t.handler = [tool = t.name, run, prototype](const json& args, mcp::RequestContext&) {
    return guarded(tool, [&] {
      Args a = prototype;
      if (auto problem = readArguments(args, a)) return argumentError(*problem);
      return typedResponse(run(a));
    });
  };
  return t;
}

// A tool whose handler is its own (it asks the person, polls a job, or answers in another
// shape): `handle(args, request)` returns the ToolResult once the arguments are read.
template <class Args, class Result, class Handle>
mcp::ToolSpec ownTool(ToolText text, Handle handle) {
  mcp::ToolSpec t = typedSpec<Args, Result>(std::move(text));
  t.handler = [tool = t.name, handle](const json& args, mcp::RequestContext& request) {
    return guarded(tool, [&] {
      Args a{};
      if (auto problem = readArguments(args, a)) return argumentError(*problem);
      return handle(a, request);
    });
  };
  return t;
}

// A tool outside the campaign engine: `run(args, request)` returns Checked<Result>, and a problem
// reads as the argument reader's own do (the field and the fix named).
template <class Args, class Result, class Run>
mcp::ToolSpec checkedTool(ToolText text, Run run) {
  return ownTool<Args, Result>(std::move(text), [run](const Args& a, mcp::RequestContext& request) {
    Checked<Result> answer = run(a, request);
    if (const auto* problem = std::get_if<ArgumentProblem>(&answer)) return argumentError(*problem);
    return typedResponse(campaign::Outcome<Result>(std::get<Result>(std::move(answer))));
  });
}

// A long tool: `run(args, ctx)` reports progress and honours cancellation; with `async: true`
// it runs as a job (tools/tool_jobs.h) and returns {job_id, job_state} at once.
template <class Args, class Result, class Run>
mcp::ToolSpec longTool(ToolText text, std::shared_ptr<ToolJobs> jobs, Run run) {
  mcp::ToolSpec t = typedSpec<AsyncArgs<Args>, JobOr<Result>>(std::move(text));
  t.handler = longHandler(t.name, std::move(jobs), [run](const json& args, const campaign::CallContext& ctx) {
    Args a{};
    if (auto problem = readArguments(args, a)) return argumentError(*problem);
    return typedResponse(run(a, ctx));
  });
  return t;
}

// A long tool that may ask the person (MCP elicitation) while it runs: `run(args, ctx, request)`
// gets the request when it runs in it, nullptr as a background job, where nobody can be asked.
template <class Args, class Result, class Run>
mcp::ToolSpec askingLongTool(ToolText text, std::shared_ptr<ToolJobs> jobs, Run run) {
  mcp::ToolSpec t = typedSpec<AsyncArgs<Args>, JobOr<Result>>(std::move(text));
  auto body = [run](const json& args, const campaign::CallContext& ctx, mcp::RequestContext* request) {
    Args a{};
    if (auto problem = readArguments(args, a)) return argumentError(*problem);
    return typedResponse(run(a, ctx, request));
  };
  auto inBackground = longHandler(t.name, jobs, [body](const json& args, const campaign::CallContext& ctx) {
    return body(args, ctx, nullptr);
  });
  t.handler = [tool = t.name, body, inBackground, jobs](const json& args, mcp::RequestContext& request) {
    if (argBool(args, "async") && jobs) return inBackground(args, request);
    const campaign::CallContext ctx = callContextFor(request);
    return guarded(tool, [&] { return body(args, ctx, &request); });
  };
  return t;
}

// The outcome with its long text member cut to the window `a` asks for (the rest is named by
// pageText's marker, with the offset to ask for next).
template <class Result>
campaign::Outcome<Result> paged(campaign::Outcome<Result> outcome, std::string Result::*text, const PagedArgs& a,
                                const std::string& fileName) {
  if (outcome.ok()) {
    Result& r = outcome.value();
    r.*text = pageText(r.*text, static_cast<std::size_t>(a.offset), static_cast<std::size_t>(a.limit), fileName);
  }
  return outcome;
}

}  // namespace kopt::tools
