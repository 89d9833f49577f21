#include "mcp/server.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "mcp/protocol_version.h"

namespace kopt::mcp {

namespace {

rpc::Error methodNotFound(const std::string& method) {
  return rpc::Error(rpc::ErrorCode::MethodNotFound, "Method not found: " + method);
}

rpc::Error invalidParams(std::string message) { return rpc::Error(rpc::ErrorCode::InvalidParams, std::move(message)); }

json toResponse(const rpc::RequestId& id, MethodResult outcome) {
  if (auto* error = std::get_if<rpc::Error>(&outcome)) return rpc::errorResponse(id, *error);
  return rpc::resultResponse(id, std::move(std::get<json>(outcome)));
}

// Which client capability a server->client method needs.
const char* requiredClientCapability(const std::string& method) {
  if (method == "elicitation/create") return "elicitation";
  if (method == "sampling/createMessage") return "sampling";
  if (method == "roots/list") return "roots";
  return nullptr;
}

}  // namespace

const char* logLevelName(LogLevel level) {
  static const char* names[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
  return names[static_cast<int>(level)];
}

std::optional<LogLevel> parseLogLevel(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(LogLevel::Emergency); ++i) {
    if (name == logLevelName(static_cast<LogLevel>(i))) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

// One running tools/call.
struct Session::Call {
  rpc::RequestId id;
  std::string tool;
  CancellationToken token;
  std::optional<json> progressToken;
  double lastProgress = -INFINITY;
  bool finished = false;   // handler returned: no more progress for this token
  bool cancelled = false;  // notifications/cancelled arrived: no response
  std::shared_ptr<Batch> batch;
  ClientInfo client;
};

// A request this server sent to the client, waiting for its response.
struct Session::PendingClientRequest {
  std::mutex mutex;
  std::condition_variable cv;
  std::optional<rpc::Response> response;
};

// A JSON-RPC batch (2025-03-26 only): responses are collected and sent as one array once every
// request in it has been answered or cancelled.
struct Session::Batch {
  std::optional<rpc::RequestId> route;
  std::set<std::string> waiting;  // request id keys still unanswered
  json responses = json::array();
  bool sealed = false;  // every element of the array has been dispatched
};

class Session::ToolCallContext : public RequestContext {
 public:
  ToolCallContext(Session& session, std::shared_ptr<Call> call) : session_(session), call_(std::move(call)) {}
  void progress(double progress, std::optional<double> total, std::string message) override {
    session_.sendProgress(*call_, progress, total, message);
  }
  void log(LogLevel level, const std::string& logger, const json& data) override {
    session_.sendLog(call_->id, level, logger, data);
  }
  const CancellationToken& cancellation() const override { return call_->token; }
  const ClientInfo& client() const override { return call_->client; }
  std::optional<json> requestClient(const std::string& method, const json& params, std::chrono::milliseconds timeout,
                                    std::string* error) override {
    return session_.requestClient(method, params, timeout, call_->id, call_->token, error);
  }

 private:
  Session& session_;
  std::shared_ptr<Call> call_;
};

Session::Session(const Registry& registry, ServerInfo info, Outbound& out)
    : Session(registry, std::move(info), out, Limits{}) {}

Session::Session(const Registry& registry, ServerInfo info, Outbound& out, Limits limits)
    : registry_(registry), info_(std::move(info)), out_(out), limits_(limits) {
  listenerHandle_ = const_cast<Registry&>(registry_).addUpdateListener([this](const std::string& uri) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shuttingDown_ || !subscriptions_.count(uri)) return;
    }
    out_.send(rpc::toJson(rpc::Notification{"notifications/resources/updated", json{{"uri", uri}}}), std::nullopt);
  });
}

Session::~Session() {
  shutdown();
  const_cast<Registry&>(registry_).removeUpdateListener(listenerHandle_);
}

bool Session::initialized() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return initialized_;
}

std::string Session::protocolVersion() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return protocolVersion_;
}

std::size_t Session::runningCalls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_.size();
}

