#pragma once
// The MCP protocol binding, transport-agnostic (clangd's ClangdLSPServer is the model): one
// Session per connection (stdio: one for the process; HTTP: one per Mcp-Session-Id) turns
// JSON-RPC messages into registry calls and back. It owns the lifecycle (initialize, version,
// capabilities), runs each tools/call on its own thread so the reader never waits behind tool
// work, and keeps the per-connection state: log level, subscriptions, running calls (for
// notifications/cancelled) and requests this server sent to the client (elicitation, sampling).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "mcp/json_rpc.h"
#include "mcp/registry.h"
#include "mcp/tool_api.h"

namespace kopt::mcp {

struct ServerInfo {
  std::string name = "kopt";
  std::string title = "kopt";
  std::string version = "0.0.0";
  std::string instructions;  // sent in InitializeResult when not empty
};

// Where a session's outgoing messages go. stdio writes them all to one stream; HTTP routes each
// to the stream of the request it belongs to.
class Outbound {
 public:
  virtual ~Outbound() = default;
  // `related`: the client request this message answers or was produced while serving (progress,
  // logs, server->client requests); absent for session-wide messages (resource updates).
  // Returns false when no open channel can carry the message.
  virtual bool send(const json& message, const std::optional<rpc::RequestId>& related) = 0;
  // The request ended without a response (the client cancelled it): release whatever waits for one.
  virtual void finish(const rpc::RequestId& id) { (void)id; }
};

class Session {
 public:
  struct Limits {
    std::size_t maxConcurrentCalls = 64;
  };

  Session(const Registry& registry, ServerInfo info, Outbound& out);
  Session(const Registry& registry, ServerInfo info, Outbound& out, Limits limits);
  ~Session();  // shutdown()
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One framed message as text (a stdio line, an HTTP body): parse errors are answered here.
  void receiveText(std::string_view text);
  // One decoded message, or a batch (an array; only when 2025-03-26 was negotiated).
  void receive(const json& message);

  // Cancels running tool calls and pending client requests, then waits for the call threads.
  // Nothing is answered for the cancelled calls.
  void shutdown();
  // Waits up to `grace` for running tool calls to end on their own; true when none is left.
  bool drain(std::chrono::milliseconds grace);

  bool initialized() const;
  std::string protocolVersion() const;  // empty before initialize
  std::size_t runningCalls() const;

  // The id the response to `message` (a single request or a batch) will be sent as `related`
  // for: the request's id, or for a batch the first valid request id. nullopt when nothing will
  // be answered with a routable id.
  static std::optional<rpc::RequestId> replyRoute(const json& message);

 private:
  struct Call;
  struct PendingClientRequest;
  struct Batch;
  class ToolCallContext;

  void handleMessage(const json& message, const std::shared_ptr<Batch>& batch);
  void handleRequest(const rpc::Request& request, const std::shared_ptr<Batch>& batch);
  void handleNotification(const rpc::Notification& notification);
  void handleResponse(const rpc::Response& response);
  MethodResult dispatch(const rpc::Request& request);
  MethodResult initialize(const json& params);
  MethodResult setLogLevel(const json& params);
  MethodResult subscribe(const json& params, bool on);
  void startToolCall(const rpc::Request& request, const std::shared_ptr<Batch>& batch);
  void runToolCall(std::shared_ptr<Call> call, const ToolSpec* tool, json arguments);

  // Sends the response for `id` (through its batch when it belongs to one).
  void respond(const rpc::RequestId& id, json response, const std::shared_ptr<Batch>& batch);
  // The request `id` ends without a response.
  void respondNothing(const rpc::RequestId& id, const std::shared_ptr<Batch>& batch);
  void batchDone(const std::shared_ptr<Batch>& batch);
  void reapFinishedThreads();  // caller holds mutex_

  // Server -> client request on behalf of a running call.
  std::optional<json> requestClient(const std::string& method, const json& params, std::chrono::milliseconds timeout,
                                    const rpc::RequestId& related, const CancellationToken& token,
                                    std::string* error);
  void sendProgress(Call& call, double progress, std::optional<double> total, const std::string& message);
  void sendLog(const std::optional<rpc::RequestId>& related, LogLevel level, const std::string& logger, const json& data);

  const Registry& registry_;
  const ServerInfo info_;
  Outbound& out_;
  const Limits limits_;

  mutable std::mutex mutex_;
  bool initialized_ = false;
  bool shuttingDown_ = false;
  std::string protocolVersion_;
  ClientInfo client_;
  LogLevel logLevel_ = LogLevel::Info;
  std::set<std::string> subscriptions_;
  std::map<std::string, std::shared_ptr<Call>> calls_;  // by request id key
  std::map<std::string, std::shared_ptr<PendingClientRequest>> pending_;
  std::int64_t nextClientRequestId_ = 1;
  std::list<std::thread> threads_;
  std::vector<std::thread::id> exited_;
  std::condition_variable callsDone_;
  std::size_t listenerHandle_ = 0;
};

// RFC 5424 level names used by logging/setLevel and notifications/message.
const char* logLevelName(LogLevel level);
std::optional<LogLevel> parseLogLevel(const std::string& name);

}  // namespace kopt::mcp
