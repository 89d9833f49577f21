#include "mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
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
    : inFd_(inFd), outFd_(outFd), options_(options) {
  if (pipe2(wakePipe_, O_CLOEXEC) != 0) wakePipe_[0] = wakePipe_[1] = -1;
  // Non-blocking writes, so a client that stops reading cannot hold the writer in write(2) past
  // the shutdown deadline (a pipe or socket; a file or terminal does not block for long).
  struct stat st {};
  if (fstat(outFd_, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    const int flags = fcntl(outFd_, F_GETFL);
    if (flags >= 0) fcntl(outFd_, F_SETFL, flags | O_NONBLOCK);
  }
  writer_ = std::thread([this] { writerLoop(); });
}

StdioTransport::~StdioTransport() {
  stopWriter();
  for (int fd : wakePipe_) {
    if (fd >= 0) close(fd);
  }
}

void StdioTransport::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopRequested_ = true;
    room_.notify_all();
  }
  if (wakePipe_[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wakePipe_[1], &byte, 1);
  }
}

std::size_t StdioTransport::queuedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queuedBytes_;
}

bool StdioTransport::send(const json& message, const std::optional<rpc::RequestId>&) {
  std::string line = rpc::serialize(message);  // compact: newlines inside strings are escaped
  line += '\n';
  std::unique_lock<std::mutex> lock(mutex_);
  // A full queue makes the sender wait for the client to read: tool calls slow down with it, and
  // a reader answering a ping stops reading requests. Once no request is read any more (EOF, stop)
  // nobody waits: shutdown must not wait for a client that does not read.
  room_.wait(lock, [&] {
    return broken_ || stopping_ || stopRequested_ || readerDone_ || queue_.empty() ||
           queuedBytes_ + line.size() <= options_.maxQueuedBytes;
  });
  if (broken_ || stopping_) return false;
  queuedBytes_ += line.size();
  queue_.push_back(std::move(line));
  cv_.notify_one();
  return true;
}

bool StdioTransport::waitForRoom() {
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return broken_ || stopRequested_ || queuedBytes_ <= options_.maxQueuedBytes; });
  return !stopRequested_;
}

bool StdioTransport::writeLine(const std::string& line) {
  // Raw write(2): nothing is buffered, so each message is on the pipe as soon as it is written.
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(outFd_, line.data() + written, line.size() - written);
    if (n > 0) {
      written += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The client is not reading. Wait for room, re-checking the shutdown deadline every 100 ms.
      std::chrono::steady_clock::time_point deadline;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        deadline = writeDeadline_;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      pollfd p{outFd_, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    return false;  // EPIPE and friends: the client went away
  }
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
    const bool ok = writeLine(line);
    lock.lock();
    queuedBytes_ -= line.size();
    if (!ok) {
      broken_ = true;
      queue_.clear();
      queuedBytes_ = 0;
    }
    room_.notify_all();
  }
}

void StdioTransport::stopWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    writeDeadline_ = std::chrono::steady_clock::now() + options_.shutdownWriteGrace;
    cv_.notify_one();
    room_.notify_all();
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
    // Backpressure: no new request while the client leaves its answers unread.
    if (!waitForRoom()) {
      stopped = true;
      break;
    }
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
  {
    std::lock_guard<std::mutex> lock(mutex_);
    readerDone_ = true;
    room_.notify_all();
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