std::optional<rpc::RequestId> Session::replyRoute(const json& message) {
  auto idOf = [](const json& m) -> std::optional<rpc::RequestId> {
    if (!m.is_object() || !m.contains("method") || !m.contains("id")) return std::nullopt;
    return rpc::RequestId::fromJson(m["id"]);
  };
  if (!message.is_array()) return idOf(message);
  for (const auto& element : message) {
    if (auto id = idOf(element)) return id;
  }
  return std::nullopt;
}

void Session::receiveText(std::string_view text) {
  rpc::Error error;
  auto message = rpc::parseJson(text, &error);
  if (!message) {
    out_.send(rpc::errorResponse(std::nullopt, error), std::nullopt);
    return;
  }
  receive(*message);
}

void Session::receive(const json& message) {
  if (!message.is_array()) {
    handleMessage(message, nullptr);
    return;
  }
  if (!protocolAllowsBatches(protocolVersion())) {
    out_.send(rpc::errorResponse(std::nullopt, rpc::Error(rpc::ErrorCode::InvalidRequest,
                                                          "Invalid Request: JSON-RPC batches are only accepted when "
                                                          "protocol version 2025-03-26 was negotiated; send one "
                                                          "message at a time")),
              replyRoute(message));
    return;
  }
  if (message.empty()) {
    out_.send(rpc::errorResponse(std::nullopt, rpc::Error(rpc::ErrorCode::InvalidRequest, "Invalid Request: empty batch")),
              std::nullopt);
    return;
  }
  auto batch = std::make_shared<Batch>();
  batch->route = replyRoute(message);
  for (const auto& element : message) handleMessage(element, batch);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch->sealed = true;
  }
  batchDone(batch);
}

void Session::handleMessage(const json& message, const std::shared_ptr<Batch>& batch) {
  auto classified = rpc::classify(message);
  if (auto* invalid = std::get_if<rpc::Invalid>(&classified)) {
    if (invalid->isNotification) return;  // never answer a notification, even a broken one
    json response = rpc::errorResponse(invalid->id, invalid->error);
    if (batch) {
      std::lock_guard<std::mutex> lock(mutex_);
      batch->responses.push_back(std::move(response));
      return;
    }
    out_.send(response, invalid->id);
    return;
  }
  auto& msg = std::get<rpc::Message>(classified);
  if (auto* request = std::get_if<rpc::Request>(&msg)) return handleRequest(*request, batch);
  if (auto* notification = std::get_if<rpc::Notification>(&msg)) return handleNotification(*notification);
  handleResponse(std::get<rpc::Response>(msg));
}

void Session::handleRequest(const rpc::Request& request, const std::shared_ptr<Batch>& batch) {
  if (batch) {
    std::lock_guard<std::mutex> lock(mutex_);
    batch->waiting.insert(request.id.key());
  }
  if (request.method == "tools/call") {
    startToolCall(request, batch);
    return;
  }
  MethodResult outcome;
  try {
    outcome = dispatch(request);
  } catch (const std::exception& e) {
    // A bug in a handler must not take the connection down; the client gets -32603 instead.
    outcome = rpc::Error(rpc::ErrorCode::InternalError, std::string("Internal error: ") + e.what());
  }
  respond(request.id, toResponse(request.id, std::move(outcome)), batch);
}

MethodResult Session::dispatch(const rpc::Request& request) {
  const std::string& method = request.method;
  if (method == "ping") return json::object();
  if (method == "initialize") return initialize(request.params);
  if (!initialized()) {
    return rpc::Error(rpc::ErrorCode::InvalidRequest,
                      "Invalid Request: the session is not initialized; send initialize first (got " + method + ")");
  }
  if (method == "tools/list" && registry_.hasTools()) return registry_.listTools(request.params);
  if (method == "resources/list" && registry_.hasResources()) return registry_.listResources(request.params);
  if (method == "resources/templates/list" && registry_.hasResources()) {
    return registry_.listResourceTemplates(request.params);
  }
  if (method == "resources/read" && registry_.hasResources()) return registry_.readResource(request.params);
  if (method == "resources/subscribe" && registry_.hasResources()) return subscribe(request.params, true);
  if (method == "resources/unsubscribe" && registry_.hasResources()) return subscribe(request.params, false);
  if (method == "prompts/list" && registry_.hasPrompts()) return registry_.listPrompts(request.params);
  if (method == "prompts/get" && registry_.hasPrompts()) return registry_.getPrompt(request.params);
  if (method == "completion/complete" && registry_.hasCompletions()) return registry_.complete(request.params);
  if (method == "logging/setLevel") return setLogLevel(request.params);
  return methodNotFound(method);
}

