#include "mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>

#include "mcp/line_framer.h"

namespace kopt::mcp {

int takeOverStdout() {
  std::cout.flush();
  const int protocolFd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocolFd < 0) return -1;
  if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    close(protocolFd);
    return -1;
  }
  return protocolFd;
}

StdioTransport::StdioTransport(int inFd, int outFd, StdioOptions options)
    : inFd_(inFd), outFd_(outFd), options_(options), writer_([this] { writerLoop(); }) {
  if (pipe2(wakePipe_, O_CLOEXEC) != 0) wakePipe_[0] = wakePipe_[1] = -1;
}

StdioTransport::~StdioTransport() {
  stopWriter();
  for (int fd : wakePipe_) {
    if (fd >= 0) close(fd);
  }
}

void StdioTransport::stop() {
  if (wakePipe_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wakePipe_[1], &byte, 1);
  }
}

bool StdioTransport::send(const json& message, const std::optional<rpc::RequestId>&) {
  std::string line = rpc::serialize(message);  // compact: newlines inside strings are escaped
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  if (broken_ || stopping_) return false;
  queue_.push_back(std::move(line));
  cv_.notify_one();
  return true;
}

void StdioTransport::writerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    std::string line = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // Raw write(2): nothing is buffered, so each message is on the pipe as soon as it is written.
    std::size_t written = 0;
    bool failed = false;
    while (written < line.size()) {
      const ssize_t n = ::write(outFd_, line.data() + written, line.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed = true;
        break;
      }
      written += static_cast<std::size_t>(n);
    }
    lock.lock();
    if (failed) {
      broken_ = true;
      queue_.clear();
    }
  }
}

void StdioTransport::stopWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    cv_.notify_one();
  }
  if (writer_.joinable()) writer_.join();
}

void StdioTransport::run(Session& session) {
  LineFramer framer(options_.maxMessageBytes);
  auto onLine = [&](std::string_view line) { session.receiveText(line); };
  auto onOverflow = [&](std::size_t bytes) {
    send(rpc::errorResponse(std::nullopt,
                            rpc::Error(rpc::ErrorCode::InvalidRequest,
                                       "Invalid Request: message of " + std::to_string(bytes) +
                                           " bytes exceeds the limit of " + std::to_string(options_.maxMessageBytes) +
                                           " bytes; it was dropped")),
         std::nullopt);
  };
  std::string buffer(1 << 16, '\0');
  bool stopped = false;
  for (;;) {
    pollfd fds[2] = {{inFd_, POLLIN, 0}, {wakePipe_[0], POLLIN, 0}};
    const int ready = ::poll(fds, wakePipe_[0] >= 0 ? 2 : 1, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (fds[1].revents) {
      stopped = true;
      break;
    }
    const ssize_t n = ::read(inFd_, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    framer.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), onLine, onOverflow);
  }
  if (!stopped) {
    framer.finish(onLine, onOverflow);
    // stdin closed: the client is done. Give running calls a moment to answer, then stop them.
    session.drain(options_.eofGrace);
  }
  session.shutdown();
  stopWriter();
}

}  // namespace kopt::mcp
