#include "mcp/elastic_pool.h"

namespace kopt::mcp {

void ElasticPool::enqueue(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;
  jobs_.push_back(std::move(fn));
  // Each idle worker takes one job; start another thread only for jobs nobody will pick up.
  if (jobs_.size() > idle_ && threads_.size() < maxThreads_) threads_.emplace_back([this] { worker(); });
  cv_.notify_one();
}

void ElasticPool::worker() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (jobs_.empty()) return;  // stopping and nothing left to do
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

void ElasticPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    threads.swap(threads_);
    cv_.notify_all();
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

std::size_t ElasticPool::threadCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_.size();
}

}  // namespace kopt::mcp