MethodResult Session::initialize(const json& params) {
  if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string()) {
    return rpc::Error(rpc::ErrorCode::InvalidParams, "initialize needs params.protocolVersion (a string)",
                      json{{"supported", supportedProtocolVersions()}});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (initialized_) {
    return rpc::Error(rpc::ErrorCode::InvalidRequest, "Invalid Request: the session is already initialized");
  }
  initialized_ = true;
  protocolVersion_ = negotiateProtocolVersion(params["protocolVersion"].get<std::string>());
  client_.protocolVersion = protocolVersion_;
  if (params.contains("capabilities") && params["capabilities"].is_object()) client_.capabilities = params["capabilities"];
  if (params.contains("clientInfo") && params["clientInfo"].is_object()) {
    client_.name = params["clientInfo"].value("name", "");
    client_.version = params["clientInfo"].value("version", "");
  }

  // Declare only what exists: clients trust capabilities to decide what to call.
  json capabilities = json::object();
  if (registry_.hasTools()) capabilities["tools"] = json::object();
  if (registry_.hasResources()) capabilities["resources"] = json{{"subscribe", true}};
  if (registry_.hasPrompts()) capabilities["prompts"] = json::object();
  if (registry_.hasCompletions()) capabilities["completions"] = json::object();
  capabilities["logging"] = json::object();

  json serverInfo{{"name", info_.name}, {"version", info_.version}};
  if (!info_.title.empty()) serverInfo["title"] = info_.title;
  json result{{"protocolVersion", protocolVersion_}, {"capabilities", capabilities}, {"serverInfo", serverInfo}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  return result;
}

MethodResult Session::setLogLevel(const json& params) {
  const std::string name = params.value("level", json()).is_string() ? params["level"].get<std::string>() : "";
  auto level = parseLogLevel(name);
  if (!level) {
    return invalidParams("logging/setLevel: level must be one of debug, info, notice, warning, error, critical, "
                         "alert, emergency");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  logLevel_ = *level;
  return json::object();
}

MethodResult Session::subscribe(const json& params, bool on) {
  if (!params.contains("uri") || !params["uri"].is_string()) {
    return invalidParams(std::string(on ? "resources/subscribe" : "resources/unsubscribe") + " needs params.uri (a string)");
  }
  const std::string uri = params["uri"].get<std::string>();
  if (on && !registry_.resourceExists(uri)) {
    return rpc::Error(rpc::ErrorCode::ResourceNotFound, "Resource not found: " + uri, json{{"uri", uri}});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (on) subscriptions_.insert(uri);
  else subscriptions_.erase(uri);
  return json::object();
}

void Session::startToolCall(const rpc::Request& request, const std::shared_ptr<Batch>& batch) {
  auto fail = [&](rpc::Error error) { respond(request.id, rpc::errorResponse(request.id, error), batch); };
  if (!initialized()) {
    return fail(rpc::Error(rpc::ErrorCode::InvalidRequest, "Invalid Request: the session is not initialized; send initialize first"));
  }
  if (!registry_.hasTools()) return fail(methodNotFound("tools/call"));
  const json& params = request.params;
  if (!params.contains("name") || !params["name"].is_string()) return fail(invalidParams("tools/call needs params.name (a string)"));
  const std::string name = params["name"].get<std::string>();
  const ToolSpec* tool = registry_.findTool(name);
  if (!tool) {
    return fail(rpc::Error(rpc::ErrorCode::InvalidParams, "Unknown tool: " + name, json{{"name", name}}));
  }
  json arguments = json::object();
  if (params.contains("arguments") && !params["arguments"].is_null()) {
    if (!params["arguments"].is_object()) return fail(invalidParams("tools/call: params.arguments must be an object"));
    arguments = params["arguments"];
  }

  auto call = std::make_shared<Call>();
  call->id = request.id;
  call->tool = name;
  call->batch = batch;
  if (params.contains("_meta") && params["_meta"].is_object() && params["_meta"].contains("progressToken")) {
    const json& token = params["_meta"]["progressToken"];
    if (token.is_string() || token.is_number_integer()) call->progressToken = token;
  }

  std::optional<rpc::Error> refused;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shuttingDown_) return;  // the connection is going away; nobody would read the answer
    if (calls_.count(request.id.key())) {
      // Reusing the id of a running call would make cancellation and routing ambiguous.
      refused = rpc::Error(rpc::ErrorCode::InvalidRequest, "Invalid Request: request id is already in use by a running call");
    } else if (calls_.size() >= limits_.maxConcurrentCalls) {
      refused = rpc::Error(rpc::ErrorCode::InternalError, "Too many concurrent tool calls (limit " +
                                                              std::to_string(limits_.maxConcurrentCalls) +
                                                              "); wait for one to finish");
    } else {
      call->client = client_;
      calls_[request.id.key()] = call;
      reapFinishedThreads();
      threads_.emplace_back([this, call, tool, arguments = std::move(arguments)]() mutable {
        runToolCall(call, tool, std::move(arguments));
      });
    }
  }
  if (refused) fail(*refused);
}

bool Session::drain(std::chrono::milliseconds grace) {
  std::unique_lock<std::mutex> lock(mutex_);
  return callsDone_.wait_for(lock, grace, [&] { return calls_.empty(); });
}

void Session::runToolCall(std::shared_ptr<Call> call, const ToolSpec* tool, json arguments) {
  ToolCallContext ctx(*this, call);
  ToolResult result = registry_.callTool(*tool, arguments, ctx);
  json response = rpc::resultResponse(call->id, Registry::toJson(result));
  bool cancelled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    call->finished = true;
    cancelled = call->cancelled;
    calls_.erase(call->id.key());
  }
  if (cancelled) respondNothing(call->id, call->batch);
  else respond(call->id, std::move(response), call->batch);
  std::lock_guard<std::mutex> lock(mutex_);
  exited_.push_back(std::this_thread::get_id());
  callsDone_.notify_all();
}

