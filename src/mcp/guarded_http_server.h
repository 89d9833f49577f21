#pragma once
// cpp-httplib's Server with kopt's connection handling in place of its own (docs/robustness.md,
// item 5): each request must be read whole within a read limit (deadline_socket_stream.h), and at
// most `headReaders` connections may be reading a request head at once, the longest-waiting one
// ending when another arrives (head_readers.h). cpp-httplib 0.11 bounds only each wait for bytes,
// so 1,100 connections sending a byte every few seconds held every worker and a ping waited 8 s.
// Everything after the head (routing, handlers, the answer) is cpp-httplib's process_request.
#include <chrono>
#include <cstddef>

#include <httplib.h>

#include "mcp/head_readers.h"

namespace kopt::mcp {

struct ConnectionLimits {
  std::chrono::milliseconds readTimeout{5000};        // one wait for request bytes
  std::chrono::milliseconds writeTimeout{5000};       // one wait for room to write the answer
  std::chrono::milliseconds requestReadLimit{10000};  // a request's head and body, in all
  std::chrono::milliseconds keepAliveIdle{3000};      // an idle connection between requests
  std::size_t maxRequestsPerConnection = 1000;
  std::size_t headReaders = 64;  // connections reading a head at once
};

class GuardedHttpServer : public httplib::Server {
 public:
  explicit GuardedHttpServer(ConnectionLimits limits);

  // From the pre-routing handler, on the connection's worker: its request's head was read, so it
  // no longer counts as a head reader and cannot be evicted.
  static void headRead();

  std::size_t evictedHeadReaders() const { return heads_.evicted(); }

 private:
  bool process_and_close_socket(socket_t sock) override;

  const ConnectionLimits limits_;
  HeadReaders heads_;
};

}  // namespace kopt::mcp
