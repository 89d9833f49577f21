// libFuzzer target: the HTTP request path. One kopt HTTP transport (cpp-httplib's parser, the
// Host/Origin/token checks, sessions, the MCP session behind them) serves on a loopback port for
// the whole run; each input is sent as the raw bytes of one connection (write side then closed)
// and the answer read to its end. A crash or a sanitizer error in the server is a crash here; a
// connection the server holds open past the read timeout is a hang (-timeout).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "mcp/http_transport.h"
#include "mcp/registry.h"

namespace {

using kopt::mcp::json;

int serverPort() {
  static const int port = [] {
    auto* registry = new kopt::mcp::Registry();
    kopt::mcp::ToolSpec echo;
    echo.name = "echo";
    echo.description = "returns its text";
    echo.inputSchema = json::parse(R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})");
    echo.handler = [](const json& args, kopt::mcp::RequestContext&) {
      return kopt::mcp::ToolResult::text(args.value("text", ""));
    };
    registry->addTool(echo);
    kopt::mcp::HttpOptions options;
    options.maxBodyBytes = 1 << 20;
    options.maxSessions = 64;
    auto* transport = new kopt::mcp::HttpTransport(*registry, kopt::mcp::ServerInfo{}, options);
    std::string error;
    if (!transport->bind(&error)) {
      std::fprintf(stderr, "fuzz_http_request: cannot bind: %s\n", error.c_str());
      std::abort();
    }
    std::thread([transport] { transport->serve(); }).detach();
    return transport->port();
  }();
  return port;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int port = serverPort();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::size_t sent = 0;
    while (sent < size) {
      const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    char buf[65536];
    // The answer (or the server closing): at most 5 s; an SSE stream the input opened stays open
    // by design (keep-alive comments), so reading stops at the time limit, not at EOF.
    for (int waited = 0; waited < 50;) {
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, 100);
      if (r == 0) {
        ++waited;
        continue;
      }
      if (r < 0 || ::recv(fd, buf, sizeof buf, 0) <= 0) break;
    }
  }
  ::close(fd);
  return 0;
}