void Session::reapFinishedThreads() {
  for (auto id : exited_) {
    auto it = std::find_if(threads_.begin(), threads_.end(), [&](const std::thread& t) { return t.get_id() == id; });
    if (it != threads_.end()) {
      it->join();  // it already left runToolCall; this returns at once
      threads_.erase(it);
    }
  }
  exited_.clear();
}

void Session::respond(const rpc::RequestId& id, json response, const std::shared_ptr<Batch>& batch) {
  if (!batch) {
    out_.send(response, id);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch->waiting.erase(id.key());
    batch->responses.push_back(std::move(response));
  }
  batchDone(batch);
}

void Session::respondNothing(const rpc::RequestId& id, const std::shared_ptr<Batch>& batch) {
  if (!batch) {
    out_.finish(id);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch->waiting.erase(id.key());
  }
  batchDone(batch);
}

void Session::batchDone(const std::shared_ptr<Batch>& batch) {
  json responses;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!batch->sealed || !batch->waiting.empty() || batch->responses.is_null()) return;
    responses = std::move(batch->responses);
    batch->responses = json();  // marks the batch as sent
  }
  if (!responses.empty()) out_.send(responses, batch->route);
  else if (batch->route) out_.finish(*batch->route);
}

void Session::handleNotification(const rpc::Notification& notification) {
  if (notification.method == "notifications/cancelled") {
    const json& params = notification.params;
    if (!params.contains("requestId")) return;
    auto id = rpc::RequestId::fromJson(params["requestId"]);
    if (!id) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = calls_.find(id->key());
    // Unknown or already finished: the race is allowed and the notification is ignored.
    if (it == calls_.end() || it->second->finished) return;
    it->second->cancelled = true;
    it->second->token.cancel();
    return;
  }
  // notifications/initialized, roots/list_changed and anything unknown need no action.
}

