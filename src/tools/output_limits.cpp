#include "tools/output_limits.h"

#include <algorithm>

#include "util/text.h"

namespace kopt::tools {

namespace {

bool isContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Moves `at` back to the start of the code point it falls in.
std::size_t boundary(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  std::size_t steps = 0;
  while (at > 0 && at < text.size() && isContinuation(text[at]) && steps < 3) {
    --at;
    ++steps;
  }
  return at;
}

std::string number(std::size_t n) { return std::to_string(n); }

}  // namespace

TextWindow windowText(std::string_view text, std::size_t offset, std::size_t limit) {
  TextWindow w;
  w.total = text.size();
  limit = std::max<std::size_t>(limit, 4);  // always room for one code point
  w.offset = boundary(text, offset);
  w.end = w.offset + limit >= text.size() ? text.size() : boundary(text, w.offset + limit);
  if (w.end <= w.offset && w.offset < text.size()) w.end = std::min(text.size(), w.offset + 4);  // pathological input
  w.text = util::sanitizeUtf8(text.substr(w.offset, w.end - w.offset));
  return w;
}

std::string withTruncationMarker(const TextWindow& w, std::string_view what, std::string_view hint) {
  if (!w.truncated()) return w.text;
  std::string marker = "[kopt: truncated " + std::string(what) + ": bytes " + number(w.offset) + "-" + number(w.end) +
                       " of " + number(w.total) + " shown; ";
  if (!hint.empty()) {
    marker += std::string(hint);
  } else if (w.truncatedAfter()) {
    marker += "call again with \"offset\": " + number(w.end) + " for more";
  } else {
    marker += "call again with a smaller \"offset\" for the start";
  }
  marker += "]";
  std::string out = w.text;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + marker;
}

std::string tailWithMarker(std::string_view text, std::size_t limit, std::string_view what, std::string_view hint) {
  if (text.size() <= limit) return util::sanitizeUtf8(text);
  std::size_t start = text.size() - limit;
  while (start < text.size() && isContinuation(text[start])) ++start;
  std::string marker = "[kopt: truncated " + std::string(what) + ": last " + number(text.size() - start) + " of " +
                       number(text.size()) + " bytes shown";
  marker += hint.empty() ? std::string("]") : "; " + std::string(hint) + "]";
  return marker + "\n" + util::sanitizeUtf8(text.substr(start));
}

nlohmann::json pageArgumentProperties() {
  return {
      {"offset",
       {{"type", "integer"},
        {"minimum", 0},
        {"description", "Byte offset to start from, for reading a long output page by page (default 0)."}}},
      {"limit",
       {{"type", "integer"},
        {"minimum", 1},
        {"maximum", kMaxTextLimit},
        {"description", "Most bytes of text to return (default " + number(kDefaultTextLimit) + ")."}}},
  };
}

std::optional<mcp::ToolResult> readPageArguments(const nlohmann::json& arguments, PageArguments& out) {
  out = PageArguments{};
  if (!arguments.is_object()) return std::nullopt;
  auto read = [&](const char* field, std::size_t& target, std::size_t min, std::size_t max) -> std::optional<mcp::ToolResult> {
    if (!arguments.contains(field) || arguments[field].is_null()) return std::nullopt;
    const auto& v = arguments[field];
    bool integral = v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
    if (!integral) return mcp::ToolResult::error("must be a whole number", field, std::string("pass e.g. ") + field + ": " + number(min));
    long long n = v.is_number_integer() ? v.get<long long>() : static_cast<long long>(v.get<double>());
    if (n < static_cast<long long>(min) || static_cast<unsigned long long>(n) > max)
      return mcp::ToolResult::error("is " + std::to_string(n) + ", outside " + number(min) + ".." + number(max), field,
                                    "pass a value in that range");
    target = static_cast<std::size_t>(n);
    return std::nullopt;
  };
  if (auto e = read("offset", out.offset, 0, static_cast<std::size_t>(1) << 40)) return e;
  if (auto e = read("limit", out.limit, 1, kMaxTextLimit)) return e;
  return std::nullopt;
}

mcp::ToolResult pagedTextResult(std::string_view text, const PageArguments& page, std::string_view what,
                                const std::string& resourceUri, const std::string& mimeType) {
  TextWindow w = windowText(text, page.offset, page.limit);
  mcp::ToolResult result = mcp::ToolResult::text(withTruncationMarker(w, what));
  if (w.truncated() && !resourceUri.empty())
    result.content.push_back(mcp::resourceLink(resourceUri, std::string(what), mimeType, "the whole " + std::string(what)));
  return result;
}

}  // namespace kopt::tools
