#pragma once
// A cancellation flag shared between whoever asks for a stop (an MCP `notifications/cancelled`,
// a timeout, a signal) and the code doing the work (a running command, a bench loop). It lives in
// util because both the protocol layer and the executor need it and neither may know the other.
#include <atomic>
#include <memory>

namespace kopt {

class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void cancel() const { flag_->store(true, std::memory_order_release); }
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;  // copies share one flag
};

}  // namespace kopt