void Session::handleResponse(const rpc::Response& response) {
  std::shared_ptr<PendingClientRequest> pending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(response.id.key());
    if (it == pending_.end()) return;  // late answer to a request that timed out: drop it
    pending = it->second;
    pending_.erase(it);
  }
  std::lock_guard<std::mutex> lock(pending->mutex);
  pending->response = response;
  pending->cv.notify_all();
}

std::optional<json> Session::requestClient(const std::string& method, const json& params,
                                           std::chrono::milliseconds timeout, const rpc::RequestId& related,
                                           const CancellationToken& token, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<json> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  auto pending = std::make_shared<PendingClientRequest>();
  rpc::RequestId id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shuttingDown_) return fail("the session is closing");
    if (const char* capability = requiredClientCapability(method); capability && !client_.capabilities.contains(capability)) {
      return fail(std::string("the client did not declare the '") + capability + "' capability needed for " + method);
    }
    id = rpc::RequestId(nextClientRequestId_++);
    pending_[id.key()] = pending;
  }
  if (!out_.send(rpc::toJson(rpc::Request{id, method, params}), related)) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.erase(id.key());
    return fail("no open channel to the client for " + method +
                " (over HTTP the tools/call request must accept text/event-stream)");
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(pending->mutex);
  while (!pending->response) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || token.cancelled()) break;
    // Wake up regularly to notice cancellation: the token has no way to notify a condition variable.
    pending->cv.wait_for(lock, std::min<std::chrono::steady_clock::duration>(deadline - now, std::chrono::milliseconds(50)));
  }
  if (pending->response) {
    if (pending->response->error) return fail(method + " failed on the client: " + pending->response->error->message);
    return pending->response->result.value_or(json::object());
  }
  lock.unlock();
  {
    std::lock_guard<std::mutex> sessionLock(mutex_);
    pending_.erase(id.key());
  }
  const bool cancelled = token.cancelled();
  out_.send(rpc::toJson(rpc::Notification{"notifications/cancelled",
                                          json{{"requestId", id.toJson()},
                                               {"reason", cancelled ? "the tool call was cancelled" : "timed out"}}}),
            related);
  return fail(cancelled ? method + " abandoned: the tool call was cancelled"
                        : method + " timed out after " + std::to_string(timeout.count()) + " ms");
}

void Session::sendProgress(Call& call, double progress, std::optional<double> total, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Only for calls that asked, only while running, and strictly increasing (the spec's MUSTs).
    if (!call.progressToken || call.finished || call.cancelled || !(progress > call.lastProgress)) return;
    call.lastProgress = progress;
  }
  json params{{"progressToken", *call.progressToken}, {"progress", progress}};
  if (total) params["total"] = *total;
  if (!message.empty()) params["message"] = message;
  out_.send(rpc::toJson(rpc::Notification{"notifications/progress", std::move(params)}), call.id);
}

void Session::sendLog(const std::optional<rpc::RequestId>& related, LogLevel level, const std::string& logger,
                      const json& data) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (level < logLevel_) return;
  }
  json params{{"level", logLevelName(level)}, {"data", data}};
  if (!logger.empty()) params["logger"] = logger;
  out_.send(rpc::toJson(rpc::Notification{"notifications/message", std::move(params)}), related);
}

void Session::shutdown() {
  std::list<std::thread> threads;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    shuttingDown_ = true;
    for (auto& [key, call] : calls_) {
      call->cancelled = true;
      call->token.cancel();
    }
    for (auto& [key, pending] : pending_) {
      std::lock_guard<std::mutex> pendingLock(pending->mutex);
      pending->response = rpc::Response{rpc::RequestId(), std::nullopt,
                                        rpc::Error(rpc::ErrorCode::InternalError, "the session is closing")};
      pending->cv.notify_all();
    }
    pending_.clear();
    threads.swap(threads_);
    exited_.clear();
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace kopt::mcp
