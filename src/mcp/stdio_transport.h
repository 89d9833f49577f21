#pragma once
// MCP over stdio: one compact JSON message per line on a protocol fd, written by a dedicated
// writer thread (a slow client never blocks the reader or a tool), flushed per message, and read
// by a loop that hands each line to the session and returns at EOF.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "mcp/server.h"

namespace kopt::mcp {

struct StdioOptions {
  std::size_t maxMessageBytes = 16u << 20;  // a longer line is refused with an error
  // At EOF, running calls get this long to finish on their own before they are cancelled.
  std::chrono::milliseconds eofGrace{10000};
};

// Makes fd 1 unusable for protocol pollution: returns a new fd on the real stdout (close-on-exec,
// so child processes do not inherit it) and points fd 1 at stderr, so any stray print from kopt
// or a library lands in the log, never in the protocol stream. Returns -1 on failure.
int takeOverStdout();

class StdioTransport : public Outbound {
 public:
  StdioTransport(int inFd, int outFd, StdioOptions options = {});
  ~StdioTransport() override;

  bool send(const json& message, const std::optional<rpc::RequestId>& related) override;

  // Serves `session` until `inFd` reaches EOF, then lets running calls finish (or cancels them
  // after the grace period) and writes out everything queued.
  void run(Session& session);
  // Makes run() return soon, cancelling running calls at once (no grace): for SIGTERM/SIGINT.
  // Safe from any thread.
  void stop();

 private:
  void writerLoop();
  void stopWriter();

  int inFd_;
  int outFd_;
  StdioOptions options_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  bool broken_ = false;  // the reader of our stdout went away: drop output quietly
  int wakePipe_[2] = {-1, -1};  // stop() writes here to wake the reader out of poll()
  std::thread writer_;
};

}  // namespace kopt::mcp
