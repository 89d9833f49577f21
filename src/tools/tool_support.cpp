#include "tools/tool_support.h"

#include <mutex>

#include "tools/tool_jobs.h"
#include "util/text.h"

namespace kopt::tools {

std::string argString(const json& args, const std::string& name, const std::string& fallback) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_string()) return fallback;
  return args[name].get<std::string>();
}

bool argBool(const json& args, const std::string& name, bool fallback) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_boolean()) return fallback;
  return args[name].get<bool>();
}

mcp::ToolResult refusalResult(const campaign::Refusal& refusal) {
  mcp::ToolResult r;
  r.isError = true;
  r.content.push_back(mcp::textContent(util::sanitizeUtf8(campaign::toText(refusal))));
  return r;
}

mcp::ToolResult failureResult(const campaign::ToolFailure& failure) {
  mcp::ToolResult r;
  r.isError = true;
  r.content.push_back(mcp::textContent(util::sanitizeUtf8(campaign::toText(failure))));
  return r;
}

campaign::CallContext callContextFor(mcp::RequestContext& ctx) {
  campaign::CallContext c;
  c.cancel = ctx.cancellation();
  auto last = std::make_shared<double>(-1.0);
  auto m = std::make_shared<std::mutex>();
  mcp::RequestContext* request = &ctx;
  c.progress = [request, last, m](double p, std::optional<double> total, const std::string& message) {
    std::lock_guard<std::mutex> lock(*m);
    if (!(p > *last)) return;  // MCP: progress strictly increases
    *last = p;
    request->progress(p, total, message);
  };
  return c;
}

mcp::ToolResult guarded(const std::string& tool, const std::function<mcp::ToolResult()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return mcp::ToolResult::error("internal error in " + tool + ": " + util::sanitizeUtf8(e.what()), "",
                                  "campaign_status says where the campaign stands; the call can be retried");
  }
}

std::function<mcp::ToolResult(const json&, mcp::RequestContext&)> longHandler(const std::string& tool,
                                                                             std::shared_ptr<ToolJobs> jobs,
                                                                             LongBody body) {
  return [tool, jobs, body](const json& args, mcp::RequestContext& ctx) -> mcp::ToolResult {
    if (argBool(args, "async") && jobs) {
      const std::string id = jobs->start(
          tool, [tool, args, body](const campaign::CallContext& c) { return guarded(tool, [&] { return body(args, c); }); },
          args);
      json s{{"job_id", id}, {"job_state", "running"}};
      mcp::ToolResult r;
      r.content.push_back(mcp::textContent(tool + " started as " + id + "; call poll_job {\"job_id\": \"" + id +
                                           "\", \"wait_seconds\": 60} until its state is finished"));
      r.content.push_back(mcp::textContent(s.dump()));
      r.structuredContent = s;
      return r;
    }
    const campaign::CallContext c = callContextFor(ctx);
    return guarded(tool, [&] { return body(args, c); });
  };
}

std::string pageText(const std::string& text, std::size_t offset, std::size_t limit, const std::string& what) {
  if (limit == 0) limit = kTextLimit;
  const std::string clean = util::sanitizeUtf8(text);
  if (offset >= clean.size()) {
    return offset == 0 ? clean : "[kopt: " + what + " has only " + std::to_string(clean.size()) + " bytes]";
  }
  // Cut on code-point boundaries.
  while (offset > 0 && (static_cast<unsigned char>(clean[offset]) & 0xC0) == 0x80) --offset;
  std::string window = util::truncateUtf8(std::string_view(clean).substr(offset), limit);
  const std::size_t end = offset + window.size();
  std::string out;
  if (offset > 0) out += "[kopt: " + what + " from byte " + std::to_string(offset) + "]\n";
  out += window;
  if (end < clean.size()) {
    out += "\n[kopt: truncated " + what + ": bytes " + std::to_string(offset) + "-" + std::to_string(end) + " of " +
           std::to_string(clean.size()) + " shown; call again with \"offset\": " + std::to_string(end) + " for more]";
  }
  return out;
}

mcp::ToolAnnotations campaignWriteAnnotations() {
  mcp::ToolAnnotations a;
  a.readOnlyHint = false;
  a.destructiveHint = false;
  a.openWorldHint = false;
  return a;
}

mcp::ToolAnnotations campaignReadAnnotations() {
  mcp::ToolAnnotations a;
  a.readOnlyHint = true;
  a.openWorldHint = false;
  return a;
}

mcp::ToolAnnotations inspectionAnnotations(bool readOnly) {
  mcp::ToolAnnotations a;
  a.readOnlyHint = readOnly;
  a.destructiveHint = false;
  a.idempotentHint = true;
  a.openWorldHint = false;
  return a;
}

}  // namespace kopt::tools
