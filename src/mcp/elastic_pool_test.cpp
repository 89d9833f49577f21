#include "mcp/elastic_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

using namespace kopt::mcp;

TEST_CASE("jobs that block do not starve later jobs while under the thread cap") {
  ElasticPool pool(64);
  std::mutex mutex;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> blocked{0};
  for (int i = 0; i < 50; ++i) {
    pool.enqueue([&] {
      ++blocked;
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait(lock, [&] { return release; });
    });
  }
  // With a fixed pool of 8 this job would wait for a blocked one; here it gets its own thread.
  std::atomic<bool> ran{false};
  pool.enqueue([&] {
    ran = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    CHECK(cv.wait_for(lock, std::chrono::seconds(10), [&] { return ran.load(); }));
    release = true;
  }
  cv.notify_all();
  pool.shutdown();
  CHECK(blocked == 50);
  CHECK(pool.threadCount() == 0);
}

TEST_CASE("idle threads are reused") {
  ElasticPool pool(64);
  for (int round = 0; round < 20; ++round) {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    pool.enqueue([&] {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; }));
  }
  CHECK(pool.threadCount() < 20);  // without reuse every round would start a thread
}
