#include "mcp/http_transport.h"

#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include <thread>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <poll.h>
#include <unistd.h>

using namespace kopt::mcp;

TEST_CASE("loopback Host and Origin recognition") {
  CHECK(isLoopbackHost("localhost"));
  CHECK(isLoopbackHost("localhost:8080"));
  CHECK(isLoopbackHost("127.0.0.1:1"));
  CHECK(isLoopbackHost("[::1]:80"));
  CHECK(isLoopbackHost("LOCALHOST"));
  CHECK_FALSE(isLoopbackHost("evil.example.com"));
  CHECK_FALSE(isLoopbackHost("localhost.evil.com:80"));
  CHECK(originHost("http://localhost:3000") == "localhost");
  CHECK(originHost("https://[::1]:3000/x") == "::1");
  CHECK(originHost("http://evil.example.com") == "evil.example.com");
  CHECK(originHost("null") == "");
}

TEST_CASE("constant-time compare and session ids") {
  CHECK(constantTimeEquals("secret", "secret"));
  CHECK_FALSE(constantTimeEquals("secret", "secreT"));
  CHECK_FALSE(constantTimeEquals("secret", "secret2"));
  CHECK_FALSE(constantTimeEquals("", "x"));
  const std::string id = newSessionId();
  CHECK(id.size() == 64);
  for (char c : id) CHECK((c >= 0x21 && c <= 0x7e));
  CHECK(newSessionId() != id);
}

namespace {

struct Running {
  Registry registry;
  std::unique_ptr<HttpTransport> transport;
  std::thread thread;
  int port = 0;
  explicit Running(HttpOptions options = {}) {
    ToolSpec echo;
    echo.name = "echo";
    echo.description = "echo";
    echo.handler = [](const json& a, RequestContext& ctx) {
      ctx.progress(1, 1);
      return ToolResult::text(a.dump());
    };
    registry.addTool(echo);
    transport = std::make_unique<HttpTransport>(registry, ServerInfo{}, options);
    std::string error;
    REQUIRE(transport->bind(&error));
    port = transport->port();
    thread = std::thread([this] { transport->serve(); });
  }
  ~Running() {
    transport->stop();
    thread.join();
  }
};

const char* kInit = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})";

httplib::Headers accept() { return {{"Accept", "application/json, text/event-stream"}}; }

}  // namespace

TEST_CASE("HTTP: session lifecycle, status codes, SSE for tool calls") {
  Running server;
  httplib::Client client("127.0.0.1", server.port);
  auto init = client.Post("/mcp", accept(), kInit, "application/json");
  REQUIRE(init);
  CHECK(init->status == 200);
  const std::string session = init->get_header_value("Mcp-Session-Id");
  CHECK(session.size() == 64);
  CHECK(json::parse(init->body)["result"]["protocolVersion"] == "2025-11-25");

  httplib::Headers h = accept();
  h.emplace("Mcp-Session-Id", session);
  h.emplace("MCP-Protocol-Version", "2025-11-25");
  auto initialized = client.Post("/mcp", h, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "application/json");
  CHECK(initialized->status == 202);
  CHECK(initialized->body.empty());
  auto ping = client.Post("/mcp", h, R"({"jsonrpc":"2.0","id":2,"method":"ping"})", "application/json");
  CHECK(ping->status == 200);
  CHECK(ping->get_header_value("Content-Type") == "application/json");
  CHECK(json::parse(ping->body)["result"] == json::object());

  auto call = client.Post("/mcp", h, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"x":1},"_meta":{"progressToken":7}}})",
                          "application/json");
  CHECK(call->status == 200);
  CHECK(call->get_header_value("Content-Type") == "text/event-stream");
  const auto progressAt = call->body.find("notifications/progress");
  const auto resultAt = call->body.find("\"id\":3");
  CHECK(progressAt != std::string::npos);
  CHECK(resultAt != std::string::npos);
  CHECK(progressAt < resultAt);

  auto garbage = client.Post("/mcp", h, "{nope", "application/json");
  CHECK(garbage->status == 400);
  CHECK(json::parse(garbage->body)["error"]["code"] == -32700);

  httplib::Headers badVersion = accept();
  badVersion.emplace("Mcp-Session-Id", session);
  badVersion.emplace("MCP-Protocol-Version", "1999-01-01");
  CHECK(client.Post("/mcp", badVersion, R"({"jsonrpc":"2.0","id":4,"method":"ping"})", "application/json")->status == 400);

  httplib::Headers unknown = accept();
  unknown.emplace("Mcp-Session-Id", "not-a-session");
  CHECK(client.Post("/mcp", unknown, R"({"jsonrpc":"2.0","id":5,"method":"ping"})", "application/json")->status == 404);
  CHECK(client.Post("/mcp", accept(), R"({"jsonrpc":"2.0","id":6,"method":"ping"})", "application/json")->status == 400);

  httplib::Headers jsonOnly{{"Accept", "application/json"}, {"Mcp-Session-Id", session}};
  CHECK(client.Get("/mcp", jsonOnly)->status == 405);  // GET is only a stream
  CHECK(client.Head("/mcp", h)->status == 405);
  CHECK(client.Put("/mcp", h, "{}", "application/json")->status == 405);
  CHECK(client.Post("/mcp", h, "{}", "text/plain")->status == 415);

  CHECK(client.Delete("/mcp", h)->status == 200);
  CHECK(client.Post("/mcp", h, R"({"jsonrpc":"2.0","id":7,"method":"ping"})", "application/json")->status == 404);
  CHECK(client.Delete("/mcp", h)->status == 404);
}

