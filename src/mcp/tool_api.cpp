// The small constructors declared in tool_api.h: they pin the MCP wire shape of content blocks in
// one place so tool code never spells JSON keys by hand.
#include "mcp/tool_api.h"

namespace kopt::mcp {

Content textContent(std::string text) { return json{{"type", "text"}, {"text", std::move(text)}}; }

Content imageContent(std::string base64Data, std::string mimeType) {
  return json{{"type", "image"}, {"data", std::move(base64Data)}, {"mimeType", std::move(mimeType)}};
}

Content audioContent(std::string base64Data, std::string mimeType) {
  return json{{"type", "audio"}, {"data", std::move(base64Data)}, {"mimeType", std::move(mimeType)}};
}

Content embeddedTextResource(std::string uri, std::string mimeType, std::string text) {
  return json{{"type", "resource"},
              {"resource", {{"uri", std::move(uri)}, {"mimeType", std::move(mimeType)}, {"text", std::move(text)}}}};
}

Content resourceLink(std::string uri, std::string name, std::string mimeType, std::string description) {
  json link{{"type", "resource_link"}, {"uri", std::move(uri)}, {"name", std::move(name)}};
  if (!mimeType.empty()) link["mimeType"] = std::move(mimeType);
  if (!description.empty()) link["description"] = std::move(description);
  return link;
}

ToolResult ToolResult::text(std::string text) {
  ToolResult result;
  result.content.push_back(textContent(std::move(text)));
  return result;
}

ToolResult ToolResult::structured(json value) {
  ToolResult result;
  result.content.push_back(textContent(value.dump(-1, ' ', false, json::error_handler_t::replace)));
  result.structuredContent = std::move(value);
  return result;
}

ToolResult ToolResult::error(std::string message, std::string field, std::string fix) {
  std::string text = field.empty() ? std::move(message) : "argument '" + field + "': " + message;
  if (!fix.empty()) text += " (fix: " + fix + ")";
  ToolResult result;
  result.isError = true;
  result.content.push_back(textContent(std::move(text)));
  return result;
}

}  // namespace kopt::mcp
