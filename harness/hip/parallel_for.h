#pragma once
// Splits [0, count) into contiguous chunks over the machine's cores: the host references of the
// GPU benches (hundreds of millions of multiply-adds on big shapes) finish in seconds, not minutes.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace kopt::hipbench {

// `grain`: the fewest items worth a thread of their own (1 for heavy items such as a long dot product).
template <typename Fn>
void parallelFor(std::size_t count, Fn&& fn, std::size_t grain = 1) {
  const std::size_t byGrain = grain == 0 ? count : count / grain;
  const std::size_t workers =
      std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), byGrain));
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::vector<std::thread> threads;
  const std::size_t chunk = (count + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = w * chunk;
    const std::size_t end = std::min(count, begin + chunk);
    if (begin >= end) break;
    threads.emplace_back([&fn, begin, end] {
      for (std::size_t i = begin; i < end; ++i) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace kopt::hipbench
