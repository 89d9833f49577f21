#pragma once
// The connections that are reading a request's head (request line and headers) right now, at
// most `capacity` of them. A slowloris peer opens many connections and sends each head a byte at
// a time, so that every worker waits on one; here a new connection that finds the registry full
// ends the one that has been reading its head longest (shutdown of its socket, which wakes its
// worker), so a real client's head, which arrives in one packet, always finds a place. Together
// with the per-request read deadline (deadline_socket_stream.h) no peer holds a worker for long
// without sending whole requests.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

namespace kopt::mcp {

class HeadReaders {
 public:
  using Clock = std::chrono::steady_clock;
  // How an evicted connection is woken: shutdown(fd) in the server, a recorder in tests. Called
  // under the registry's lock, so the connection cannot deregister (and close its fd) meanwhile.
  using Evict = std::function<void(int fd)>;

  HeadReaders(std::size_t capacity, Evict evict);

  // A connection starts reading a head: registered; the oldest reader is evicted when full.
  // Returns the ticket to pass to done().
  std::uint64_t begin(int fd);
  // Its head was read (or the connection is closing): deregistered. A ticket not registered
  // (evicted, or already done) is ignored.
  void done(std::uint64_t ticket);

  std::size_t size() const;
  std::size_t evicted() const;

 private:
  struct Reader {
    std::uint64_t ticket;
    int fd;
  };
  const std::size_t capacity_;
  const Evict evict_;
  mutable std::mutex mutex_;
  std::list<Reader> readers_;  // oldest first
  std::uint64_t next_ = 1;
  std::size_t evicted_ = 0;
};

}  // namespace kopt::mcp
