#pragma once
// The socket stream kopt's HTTP server reads requests from and writes answers to (what
// cpp-httplib's own SocketStream does, which its 0.11 library does not expose), plus a deadline
// for reading one request: every read waits at most the read timeout AND no later than the
// deadline. cpp-httplib's own stream only bounds each wait, so a peer sending one byte every few
// seconds (slowloris) kept a worker forever; here a request that is not read whole within the
// request read limit ends its connection.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <httplib.h>

namespace kopt::mcp {

class DeadlineSocketStream : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  DeadlineSocketStream(int fd, std::chrono::milliseconds readTimeout, std::chrono::milliseconds writeTimeout);

  // Whether another request's bytes are here (already read with the last request, pipelined) or
  // arrive within `idle`.
  bool awaitRequest(std::chrono::milliseconds idle) const;

  // Reads after `at` fail; std::nullopt: only the per-read timeout applies.
  void setReadDeadline(std::optional<Clock::time_point> at) { deadline_ = at; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  const int fd_;
  const std::chrono::milliseconds readTimeout_, writeTimeout_;
  std::optional<Clock::time_point> deadline_;
  // cpp-httplib reads a head a byte at a time: served from here, one recv per 4 KiB at most.
  char buffer_[4096];
  std::size_t bufferBegin_ = 0, bufferEnd_ = 0;
};

// Waits until `fd` has data (or its peer closed) for at most `timeout`: false on timeout or error.
bool waitReadable(int fd, std::chrono::milliseconds timeout);

}  // namespace kopt::mcp
