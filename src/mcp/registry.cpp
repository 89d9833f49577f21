#include "mcp/registry.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "mcp/schema_validation.h"

namespace kopt::mcp {

namespace {

rpc::Error invalidParams(std::string message, std::optional<json> data = std::nullopt) {
  return rpc::Error(rpc::ErrorCode::InvalidParams, std::move(message), std::move(data));
}

// Cursors are opaque to clients; inside they are "<list>:<offset>" in hex so that a cursor from
// one list cannot page another and a hand-made one is recognisably invalid.
std::string toHex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::optional<std::string> fromHex(const std::string& s) {
  if (s.size() % 2) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    int hi = nibble(s[i]), lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

const char* kindName(int kind) {
  static const char* names[] = {"tools", "resources", "templates", "prompts"};
  return names[kind];
}

json resourceContentsJson(const ResourceContents& c) {
  json out{{"uri", c.uri}};
  if (!c.mimeType.empty()) out["mimeType"] = c.mimeType;
  if (c.blobBase64) out["blob"] = *c.blobBase64;
  else out["text"] = c.text.value_or("");
  return out;
}

json resourceJson(const ResourceSpec& r) {
  json out{{"uri", r.uri}, {"name", r.name}};
  if (!r.title.empty()) out["title"] = r.title;
  if (!r.description.empty()) out["description"] = r.description;
  if (!r.mimeType.empty()) out["mimeType"] = r.mimeType;
  return out;
}

json annotationsJson(const ToolAnnotations& a) {
  json out = json::object();
  if (a.readOnlyHint) out["readOnlyHint"] = *a.readOnlyHint;
  if (a.destructiveHint) out["destructiveHint"] = *a.destructiveHint;
  if (a.idempotentHint) out["idempotentHint"] = *a.idempotentHint;
  if (a.openWorldHint) out["openWorldHint"] = *a.openWorldHint;
  return out;
}

json toolJson(const ToolSpec& t) {
  json out{{"name", t.name}, {"description", t.description}, {"inputSchema", t.inputSchema}};
  if (!t.title.empty()) out["title"] = t.title;
  if (t.outputSchema) out["outputSchema"] = *t.outputSchema;
  json annotations = annotationsJson(t.annotations);
  if (!annotations.empty()) out["annotations"] = std::move(annotations);
  return out;
}

}  // namespace

bool isPortableToolName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

std::optional<std::vector<std::pair<std::string, std::string>>> matchUriTemplate(const std::string& uriTemplate,
                                                                                 const std::string& uri) {
  std::vector<std::pair<std::string, std::string>> vars;
  size_t t = 0, u = 0;
  while (t < uriTemplate.size()) {
    if (uriTemplate[t] != '{') {
      if (u >= uri.size() || uri[u] != uriTemplate[t]) return std::nullopt;
      ++t;
      ++u;
      continue;
    }
    const size_t close = uriTemplate.find('}', t);
    if (close == std::string::npos) return std::nullopt;
    const std::string name = uriTemplate.substr(t + 1, close - t - 1);
    t = close + 1;
    // The variable runs up to the next literal character of the template (or '/' / the end).
    const char stop = t < uriTemplate.size() ? uriTemplate[t] : '\0';
    size_t end = u;
    while (end < uri.size() && uri[end] != '/' && (stop == '\0' || uri[end] != stop)) ++end;
    if (end == u) return std::nullopt;
    vars.emplace_back(name, uri.substr(u, end - u));
    u = end;
  }
  if (u != uri.size()) return std::nullopt;
  return vars;
}

Registry::Registry(std::size_t pageSize) : pageSize_(pageSize == 0 ? 1 : pageSize) {}

void Registry::addTool(ToolSpec tool) {
  if (!isPortableToolName(tool.name)) {
    throw std::invalid_argument("tool name '" + tool.name +
                                "' is not portable: use 1-64 characters of [a-z0-9_] (snake_case)");
  }
  if (toolIndex_.count(tool.name)) throw std::invalid_argument("tool '" + tool.name + "' is registered twice");
  if (!tool.inputSchema.is_object() || tool.inputSchema.value("type", "") != "object") {
    throw std::invalid_argument("tool '" + tool.name + "': inputSchema must be a JSON Schema object of type \"object\"");
  }
  if (tool.outputSchema && (!tool.outputSchema->is_object() || tool.outputSchema->value("type", "") != "object")) {
    throw std::invalid_argument("tool '" + tool.name + "': outputSchema must be of type \"object\"");
  }
  if (tool.description.empty()) throw std::invalid_argument("tool '" + tool.name + "' needs a description");
  if (!tool.handler) throw std::invalid_argument("tool '" + tool.name + "' has no handler");
  toolIndex_[tool.name] = tools_.size();
  tools_.push_back(std::move(tool));
}

void Registry::addResource(ResourceSpec resource) {
  if (resource.uri.empty() || resource.name.empty() || !resource.read) {
    throw std::invalid_argument("resource '" + resource.uri + "' needs a uri, a name and a read function");
  }
  resources_.push_back(std::move(resource));
}

void Registry::addResourceLister(ResourceLister lister) {
  if (!lister) throw std::invalid_argument("empty resource lister");
  listers_.push_back(std::move(lister));
}

void Registry::addResourceTemplate(ResourceTemplateSpec resourceTemplate) {
  if (resourceTemplate.uriTemplate.empty() || resourceTemplate.name.empty() || !resourceTemplate.read) {
    throw std::invalid_argument("resource template '" + resourceTemplate.uriTemplate +
                                "' needs a uriTemplate, a name and a read function");
  }
  templates_.push_back(std::move(resourceTemplate));
}

void Registry::addPrompt(PromptSpec prompt) {
  if (prompt.name.empty() || !prompt.get) throw std::invalid_argument("prompt '" + prompt.name + "' needs a name and a get function");
  for (const auto& p : prompts_) {
    if (p.name == prompt.name) throw std::invalid_argument("prompt '" + prompt.name + "' is registered twice");
  }
  prompts_.push_back(std::move(prompt));
}

void Registry::notifyResourceUpdated(const std::string& uri) {
  // Listeners run under the lock so that a session cannot be torn down mid-call; they only queue
  // a notification, never call back into the registry.
  std::lock_guard<std::mutex> lock(listenersMutex_);
  for (auto& [handle, listener] : listeners_) listener(uri);
}

std::size_t Registry::addUpdateListener(UpdateListener listener) {
  std::lock_guard<std::mutex> lock(listenersMutex_);
  const std::size_t handle = nextListener_++;
  listeners_[handle] = std::move(listener);
  return handle;
}

void Registry::removeUpdateListener(std::size_t handle) {
  std::lock_guard<std::mutex> lock(listenersMutex_);
  listeners_.erase(handle);
}

MethodResult Registry::page(ListKind kind, const char* key, const json& params, const std::vector<json>& items) const {
  const int k = static_cast<int>(kind);
  std::size_t offset = 0;
  if (params.contains("cursor") && !params["cursor"].is_null()) {
    const json& cursor = params["cursor"];
    std::optional<std::string> decoded = cursor.is_string() ? fromHex(cursor.get<std::string>()) : std::nullopt;
    const std::string prefix = std::string(kindName(k)) + ":";
    bool ok = decoded && decoded->rfind(prefix, 0) == 0 && decoded->size() > prefix.size();
    if (ok) {
      const std::string digits = decoded->substr(prefix.size());
      ok = std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) && digits.size() < 10;
      if (ok) offset = std::stoul(digits);
      ok = ok && offset > 0 && offset < items.size();
    }
    if (!ok) {
      return invalidParams("Invalid cursor: pass the nextCursor of the previous " + std::string(kindName(k)) +
                               " page, or none for the first page",
                           json{{"cursor", cursor}});
    }
  }
  const std::size_t end = std::min(items.size(), offset + pageSize_);
  json result{{key, json::array()}};
  for (std::size_t i = offset; i < end; ++i) result[key].push_back(items[i]);
  if (end < items.size()) result["nextCursor"] = toHex(std::string(kindName(k)) + ":" + std::to_string(end));
  return result;
}

MethodResult Registry::listTools(const json& params) const {
  std::vector<json> items;
  for (const auto& t : tools_) items.push_back(toolJson(t));
  return page(ListKind::Tools, "tools", params, items);
}

std::vector<ResourceSpec> Registry::allResources() const {
  std::vector<ResourceSpec> all = resources_;
  for (const auto& lister : listers_) {
    for (auto& r : lister()) all.push_back(std::move(r));
  }
  return all;
}

MethodResult Registry::listResources(const json& params) const {
  std::vector<json> items;
  for (const auto& r : allResources()) items.push_back(resourceJson(r));
  return page(ListKind::Resources, "resources", params, items);
}

MethodResult Registry::listResourceTemplates(const json& params) const {
  std::vector<json> items;
  for (const auto& t : templates_) {
    json item{{"uriTemplate", t.uriTemplate}, {"name", t.name}};
    if (!t.title.empty()) item["title"] = t.title;
    if (!t.description.empty()) item["description"] = t.description;
    if (!t.mimeType.empty()) item["mimeType"] = t.mimeType;
    items.push_back(std::move(item));
  }
  return page(ListKind::Templates, "resourceTemplates", params, items);
}

MethodResult Registry::listPrompts(const json& params) const {
  std::vector<json> items;
  for (const auto& p : prompts_) {
    json item{{"name", p.name}, {"description", p.description}};
    if (!p.title.empty()) item["title"] = p.title;
    if (!p.arguments.empty()) {
      item["arguments"] = json::array();
      for (const auto& a : p.arguments) {
        json arg{{"name", a.name}, {"required", a.required}};
        if (!a.description.empty()) arg["description"] = a.description;
        item["arguments"].push_back(std::move(arg));
      }
    }
    items.push_back(std::move(item));
  }
  return page(ListKind::Prompts, "prompts", params, items);
}

const ToolSpec* Registry::findTool(const std::string& name) const {
  auto it = toolIndex_.find(name);
  return it == toolIndex_.end() ? nullptr : &tools_[it->second];
}

std::vector<std::string> Registry::toolNames() const {
  std::vector<std::string> names;
  for (const auto& t : tools_) names.push_back(t.name);
  return names;
}

ToolResult Registry::callTool(const ToolSpec& tool, const json& arguments, RequestContext& ctx) const {
  if (auto violation = validateAgainstSchema(arguments, tool.inputSchema)) {
    if (violation->path.empty()) return ToolResult::error("arguments " + violation->message, "", violation->fix);
    return ToolResult::error(violation->message, violation->path, violation->fix);
  }
  ToolResult result;
  try {
    result = tool.handler(arguments, ctx);
  } catch (const std::exception& e) {
    return ToolResult::error("internal error in tool '" + tool.name + "': " + e.what());
  } catch (...) {
    return ToolResult::error("internal error in tool '" + tool.name + "'");
  }
  if (tool.outputSchema && !result.isError) {
    // The spec makes conformance to the declared outputSchema a MUST; a tool that breaks its own
    // promise reports that instead of sending data clients would reject.
    if (!result.structuredContent) {
      return ToolResult::error("tool '" + tool.name + "' declares an outputSchema but returned no structuredContent");
    }
    if (auto violation = validateAgainstSchema(*result.structuredContent, *tool.outputSchema)) {
      return ToolResult::error("tool '" + tool.name + "' returned structuredContent that does not match its outputSchema: " +
                               (violation->path.empty() ? "value" : violation->path) + " " + violation->message);
    }
  }
  return result;
}

json Registry::toJson(const ToolResult& result) {
  json out{{"content", json::array()}};
  for (const auto& c : result.content) out["content"].push_back(c);
  if (result.structuredContent) {
    if (result.content.empty()) out["content"].push_back(textContent(rpc::serialize(*result.structuredContent)));
    out["structuredContent"] = *result.structuredContent;
  }
  if (result.isError) out["isError"] = true;
  return out;
}

std::optional<std::vector<ResourceContents>> Registry::read(const std::string& uri) const {
  for (const auto& r : resources_) {
    if (r.uri == uri) return r.read();
  }
  for (const auto& lister : listers_) {
    for (const auto& r : lister()) {
      if (r.uri == uri) return r.read();
    }
  }
  for (const auto& t : templates_) {
    if (auto vars = matchUriTemplate(t.uriTemplate, uri)) {
      if (auto contents = t.read(uri, *vars)) return contents;
    }
  }
  return std::nullopt;
}

bool Registry::resourceExists(const std::string& uri) const {
  for (const auto& r : allResources()) {
    if (r.uri == uri) return true;
  }
  for (const auto& t : templates_) {
    if (matchUriTemplate(t.uriTemplate, uri)) return true;
  }
  return false;
}

MethodResult Registry::readResource(const json& params) const {
  if (!params.contains("uri") || !params["uri"].is_string()) {
    return invalidParams("resources/read needs params.uri (a string)");
  }
  const std::string uri = params["uri"].get<std::string>();
  std::optional<std::vector<ResourceContents>> contents;
  try {
    contents = read(uri);
  } catch (const std::exception& e) {
    return rpc::Error(rpc::ErrorCode::InternalError, "reading " + uri + " failed: " + e.what());
  }
  if (!contents) {
    return rpc::Error(rpc::ErrorCode::ResourceNotFound, "Resource not found: " + uri, json{{"uri", uri}});
  }
  json result{{"contents", json::array()}};
  for (const auto& c : *contents) result["contents"].push_back(resourceContentsJson(c));
  return result;
}

MethodResult Registry::getPrompt(const json& params) const {
  if (!params.contains("name") || !params["name"].is_string()) return invalidParams("prompts/get needs params.name (a string)");
  const std::string name = params["name"].get<std::string>();
  auto it = std::find_if(prompts_.begin(), prompts_.end(), [&](const PromptSpec& p) { return p.name == name; });
  if (it == prompts_.end()) return invalidParams("Unknown prompt: " + name, json{{"name", name}});
  json arguments = params.value("arguments", json::object());
  if (!arguments.is_object()) return invalidParams("prompts/get: arguments must be an object of strings");
  for (auto a = arguments.begin(); a != arguments.end(); ++a) {
    if (!a.value().is_string()) return invalidParams("prompts/get: argument '" + a.key() + "' must be a string");
  }
  for (const auto& a : it->arguments) {
    if (a.required && !arguments.contains(a.name)) {
      return invalidParams("prompt '" + name + "' needs argument '" + a.name + "'" +
                               (a.description.empty() ? "" : ": " + a.description),
                           json{{"argument", a.name}});
    }
  }
  std::vector<PromptMessage> messages;
  try {
    messages = it->get(arguments);
  } catch (const std::exception& e) {
    return rpc::Error(rpc::ErrorCode::InternalError, "prompt '" + name + "' failed: " + e.what());
  }
  json result{{"messages", json::array()}};
  if (!it->description.empty()) result["description"] = it->description;
  for (const auto& m : messages) result["messages"].push_back(json{{"role", m.role}, {"content", m.content}});
  return result;
}

MethodResult Registry::complete(const json& params) const {
  const json ref = params.value("ref", json());
  const json argument = params.value("argument", json());
  if (!ref.is_object() || !ref.contains("type") || !ref["type"].is_string()) {
    return invalidParams("completion/complete needs params.ref {type: \"ref/prompt\"|\"ref/resource\", ...}");
  }
  if (!argument.is_object() || !argument.contains("name") || !argument["name"].is_string() ||
      !argument.contains("value") || !argument["value"].is_string()) {
    return invalidParams("completion/complete needs params.argument {name, value} (strings)");
  }
  const std::string type = ref["type"].get<std::string>();
  const std::string argName = argument["name"].get<std::string>();
  const std::string prefix = argument["value"].get<std::string>();
  std::vector<std::string> values;
  if (type == "ref/prompt") {
    const std::string name = ref.value("name", "");
    auto it = std::find_if(prompts_.begin(), prompts_.end(), [&](const PromptSpec& p) { return p.name == name; });
    if (it == prompts_.end()) return invalidParams("Unknown prompt: " + name, json{{"name", name}});
    if (it->complete) {
      try {
        values = it->complete(argName, prefix);
      } catch (const std::exception& e) {
        return rpc::Error(rpc::ErrorCode::InternalError, std::string("completion failed: ") + e.what());
      }
    }
  } else if (type == "ref/resource") {
    const std::string uri = ref.value("uri", "");
    const bool known = std::any_of(templates_.begin(), templates_.end(),
                                   [&](const ResourceTemplateSpec& t) { return t.uriTemplate == uri; }) ||
                       resourceExists(uri);
    if (!known) return invalidParams("Unknown resource or template: " + uri, json{{"uri", uri}});
  } else {
    return invalidParams("Unknown completion ref type: " + type + " (use ref/prompt or ref/resource)");
  }
  const std::size_t total = values.size();
  if (values.size() > 100) values.resize(100);  // the spec caps one answer at 100 values
  json completion{{"values", values}, {"total", total}, {"hasMore", total > values.size()}};
  return json{{"completion", completion}};
}

}  // namespace kopt::mcp
