#include "mcp/head_readers.h"

#include <utility>

namespace kopt::mcp {

HeadReaders::HeadReaders(std::size_t capacity, Evict evict)
    : capacity_(capacity == 0 ? 1 : capacity), evict_(std::move(evict)) {}

std::uint64_t HeadReaders::begin(int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (readers_.size() >= capacity_) {
    evict_(readers_.front().fd);
    readers_.pop_front();
    ++evicted_;
  }
  const std::uint64_t ticket = next_++;
  readers_.push_back({ticket, fd});
  return ticket;
}

void HeadReaders::done(std::uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = readers_.begin(); it != readers_.end(); ++it) {
    if (it->ticket == ticket) {
      readers_.erase(it);
      return;
    }
  }
}

std::size_t HeadReaders::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return readers_.size();
}

std::size_t HeadReaders::evicted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return evicted_;
}

}  // namespace kopt::mcp
