#include "cli/mcp_stdio_client.h"

#include <stdexcept>

#include <boost/process.hpp>

namespace kopt::cli {

namespace bp = boost::process;

struct McpStdioClient::Impl {
  bp::opstream toServer;
  bp::ipstream fromServer;
  bp::child child;
  long long nextId = 1;
  bool closed = false;

  explicit Impl(const std::vector<std::string>& argv)
      : child(bp::exe = argv.at(0), bp::args = std::vector<std::string>(argv.begin() + 1, argv.end()),
              bp::std_in < toServer, bp::std_out > fromServer) {}

  void send(const json& message) {
    toServer << message.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    toServer.flush();
  }

  json receive() {
    std::string line;
    while (std::getline(fromServer, line)) {
      if (line.empty() || line == "\r") continue;
      return json::parse(line);  // a non-JSON line on stdout is a protocol violation: let it throw
    }
    throw std::runtime_error("the MCP server closed its stdout (it exited or crashed; see its stderr above)");
  }
};

McpStdioClient::McpStdioClient(const std::vector<std::string>& argv) : impl_(std::make_unique<Impl>(argv)) {}

McpStdioClient::~McpStdioClient() {
  try {
    close();
  } catch (...) {
    // Destructors must not throw; the child is reaped by close() or killed with the process.
  }
}

McpStdioClient::json McpStdioClient::initialize(const std::string& clientName, const std::string& clientVersion) {
  json result = request("initialize", {{"protocolVersion", "2025-11-25"},
                                       {"capabilities", json::object()},
                                       {"clientInfo", {{"name", clientName}, {"version", clientVersion}}}});
  impl_->send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  return result;
}

McpStdioClient::json McpStdioClient::request(const std::string& method, const json& params,
                                             const NotificationHandler& onNotification) {
  const long long id = impl_->nextId++;
  impl_->send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  for (;;) {
    json message = impl_->receive();
    if (message.contains("method")) {
      if (message.contains("id")) {  // a server->client request this scripted client does not serve
        impl_->send({{"jsonrpc", "2.0"},
                     {"id", message["id"]},
                     {"error", {{"code", -32601}, {"message", "the demo client does not support " +
                                                                   message["method"].get<std::string>()}}}});
      } else if (onNotification) {
        onNotification(message);
      }
      continue;
    }
    if (!message.contains("id") || message["id"] != id) continue;  // a stale response: ignore
    if (message.contains("error")) {
      throw std::runtime_error(method + " failed: " + message["error"].value("message", message["error"].dump()));
    }
    return message.value("result", json::object());
  }
}

McpStdioClient::json McpStdioClient::callTool(const std::string& name, const json& arguments,
                                              const NotificationHandler& onNotification) {
  json params = {{"name", name}, {"arguments", arguments}, {"_meta", {{"progressToken", "demo-" + name}}}};
  return request("tools/call", params, onNotification);
}

int McpStdioClient::close() {
  if (impl_->closed) return impl_->child.exit_code();
  impl_->closed = true;
  impl_->toServer.pipe().close();
  impl_->child.wait();
  return impl_->child.exit_code();
}

}  // namespace kopt::cli
