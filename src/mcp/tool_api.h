#pragma once
// The contract between the protocol layer (src/mcp) and whatever registers tools, resources and
// prompts (src/tools). Handlers receive already-validated JSON arguments and a context for
// progress, logging, cancellation and server->client requests; they return results, never throw
// for bad input (an isError result naming the field is the contract), and know nothing of
// transports, sessions or JSON-RPC ids.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/cancellation.h"

namespace kopt::mcp {

using json = nlohmann::json;

enum class LogLevel { Debug, Info, Notice, Warning, Error, Critical, Alert, Emergency };

// A content block of a tool result or prompt message, already in its MCP wire shape
// ({"type":"text","text":...}, image, audio, resource, resource_link).
using Content = json;
Content textContent(std::string text);
Content imageContent(std::string base64Data, std::string mimeType);
Content audioContent(std::string base64Data, std::string mimeType);
Content embeddedTextResource(std::string uri, std::string mimeType, std::string text);
Content resourceLink(std::string uri, std::string name, std::string mimeType, std::string description = {});

struct ToolResult {
  std::vector<Content> content;
  std::optional<json> structuredContent;  // mirrored as a text block when content is empty
  bool isError = false;

  static ToolResult text(std::string text);
  static ToolResult structured(json value);  // content = compact JSON text of value
  // A tool execution error: `field` names the argument at fault ("" when none), `fix` says what
  // to do instead. Both end up in the text the agent reads.
  static ToolResult error(std::string message, std::string field = {}, std::string fix = {});
};

// What the client said it can do in `initialize` (capabilities object, verbatim).
struct ClientInfo {
  std::string name;
  std::string version;
  json capabilities = json::object();
  std::string protocolVersion;
  bool supportsElicitation() const { return capabilities.contains("elicitation"); }
  bool supportsSampling() const { return capabilities.contains("sampling"); }
};

// Everything a running handler may do besides computing its result.
class RequestContext {
 public:
  virtual ~RequestContext() = default;
  // No-ops unless the request carried `_meta.progressToken`; progress must strictly increase.
  virtual void progress(double progress, std::optional<double> total = {}, std::string message = {}) = 0;
  // notifications/message, filtered by the level the client set with logging/setLevel.
  virtual void log(LogLevel level, const std::string& logger, const json& data) = 0;
  virtual const CancellationToken& cancellation() const = 0;
  virtual const ClientInfo& client() const = 0;
  // Sends a request to the client (elicitation/create, sampling/createMessage, roots/list) and
  // waits for its answer. Returns the JSON-RPC result, or nullopt on error, timeout or cancel;
  // `error` then says why.
  virtual std::optional<json> requestClient(const std::string& method, const json& params,
                                            std::chrono::milliseconds timeout, std::string* error) = 0;
};

struct ToolAnnotations {
  std::optional<bool> readOnlyHint;
  std::optional<bool> destructiveHint;
  std::optional<bool> idempotentHint;
  std::optional<bool> openWorldHint;
};

struct ToolSpec {
  std::string name;  // snake_case, at most 64 characters
  std::string title;
  std::string description;
  json inputSchema = json{{"type", "object"}};
  std::optional<json> outputSchema;
  ToolAnnotations annotations;
  std::function<ToolResult(const json& arguments, RequestContext& ctx)> handler;
};

struct ResourceContents {
  std::string uri;
  std::string mimeType;
  std::optional<std::string> text;
  std::optional<std::string> blobBase64;
};

struct ResourceSpec {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  std::string mimeType;
  std::function<std::vector<ResourceContents>()> read;
};

// RFC 6570 level-1 template, e.g. "kopt://campaign/{name}/round/{n}/summary".
struct ResourceTemplateSpec {
  std::string uriTemplate;
  std::string name;
  std::string title;
  std::string description;
  std::string mimeType;
  // Called with the matched variables; nullopt means "no such resource" (-32002).
  std::function<std::optional<std::vector<ResourceContents>>(const std::string& uri,
                                                             const std::vector<std::pair<std::string, std::string>>& vars)>
      read;
};

// Dynamic resources (e.g. every round's files) are listed on demand.
using ResourceLister = std::function<std::vector<ResourceSpec>()>;

struct PromptArgument {
  std::string name;
  std::string description;
  bool required = false;
};

struct PromptMessage {
  std::string role;  // "user" | "assistant"
  Content content;
};

struct PromptSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<PromptArgument> arguments;
  std::function<std::vector<PromptMessage>(const json& arguments)> get;
  // Optional: completion/complete values for an argument given its prefix.
  std::function<std::vector<std::string>(const std::string& argument, const std::string& prefix)> complete;
};

}  // namespace kopt::mcp

namespace kopt::mcp {

// What the server exposes to code that registers tools, resources and prompts. Implemented by the
// protocol layer's registry; registration happens before serving starts.
class Registrar {
 public:
  virtual ~Registrar() = default;
  virtual void addTool(ToolSpec tool) = 0;
  virtual void addResource(ResourceSpec resource) = 0;
  virtual void addResourceLister(ResourceLister lister) = 0;
  virtual void addResourceTemplate(ResourceTemplateSpec resourceTemplate) = 0;
  virtual void addPrompt(PromptSpec prompt) = 0;
  // Tells subscribed clients that a resource changed (notifications/resources/updated).
  // Safe to call from any thread, at any time, also when nobody subscribed.
  virtual void notifyResourceUpdated(const std::string& uri) = 0;
};

}  // namespace kopt::mcp
