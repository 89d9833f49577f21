#include "mcp/stdio_transport.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

using namespace kopt::mcp;

namespace {

struct Pipes {
  int in[2];
  int out[2];
  Pipes() {
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
  }
  ~Pipes() {
    for (int fd : {in[0], in[1], out[0], out[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  void write(const std::string& s) { REQUIRE(::write(in[1], s.data(), s.size()) == static_cast<ssize_t>(s.size())); }
  void closeInput() {
    close(in[1]);
    in[1] = -1;
  }
};

// Reads one line from the transport's output (blocking).
std::string readLine(FILE* f) {
  std::string line;
  int c;
  while ((c = fgetc(f)) != EOF && c != '\n') line += static_cast<char>(c);
  return line;
}

}  // namespace

TEST_CASE("stdio: one JSON line per message, invalid UTF-8 replaced, oversize refused, exit on EOF") {
  Registry registry;
  ToolSpec raw;
  raw.name = "raw";
  raw.description = "returns bytes that are not UTF-8";
  raw.handler = [](const json&, RequestContext&) { return ToolResult::text(std::string("a\xff\nb")); };
  registry.addTool(raw);

  Pipes pipes;
  StdioOptions options;
  options.maxMessageBytes = 1024;
  options.eofGrace = std::chrono::milliseconds(1000);
  StdioTransport transport(pipes.in[0], pipes.out[1], options);
  Session session(registry, ServerInfo{}, transport);
  std::thread server([&] { transport.run(session); });
  FILE* out = fdopen(dup(pipes.out[0]), "r");
  REQUIRE(out);

  pipes.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})" "\n");
  CHECK(json::parse(readLine(out))["id"] == 1);
  pipes.write(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"raw"}})" "\n");
  const std::string line = readLine(out);
  json reply = json::parse(line);  // would throw on invalid UTF-8 or a broken line
  CHECK(reply["result"]["content"][0]["text"] == "a\xef\xbf\xbd\nb");
  pipes.write(std::string(2000, 'x') + "\n");
  CHECK(json::parse(readLine(out))["error"]["code"] == -32600);
  pipes.write(R"({"jsonrpc":"2.0","id":3,"method":"ping"})" "\n");
  CHECK(json::parse(readLine(out))["id"] == 3);

  pipes.closeInput();
  server.join();  // returns because stdin reached EOF
  fclose(out);
}

TEST_CASE("stdio: stop() returns from run() with stdin still open and cancels running calls") {
  Registry registry;
  std::atomic<bool> cancelled{false};
  std::atomic<bool> started{false};
  ToolSpec wait;
  wait.name = "wait";
  wait.description = "runs until cancelled";
  wait.handler = [&](const json&, RequestContext& ctx) {
    started = true;
    while (!ctx.cancellation().cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    cancelled = true;
    return ToolResult::text("stopped");
  };
  registry.addTool(wait);

  Pipes pipes;
  StdioTransport transport(pipes.in[0], pipes.out[1]);
  Session session(registry, ServerInfo{}, transport);
  std::thread server([&] { transport.run(session); });
  FILE* out = fdopen(dup(pipes.out[0]), "r");
  pipes.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})" "\n");
  CHECK(json::parse(readLine(out))["id"] == 1);
  pipes.write(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait"}})" "\n");
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  transport.stop();
  server.join();
  CHECK(cancelled);
  fclose(out);
}

TEST_CASE("stdio: a client that stops reading: output stays bounded, requests stay unread, stop() still ends it") {
  ::signal(SIGPIPE, SIG_IGN);  // the request writer below gets EPIPE when the server is gone
  Registry registry;
  Pipes pipes;
  StdioOptions options;
  options.maxQueuedBytes = 4096;
  options.shutdownWriteGrace = std::chrono::milliseconds(200);
  StdioTransport transport(pipes.in[0], pipes.out[1], options);
  Session session(registry, ServerInfo{}, transport);
  std::thread server([&] { transport.run(session); });

  // Many pings, and nobody reads the answers: far more than the output pipe and the queue hold.
  std::thread client([&] {
    std::string all = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})" "\n";
    for (int i = 1; i <= 8000; ++i) all += R"({"jsonrpc":"2.0","id":)" + std::to_string(i) + R"(,"method":"ping"})" "\n";
    std::size_t at = 0;
    while (at < all.size()) {
      const ssize_t n = ::write(pipes.in[1], all.data() + at, all.size() - at);
      if (n <= 0) break;  // the server ended and its end of the pipe closed
      at += static_cast<std::size_t>(n);
    }
  });
  // The output pipe fills first, then the queue up to its cap: from then on the reader waits.
  while (transport.queuedBytes() + 64 < options.maxQueuedBytes) std::this_thread::yield();
  int unread = 0;
  while (unread == 0) {
    REQUIRE(ioctl(pipes.in[0], FIONREAD, &unread) == 0);
    std::this_thread::yield();
  }
  CHECK(transport.queuedBytes() <= options.maxQueuedBytes + 64);  // bounded: one reply over at most
  CHECK(unread > 0);  // requests wait in the pipe: the server stopped reading them

  transport.stop();  // SIGTERM's path: returns although the client never reads again
  server.join();
  close(pipes.in[0]);
  pipes.in[0] = -1;
  client.join();
}
