#pragma once
// The registry behind mcp::Registrar: what this server exposes (tools, resources, resource
// templates, prompts) and the MCP semantics of each list/read/get/call that do not depend on a
// session: pagination, argument validation, result shaping, resource lookup, prompt arguments,
// completion. Filled before serving starts; afterwards read-only and safe to share between
// sessions (HTTP serves many at once).
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "mcp/json_rpc.h"
#include "mcp/tool_api.h"

namespace kopt::mcp {

// A method's result object, or the JSON-RPC error to answer with.
using MethodResult = std::variant<json, rpc::Error>;

class Registry : public Registrar {
 public:
  // `pageSize`: items per page of every list method. The default returns kopt's whole catalogue in
  // one page, because many clients only ever read the first page.
  explicit Registry(std::size_t pageSize = 200);

  // Registrar. Registration errors (bad tool name, duplicate, schema not an object) are
  // programming errors: they throw std::invalid_argument naming the tool.
  void addTool(ToolSpec tool) override;
  void addResource(ResourceSpec resource) override;
  void addResourceLister(ResourceLister lister) override;
  void addResourceTemplate(ResourceTemplateSpec resourceTemplate) override;
  void addPrompt(PromptSpec prompt) override;
  void notifyResourceUpdated(const std::string& uri) override;

  bool hasTools() const { return !tools_.empty(); }
  bool hasResources() const { return !resources_.empty() || !listers_.empty() || !templates_.empty(); }
  bool hasPrompts() const { return !prompts_.empty(); }
  bool hasCompletions() const { return hasPrompts() || !templates_.empty(); }

  // tools/list, resources/list, resources/templates/list, prompts/list. A bad cursor is -32602;
  // the last page has no nextCursor at all (an empty one makes some clients loop forever).
  MethodResult listTools(const json& params) const;
  MethodResult listResources(const json& params) const;
  MethodResult listResourceTemplates(const json& params) const;
  MethodResult listPrompts(const json& params) const;

  const ToolSpec* findTool(const std::string& name) const;
  std::vector<std::string> toolNames() const;
  // Validates `arguments` against the tool's inputSchema (an isError result naming the field when
  // they do not fit), runs the handler (an exception becomes an isError result), and checks
  // structuredContent against the outputSchema. Used by the server and by `kopt call` alike.
  ToolResult callTool(const ToolSpec& tool, const json& arguments, RequestContext& ctx) const;
  // CallToolResult wire form; structuredContent is mirrored as a text block when content is empty.
  static json toJson(const ToolResult& result);

  MethodResult readResource(const json& params) const;    // resources/read
  MethodResult getPrompt(const json& params) const;       // prompts/get
  MethodResult complete(const json& params) const;        // completion/complete
  // True when `uri` names something resources/read can answer (for resources/subscribe).
  bool resourceExists(const std::string& uri) const;

  // Sessions listen for notifyResourceUpdated; the returned handle removes the listener.
  using UpdateListener = std::function<void(const std::string& uri)>;
  std::size_t addUpdateListener(UpdateListener listener);
  void removeUpdateListener(std::size_t handle);

 private:
  enum class ListKind { Tools, Resources, Templates, Prompts };
  MethodResult page(ListKind kind, const char* key, const json& params, const std::vector<json>& items) const;
  std::vector<ResourceSpec> allResources() const;
  std::optional<std::vector<ResourceContents>> read(const std::string& uri) const;

  std::size_t pageSize_;
  std::vector<ToolSpec> tools_;
  std::map<std::string, std::size_t> toolIndex_;
  std::vector<ResourceSpec> resources_;
  std::vector<ResourceLister> listers_;
  std::vector<ResourceTemplateSpec> templates_;
  std::vector<PromptSpec> prompts_;

  mutable std::mutex listenersMutex_;
  std::map<std::size_t, UpdateListener> listeners_;
  std::size_t nextListener_ = 1;
};

// RFC 6570 level-1 matching ("test://template/{id}/data"): each {var} matches a non-empty run of
// characters other than '/'. Returns the variables, or nullopt when `uri` does not fit.
std::optional<std::vector<std::pair<std::string, std::string>>> matchUriTemplate(const std::string& uriTemplate,
                                                                                 const std::string& uri);

// The tool-name rule kopt holds itself to (portable across LLM providers): ^[a-z0-9_]{1,64}$.
bool isPortableToolName(const std::string& name);

}  // namespace kopt::mcp
