#pragma once
// Keeping tool results inside what MCP clients accept. Claude Code rejects a result above 25,000
// tokens by default, other hosts truncate silently, and the TS SDK drops a stdio message above
// 10 MiB. Adapters that may return long text (logs, tables, summaries) pass it through here: it
// comes back cut on a UTF-8 boundary, with a marker that says what was left out and the exact
// `offset` to ask for next, so an agent can page through it instead of losing it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mcp/tool_api.h"

namespace kopt::tools {

// About 10,000 tokens of English or code: well under Claude Code's 25,000-token default, with room
// for the rest of the result.
inline constexpr std::size_t kDefaultTextLimit = 40000;
// The most a caller may ask for in one page.
inline constexpr std::size_t kMaxTextLimit = 200000;

// A window [offset, end) of a text, in bytes, cut on code-point boundaries.
struct TextWindow {
  std::string text;        // the window, valid UTF-8 (invalid input bytes replaced by U+FFFD)
  std::size_t offset = 0;  // where the window starts (moved back to a code-point boundary)
  std::size_t end = 0;     // where it stops: the offset of the next page
  std::size_t total = 0;   // bytes in the whole text
  bool truncatedBefore() const { return offset > 0; }
  bool truncatedAfter() const { return end < total; }
  bool truncated() const { return truncatedBefore() || truncatedAfter(); }
};

TextWindow windowText(std::string_view text, std::size_t offset, std::size_t limit = kDefaultTextLimit);

// The window's text followed, when it is not the whole text, by a marker line:
//   [kopt: truncated <what>: bytes 0-40000 of 123456 shown; call again with "offset": 40000 for more]
// `what` names the thing ("build.log"); `hint` replaces the "call again ..." part when the caller
// pages some other way (e.g. a resource URI to read).
std::string withTruncationMarker(const TextWindow& window, std::string_view what, std::string_view hint = {});

// The last `limit` bytes (a log's end is where the error is), with a marker in front when cut.
std::string tailWithMarker(std::string_view text, std::size_t limit, std::string_view what, std::string_view hint = {});

// The `offset` / `limit` tool arguments. Adapters add pageArgumentProperties() to their input
// schema's properties and read them with readPageArguments.
struct PageArguments {
  std::size_t offset = 0;
  std::size_t limit = kDefaultTextLimit;
};
nlohmann::json pageArgumentProperties();
// nullopt when fine; otherwise an isError result naming the field and the fix.
std::optional<mcp::ToolResult> readPageArguments(const nlohmann::json& arguments, PageArguments& out);

// A text result paged by `page`, with the marker, and a resource link to the whole thing when the
// text was cut and a URI is known (clients that can read resources fetch it in one piece).
mcp::ToolResult pagedTextResult(std::string_view text, const PageArguments& page, std::string_view what,
                                const std::string& resourceUri = {}, const std::string& mimeType = "text/plain");

}  // namespace kopt::tools
