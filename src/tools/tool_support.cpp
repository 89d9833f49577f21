#include "tools/tool_support.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "campaign/phase.h"
#include "tools/tool_jobs.h"
#include "util/text.h"

namespace kopt::tools {

namespace {

json prop(const char* type, const std::string& description) { return json{{"type", type}, {"description", description}}; }

}  // namespace

FlatSchema& FlatSchema::string(const std::string& name, const std::string& description, bool required,
                               long long maxLength) {
  properties_[name] = prop("string", description);
  properties_[name]["maxLength"] = maxLength;
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::enumeration(const std::string& name, const std::vector<std::string>& values,
                                    const std::string& description, bool required) {
  json p = prop("string", description);
  p["enum"] = values;
  p["maxLength"] = kMaxStringChars;
  properties_[name] = p;
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::integer(const std::string& name, const std::string& description, bool required,
                                std::optional<long long> minimum, std::optional<long long> maximum) {
  // Every integer argument ends up in an int (round numbers, pairs, limits): unbounded, round
  // 2147483648 was accepted and recorded as round -2147483648. Unless the tool says tighter,
  // the schema (validated before any handler runs) bounds it to int.
  json p = prop("integer", description);
  p["minimum"] = minimum.value_or(std::numeric_limits<int>::min());
  p["maximum"] = maximum.value_or(std::numeric_limits<int>::max());
  properties_[name] = p;
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::number(const std::string& name, const std::string& description, bool required) {
  properties_[name] = prop("number", description);
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::boolean(const std::string& name, const std::string& description, bool required) {
  properties_[name] = prop("boolean", description);
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::strings(const std::string& name, const std::string& description, bool required) {
  properties_[name] = json{{"type", "array"},
                           {"items", {{"type", "string"}, {"maxLength", kMaxStringChars}}},
                           {"maxItems", kMaxListItems},
                           {"description", description}};
  if (required) required_.push_back(name);
  return *this;
}

FlatSchema& FlatSchema::campaignDir() {
  return string("campaign_dir",
                "The campaign directory (absolute, or relative to the server's workspace), as define_target returned it",
                true);
}

FlatSchema& FlatSchema::async() {
  return boolean("async",
                 "Run in the background and return {job_id} at once; then call poll_job with the id until its state "
                 "is finished (for runs longer than your client's request timeout). Default false.");
}

json FlatSchema::build() const {
  json s{{"type", "object"}, {"properties", properties_}, {"additionalProperties", false}};
  if (!required_.empty()) s["required"] = required_;
  return s;
}

OutputSchema& OutputSchema::prop(const std::string& name, const json& schema, bool required) {
  properties_[name] = schema;
  if (required) required_.push_back(name);
  return *this;
}

json phaseSchema() {
  json names = json::array();
  for (campaign::Phase p : campaign::allPhases()) names.push_back(campaign::toString(p));
  return {{"type", "string"}, {"enum", names}};
}

OutputSchema& OutputSchema::phase(bool required) { return prop("phase", phaseSchema(), required); }

OutputSchema& OutputSchema::jobFields() {
  prop("job_id", {{"type", "string"}});
  prop("job_state", {{"type", "string"}});
  return *this;
}

json OutputSchema::build() const {
  json s{{"type", "object"}, {"properties", properties_}};
  if (!required_.empty()) s["required"] = required_;
  return s;
}

std::string argString(const json& args, const std::string& name, const std::string& fallback) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_string()) return fallback;
  return args[name].get<std::string>();
}

std::optional<std::string> argOptString(const json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_string()) return std::nullopt;
  return args[name].get<std::string>();
}

bool argBool(const json& args, const std::string& name, bool fallback) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_boolean()) return fallback;
  return args[name].get<bool>();
}

std::optional<long long> argInt(const json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_number()) return std::nullopt;
  return static_cast<long long>(args[name].get<double>());
}

std::optional<double> argNumber(const json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_number()) return std::nullopt;
  return args[name].get<double>();
}