TEST_CASE("HTTP: foreign Host/Origin are 403, bearer token is 401 when missing or wrong") {
  HttpOptions options;
  options.bearerToken = "s3cret";
  Running server(options);
  httplib::Client client("127.0.0.1", server.port);
  httplib::Headers good = accept();
  good.emplace("Authorization", "Bearer s3cret");
  CHECK(client.Post("/mcp", good, kInit, "application/json")->status == 200);

  CHECK(client.Post("/mcp", accept(), kInit, "application/json")->status == 401);
  httplib::Headers wrong = accept();
  wrong.emplace("Authorization", "Bearer s3creT");
  auto denied = client.Post("/mcp", wrong, kInit, "application/json");
  CHECK(denied->status == 401);
  CHECK(denied->get_header_value("WWW-Authenticate") == "Bearer");

  httplib::Headers origin = good;
  origin.emplace("Origin", "http://evil.example.com");
  CHECK(client.Post("/mcp", origin, kInit, "application/json")->status == 403);
  httplib::Headers localOrigin = good;
  localOrigin.emplace("Origin", "http://localhost:5173");
  CHECK(client.Post("/mcp", localOrigin, kInit, "application/json")->status == 200);
  httplib::Headers host = good;
  host.emplace("Host", "evil.example.com");
  CHECK(client.Post("/mcp", host, kInit, "application/json")->status == 403);
}

TEST_CASE("HTTP: OAuth discovery paths are 404, also without the token, so clients use the bearer header") {
  HttpOptions options;
  options.bearerToken = "s3cret";
  Running server(options);
  httplib::Client client("127.0.0.1", server.port);
  for (const char* path : {"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
                           "/.well-known/oauth-protected-resource/mcp"}) {
    auto r = client.Get(path);
    REQUIRE(r);
    CHECK(r->status == 404);
  }
  // Everything else still needs the token.
  CHECK(client.Post("/mcp", accept(), kInit, "application/json")->status == 401);
}

TEST_CASE("HTTP: request body size limit") {
  HttpOptions options;
  options.maxBodyBytes = 1024;
  Running server(options);
  httplib::Client client("127.0.0.1", server.port);
  auto big = client.Post("/mcp", accept(), std::string(4096, ' ') + kInit, "application/json");
  REQUIRE(big);
  CHECK(big->status == 413);
  CHECK(client.Post("/mcp", accept(), kInit, "application/json")->status == 200);
}

TEST_CASE("HTTP: a chunked body is capped while it arrives (413), and the server stays available") {
  HttpOptions options;
  options.maxBodyBytes = 1024;
  Running server(options);
  httplib::Client client("127.0.0.1", server.port);
  // No Content-Length: chunked transfer encoding, which cpp-httplib's own limit does not see.
  auto big = client.Post(
      "/mcp", accept(),
      [](std::size_t offset, httplib::DataSink& sink) {
        if (offset >= 8192) {
          sink.done();
          return true;
        }
        const std::string chunk(4096, ' ');
        return sink.write(chunk.data(), chunk.size());
      },
      "application/json");
  REQUIRE(big);
  CHECK(big->status == 413);
  CHECK(big->body.find("at most 1024 bytes") != std::string::npos);
  CHECK(big->get_header_value("Connection") == "close");
  // A small chunked message is read whole and answered.
  httplib::Client again("127.0.0.1", server.port);
  auto small = again.Post(
      "/mcp", accept(),
      [](std::size_t offset, httplib::DataSink& sink) {
        if (offset > 0) {
          sink.done();
          return true;
        }
        const std::string init = kInit;
        return sink.write(init.data(), init.size());
      },
      "application/json");
  REQUIRE(small);
  CHECK(small->status == 200);
}

