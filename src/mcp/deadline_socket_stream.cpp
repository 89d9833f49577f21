#include "mcp/deadline_socket_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kopt::mcp {

namespace {

// poll() for `events` up to `timeout`, retried on EINTR with what is left: the revents, 0 on timeout.
short pollFor(int fd, short events, std::chrono::milliseconds timeout) {
  const auto until = DeadlineSocketStream::Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - DeadlineSocketStream::Clock::now());
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
    if (n > 0) return p.revents;
    if (n == 0 || errno != EINTR) return 0;
  }
}

// One end of the connection (getpeername or getsockname) as text and port; "" and 0 when unknown.
void endpointOf(int fd, int (*query)(int, sockaddr*, socklen_t*), std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  ip.clear();
  port = 0;
  if (query(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

ssize_t receive(int fd, char* into, std::size_t size) {
  ssize_t n;
  do {
    n = ::recv(fd, into, size, 0);
  } while (n < 0 && errno == EINTR);
  return n;
}

}  // namespace

bool DeadlineSocketStream::awaitRequest(std::chrono::milliseconds idle) const {
  return bufferBegin_ < bufferEnd_ || waitReadable(fd_, idle);
}

bool waitReadable(int fd, std::chrono::milliseconds timeout) {
  return (pollFor(fd, POLLIN, timeout) & (POLLIN | POLLHUP | POLLERR)) != 0;
}

DeadlineSocketStream::DeadlineSocketStream(int fd, std::chrono::milliseconds readTimeout,
                                           std::chrono::milliseconds writeTimeout)
    : fd_(fd), readTimeout_(readTimeout), writeTimeout_(writeTimeout) {}

bool DeadlineSocketStream::is_readable() const {
  if (bufferBegin_ < bufferEnd_) return true;
  auto wait = readTimeout_;
  if (deadline_) {
    wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - Clock::now()));
    if (wait.count() <= 0) return false;
  }
  return waitReadable(fd_, wait);
}

bool DeadlineSocketStream::is_writable() const {
  const short ready = pollFor(fd_, POLLOUT, writeTimeout_);
  if (!(ready & POLLOUT) || (ready & (POLLERR | POLLHUP))) return false;
  // Writable is not alive: a peer that closed leaves the socket readable at end of stream.
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
    char c;
    if (::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0) return false;
  }
  return true;
}

ssize_t DeadlineSocketStream::read(char* ptr, size_t size) {
  if (bufferBegin_ == bufferEnd_) {
    if (!is_readable()) return -1;
    if (size >= sizeof buffer_) return receive(fd_, ptr, size);  // a large read (a body): straight through
    const ssize_t n = receive(fd_, buffer_, sizeof buffer_);
    if (n <= 0) return n;
    bufferBegin_ = 0;
    bufferEnd_ = static_cast<std::size_t>(n);
  }
  const std::size_t take = std::min(size, bufferEnd_ - bufferBegin_);
  std::memcpy(ptr, buffer_ + bufferBegin_, take);
  bufferBegin_ += take;
  return static_cast<ssize_t>(take);
}

ssize_t DeadlineSocketStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  ssize_t n;
  do {
    n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

void DeadlineSocketStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  endpointOf(fd_, ::getpeername, ip, port);
}

void DeadlineSocketStream::get_local_ip_and_port(std::string& ip, int& port) const {
  endpointOf(fd_, ::getsockname, ip, port);
}

}  // namespace kopt::mcp
