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
  // Backpressure: with this much output queued for a client that does not read, the reader stops
  // reading requests and senders wait, until the client reads again (docs/robustness.md, item 3).
  std::size_t maxQueuedBytes = 64u << 20;
  // At shutdown, queued output gets this long to reach a client that does not read; then it is
  // dropped and the server exits instead of blocking in write(2) for ever.
  std::chrono::milliseconds shutdownWriteGrace{5000};
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
  // Safe from any thread (not from a signal handler: it takes a mutex).
  void stop();

  std::size_t queuedBytes() const;  // output not yet written

 private:
  void writerLoop();
  // Writes one line, waiting for a slow client while running and up to the shutdown deadline
  // once stopping. False when the client went away or the deadline passed.
  bool writeLine(const std::string& line);
  void stopWriter();
  // The reader waits here while the output queue is full (backpressure); false when stopped.
  bool waitForRoom();

  int inFd_;
  int outFd_;
  StdioOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;    // the writer: a line queued, or stopping
  std::condition_variable room_;  // senders and the reader: queued output drained below the cap
  std::deque<std::string> queue_;
  std::size_t queuedBytes_ = 0;
  bool stopping_ = false;       // the writer drains what is queued, until writeDeadline_
  bool stopRequested_ = false;  // stop() was called: nobody waits for room any more
  bool readerDone_ = false;     // no more requests are read: senders no longer wait for room
  bool broken_ = false;  // the reader of our stdout went away: drop output quietly
  std::chrono::steady_clock::time_point writeDeadline_ = std::chrono::steady_clock::time_point::max();
  int wakePipe_[2] = {-1, -1};  // stop() writes here to wake the reader out of poll()
  std::thread writer_;
};

}  // namespace kopt::mcp
