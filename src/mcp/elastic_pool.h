#pragma once
// A task queue for cpp-httplib that grows a thread per waiting job up to a cap. cpp-httplib runs
// a whole connection (keep-alive included) and every SSE stream on one worker; with a fixed pool of
// N, N open streams make every other request (even `ping`) wait. Here an idle thread is reused when
// there is one and a new one is started otherwise, so open streams cost threads, not availability.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace kopt::mcp {

class ElasticPool : public httplib::TaskQueue {
 public:
  explicit ElasticPool(std::size_t maxThreads) : maxThreads_(maxThreads == 0 ? 1 : maxThreads) {}
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  std::size_t threadCount() const;

 private:
  void worker();

  const std::size_t maxThreads_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;  // workers waiting for a job
  bool stopping_ = false;
};

}  // namespace kopt::mcp
