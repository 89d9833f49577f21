#pragma once
// MCP Streamable HTTP (2025-11-25 transports) on one endpoint, /mcp, with cpp-httplib:
//   POST  one message (or a 2025-03-26 batch); requests are answered with application/json, or
//         with text/event-stream for tools/call so progress, logs and server->client requests
//         (elicitation, sampling) travel before the response; notifications/responses -> 202.
//   GET   a session-wide SSE stream (resource updates); one per session.
//   DELETE ends the session; afterwards its id is unknown (404).
// Security: Host and Origin checked against loopback when bound to it (DNS rebinding -> 403),
// optional static bearer token (401), body size limit (413), 127.0.0.1 by default.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "mcp/guarded_http_server.h"
#include "mcp/registry.h"
#include "mcp/server.h"

namespace kopt::mcp {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (see HttpTransport::port())
  std::optional<std::string> bearerToken;
  std::size_t maxBodyBytes = 16u << 20;
  std::size_t maxSessions = 1024;       // beyond: the least recently used idle session is ended
  std::size_t maxWorkerThreads = 1024;  // connections + open streams served at once
  std::chrono::seconds keepAliveComment{10};  // SSE comment interval; also how a gone peer is noticed
  ConnectionLimits connections;  // request read limit, head readers, keep-alive (guarded_http_server.h)
};

class HttpTransport {
 public:
  HttpTransport(const Registry& registry, ServerInfo info, HttpOptions options);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  bool bind(std::string* error);
  int port() const;
  // Serves until stop(); then ends every session (running calls are cancelled).
  void serve();
  void stop();  // safe from any thread

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether a bind address (--http HOST) listens on this machine only: localhost, ::1, 127.x.
bool isLoopbackBind(const std::string& host);
// Host-header / Origin checks, exposed for tests. `hostHeader` like "localhost:8080" or "[::1]:80".
bool isLoopbackHost(const std::string& hostHeader);
// The host part of an Origin ("http://localhost:3000" -> "localhost"); empty when unparsable.
std::string originHost(const std::string& origin);
bool constantTimeEquals(const std::string& a, const std::string& b);
// 32 random bytes as hex: visible ASCII, as the spec requires of Mcp-Session-Id.
std::string newSessionId();

}  // namespace kopt::mcp