TEST_CASE("HTTP: a body declared far over the cap is refused from its head, without waiting for it") {
  HttpOptions options;
  options.maxBodyBytes = 1024;
  Running server(options);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  // 10 MiB declared, none of it sent: a server that drained what it refuses would wait here for
  // the body (and answer 400 after its read limit), not 413.
  const std::string head =
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"
      "Content-Type: application/json\r\nContent-Length: 10485760\r\n\r\n";
  REQUIRE(::send(fd, head.data(), head.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(head.size()));
  std::string got;
  // Reads until the server closes; the 60 s poll bound only keeps a broken server from hanging.
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    REQUIRE(::poll(&p, 1, 60000) > 0);
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  CHECK(got.rfind("HTTP/1.1 413", 0) == 0);
  ::close(fd);
}

namespace {
// TCP_NODELAY of the server's accepted sockets for `port` in this process (the test's server).
std::vector<int> serverSideNoDelay(int port) {
  std::vector<int> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::atoi(entry.path().filename().c_str());
    int accepting = 0;
    socklen_t length = sizeof accepting;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) != 0 || accepting) continue;
    sockaddr_in address{};
    socklen_t size = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0 || address.sin_family != AF_INET) continue;
    if (ntohs(address.sin_port) != port) continue;  // a client socket has an ephemeral local port
    int nodelay = 0;
    length = sizeof nodelay;
    if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &length) == 0) out.push_back(nodelay);
  }
  return out;
}
}  // namespace

TEST_CASE("HTTP: accepted connections have TCP_NODELAY (no Nagle delay between an answer's writes)") {
  Running server(HttpOptions{});
  httplib::Client client("127.0.0.1", server.port);
  client.set_keep_alive(true);
  auto r = client.Post("/mcp", accept(), kInit, "application/json");
  REQUIRE(r);
  REQUIRE(r->status == 200);
  // The keep-alive connection is still open on the server's side: every such socket has it set.
  const auto flags = serverSideNoDelay(server.port);
  REQUIRE_FALSE(flags.empty());
  for (int flag : flags) CHECK(flag != 0);
}

namespace {
// A slowloris peer: connects, then sends `head` a byte at a time, `gap` apart, never finishing it
// (after the head, one more byte of a header value each time), until stopped or until the server
// closes the connection, which it counts in `closed` and announces on `cv`.
struct SlowPeers {
  std::atomic<bool> stop{false};
  std::atomic<int> closed{0};
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::thread> threads;

  void start(int port, int count, std::chrono::milliseconds gap) {
    for (int k = 0; k < count; ++k) {
      threads.emplace_back([this, port, gap] {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        const std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        for (std::size_t i = 0; !stop; ++i) {
          const char c = i < head.size() ? head[i] : 'a';
          bool gone = ::send(fd, &c, 1, MSG_NOSIGNAL) <= 0;
          pollfd p{fd, POLLIN, 0};
          if (!gone && ::poll(&p, 1, static_cast<int>(gap.count())) > 0) {
            char buf[256];
            gone = ::recv(fd, buf, sizeof buf, 0) <= 0;  // the server sends nothing but its close
          }
          if (gone) {
            std::lock_guard<std::mutex> lock(mutex);
            ++closed;
            cv.notify_all();
            break;
          }
        }
        ::close(fd);
      });
    }
  }
  // Waits until the server closed `n` of them. The 60 s bound only keeps a broken server from
  // hanging the test; the defence ends them within about a second.
  bool waitClosed(int n) {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(60), [&] { return closed >= n; });
  }
  ~SlowPeers() {
    stop = true;
    for (auto& t : threads) t.join();
  }
};
}  // namespace

TEST_CASE("HTTP: slowloris: with the head readers full, the longest-waiting one is ended, and requests still go through") {
  HttpOptions options;
  options.maxWorkerThreads = 8;
  options.connections.headReaders = 2;
  Running server(options);
  SlowPeers peers;
  peers.start(server.port, 3, std::chrono::milliseconds(200));
  // Three heads trickling in, room for two: one is ended although each byte comes well within the
  // per-read timeout (cpp-httplib's own handling kept all three for as long as they trickled).
  CHECK(peers.waitClosed(1));
  httplib::Client client("127.0.0.1", server.port);
  auto r = client.Post("/mcp", accept(), kInit, "application/json");
  REQUIRE(r);
  CHECK(r->status == 200);
}

TEST_CASE("HTTP: slowloris: a request not read whole within the request read limit ends its connection") {
  HttpOptions options;
  options.connections.requestReadLimit = std::chrono::milliseconds(1000);
  Running server(options);
  SlowPeers peers;
  peers.start(server.port, 1, std::chrono::milliseconds(200));
  CHECK(peers.waitClosed(1));
}

TEST_CASE("HTTP: two requests sent in one packet (pipelined) are both answered") {
  Running server(HttpOptions{});
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  const std::string one = "GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string both = one + one;
  REQUIRE(::send(fd, both.data(), both.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(both.size()));
  std::string got;
  auto answers = [&] {
    std::size_t n = 0;
    for (std::size_t at = got.find("HTTP/1.1 404"); at != std::string::npos; at = got.find("HTTP/1.1 404", at + 1)) ++n;
    return n;
  };
  // Reads until both answers are in; the 60 s poll bound only keeps a broken server from hanging.
  while (answers() < 2) {
    pollfd p{fd, POLLIN, 0};
    REQUIRE(::poll(&p, 1, 60000) > 0);
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    REQUIRE(n > 0);
    got.append(buf, static_cast<std::size_t>(n));
  }
  CHECK(answers() == 2);
  ::close(fd);
}
