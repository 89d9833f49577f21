#pragma once
// A minimal MCP client over stdio, used by `kopt demo` to drive a real `kopt serve` child process
// through the protocol exactly as an agent would (initialize, tools/call, notifications). It is not
// a general SDK: one request in flight at a time, notifications collected for display.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::cli {

class McpStdioClient {
 public:
  using json = nlohmann::json;
  // Called for every notification the server sends while a request is in flight
  // (notifications/progress, notifications/message, ...).
  using NotificationHandler = std::function<void(const json& notification)>;

  // Starts `argv` with its stdin/stdout connected to this client; stderr is inherited.
  explicit McpStdioClient(const std::vector<std::string>& argv);
  ~McpStdioClient();
  McpStdioClient(const McpStdioClient&) = delete;
  McpStdioClient& operator=(const McpStdioClient&) = delete;

  // initialize + notifications/initialized; returns the InitializeResult.
  json initialize(const std::string& clientName, const std::string& clientVersion);
  // Sends a request and waits for its response; throws std::runtime_error on a JSON-RPC error or
  // when the server goes away. Server->client requests are answered with "method not found".
  json request(const std::string& method, const json& params, const NotificationHandler& onNotification = {});
  // tools/call with a progress token; returns the CallToolResult (isError results are returned, not thrown).
  json callTool(const std::string& name, const json& arguments, const NotificationHandler& onNotification = {});
  // Closes the server's stdin and waits for it to exit; returns its exit code.
  int close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kopt::cli
