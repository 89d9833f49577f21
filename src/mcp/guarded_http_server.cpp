#include "mcp/guarded_http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

#include "mcp/deadline_socket_stream.h"

namespace kopt::mcp {

namespace {

// The request a worker thread is reading, so that the pre-routing handler can say its head is in.
struct HeadInProgress {
  HeadReaders* heads;
  std::uint64_t ticket;
};
thread_local HeadInProgress* tCurrentHead = nullptr;

}  // namespace

GuardedHttpServer::GuardedHttpServer(ConnectionLimits limits)
    : limits_(limits), heads_(limits.headReaders, [](int fd) { ::shutdown(fd, SHUT_RDWR); }) {}

void GuardedHttpServer::headRead() {
  if (tCurrentHead && tCurrentHead->ticket) {
    tCurrentHead->heads->done(tCurrentHead->ticket);
    tCurrentHead->ticket = 0;
  }
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  DeadlineSocketStream stream(sock, limits_.readTimeout, limits_.writeTimeout);
  bool ok = false;
  for (std::size_t left = limits_.maxRequestsPerConnection; left > 0; --left) {
    if (svr_sock_ == INVALID_SOCKET || !stream.awaitRequest(limits_.keepAliveIdle)) break;
    stream.setReadDeadline(DeadlineSocketStream::Clock::now() + limits_.requestReadLimit);
    HeadInProgress head{&heads_, heads_.begin(sock)};
    tCurrentHead = &head;
    bool closed = false;
    ok = process_request(stream, left == 1, closed, nullptr);
    tCurrentHead = nullptr;
    // Deregistered before the socket is closed: an eviction never shuts down a reused fd number.
    if (head.ticket) heads_.done(head.ticket);
    stream.setReadDeadline(std::nullopt);
    if (!ok || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace kopt::mcp