std::optional<std::vector<std::string>> argStrings(const json& args, const std::string& name) {
  if (!args.is_object() || !args.contains(name)) return std::nullopt;
  const json& v = args[name];
  std::vector<std::string> out;
  if (v.is_string()) {
    // Tolerate a comma-separated string from clients that only send primitives.
    for (auto& part : util::split(v.get<std::string>(), ',')) {
      auto t = util::trim(part);
      if (!t.empty()) out.push_back(t);
    }
    return out;
  }
  if (!v.is_array()) return std::nullopt;
  for (const auto& x : v) {
    if (x.is_string()) out.push_back(x.get<std::string>());
  }
  return out;
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

FlatSchema& paging(FlatSchema& schema, const std::string& what) {
  schema.integer("offset", "Byte offset into the " + what + " (default 0), for paging through a long text", false, 0);
  schema.integer("limit", "Most bytes of the " + what + " to return (default 40000)", false, 1, 200000);
  return schema;
}

json optNumber(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json shapeRowsJson(const std::vector<campaign::ShapeRow>& rows) {
  json out = json::array();
  for (const auto& row : rows) out.push_back(shapeRowJson(row));
  return out;
}

mcp::ToolAnnotations campaignWriteAnnotations() {
  mcp::ToolAnnotations a;
  a.readOnlyHint = false;
  a.destructiveHint = false;
  a.openWorldHint = false;
  return a;
}

json shapeRowJson(const campaign::ShapeRow& r) {
  return json{{"label", r.label},
              {"check", r.check},
              {"candidate", optNumber(r.candidate)},
              {"best", optNumber(r.best)},
              {"ratio", optNumber(r.ratio)},
              {"ci_low_pct", optNumber(r.ciLowPct)},
              {"ci_high_pct", optNumber(r.ciHighPct)},
              {"delta_pct", optNumber(r.deltaPct)},
              {"mde_pct", optNumber(r.mdePct)},
              {"verdict", r.verdict},
              {"note", r.note}};
}

json aggregateJson(const campaign::AggregateRow& a) {
  return json{{"metric", a.metric},
              {"candidate", optNumber(a.candidate)},
              {"best", optNumber(a.best)},
              {"ratio", optNumber(a.ratio)},
              {"ci_low_pct", optNumber(a.ciLowPct)},
              {"ci_high_pct", optNumber(a.ciHighPct)},
              {"vs_baseline_pct", optNumber(a.vsBaselinePct)}};
}

json reasonsJson(const std::vector<campaign::GateReason>& reasons) {
  json out = json::array();
  for (const auto& r : reasons) out.push_back({{"code", r.code}, {"label", r.label}, {"message", r.message}});
  return out;
}

json nextJson(const std::vector<campaign::NextStep>& next) {
  json out = json::array();
  for (const auto& n : next) out.push_back({{"tool", n.tool}, {"why", n.why}});
  return out;
}

namespace {

json nullableNumber() { return nullable("number"); }

}  // namespace

json shapeRowSchema() {
  return {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties",
             {{"label", {{"type", "string"}}},
              {"check", {{"type", "string"}}},
              {"candidate", nullableNumber()},
              {"best", nullableNumber()},
              {"ratio", nullableNumber()},
              {"ci_low_pct", nullableNumber()},
              {"ci_high_pct", nullableNumber()},
              {"delta_pct", nullableNumber()},
              {"mde_pct", nullableNumber()},
              {"verdict", {{"type", "string"}}},
              {"note", {{"type", "string"}}}}},
            {"required", {"label", "check", "verdict"}}}}};
}

json aggregateSchema() {
  return {{"type", "object"},
          {"properties",
           {{"metric", {{"type", "string"}}},
            {"candidate", nullableNumber()},
            {"best", nullableNumber()},
            {"ratio", nullableNumber()},
            {"ci_low_pct", nullableNumber()},
            {"ci_high_pct", nullableNumber()},
            {"vs_baseline_pct", nullableNumber()}}}};
}

json reasonsSchema() {
  return {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties", {{"code", {{"type", "string"}}}, {"label", {{"type", "string"}}}, {"message", {{"type", "string"}}}}},
            {"required", {"code", "message"}}}}};
}

json nextSchema() {
  return {{"type", "array"},
          {"items",
           {{"type", "object"},
            {"properties", {{"tool", {{"type", "string"}}}, {"why", {{"type", "string"}}}}},
            {"required", {"tool"}}}}};
}

namespace {

std::string num(const std::optional<double>& v, const char* fmt = "%.4g") {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, *v);
  return buf;
}

}  // namespace

std::string shapeTable(const std::vector<campaign::ShapeRow>& rows) {
  std::string out = "shape | check | candidate | best | ratio | CI (%) | verdict\n";
  for (const auto& r : rows) {
    out += r.label + " | " + r.check + " | " + num(r.candidate) + " | " + num(r.best) + " | " + num(r.ratio, "%.4f") +
           " | [" + num(r.ciLowPct, "%+.2f") + ", " + num(r.ciHighPct, "%+.2f") + "] | " + r.verdict + "\n";
  }
  return out;
}

}  // namespace kopt::tools
