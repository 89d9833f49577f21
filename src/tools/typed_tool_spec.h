#pragma once
// A campaign tool from its described types (tools/field_visitor.h): the input schema and the
// argument reader come from the arguments' describe(), the output schema and structuredContent
// from the result's, so an adapter keeps only its words (title, description, summary text) and
// the engine call. As FastMCP derives a tool from a typed function.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "tools/field_reader.h"
#include "tools/field_schema.h"
#include "tools/field_writer.h"
#include "tools/request_fields.h"
#include "tools/result_fields.h"
#include "tools/tool_support.h"

namespace kopt::tools {

// The words of a tool.
struct ToolText {
  std::string name, title, description;
};

// A problem with one argument, as the isError result the agent reads (field and fix named).
mcp::ToolResult argumentError(const ArgumentProblem& problem);

template <class Result>
using SummaryOf = std::function<std::string(const Result&)>;

// The words and both schemas of a tool whose handler is its own (elicitation, polling).
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
mcp::ToolSpec quickTool(ToolText text, Run run, SummaryOf<Result> summary, Args prototype = Args{}) {
  mcp::ToolSpec t = typedSpec<Args, Result>(std::move(text), prototype);
  t.handler = [tool = t.name, run, summary, prototype](const json& args, mcp::RequestContext&) {
    return guarded(tool, [&] {
      Args a = prototype;
      if (auto problem = readArguments(args, a)) return argumentError(*problem);
      return respond<Result>(run(a), resultJson<Result>, summary);
    });
  };
  return t;
}

// A long tool: `run(args, ctx)` reports progress and honours cancellation; with `async: true`
// it runs as a job (tools/tool_jobs.h) and returns {job_id, job_state} at once.
template <class Args, class Result, class Run>
mcp::ToolSpec longTool(ToolText text, std::shared_ptr<ToolJobs> jobs, Run run, SummaryOf<Result> summary) {
  mcp::ToolSpec t = typedSpec<AsyncArgs<Args>, JobOr<Result>>(std::move(text));
  t.handler = longHandler(t.name, std::move(jobs), [run, summary](const json& args, const campaign::CallContext& ctx) {
    Args a{};
    if (auto problem = readArguments(args, a)) return argumentError(*problem);
    return respond<Result>(run(a, ctx), resultJson<Result>, summary);
  });
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
