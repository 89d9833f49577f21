#include "campaign/batch_sizing_memo.h"

#include <cmath>

namespace kopt::campaign {

BatchSizingMemo& BatchSizingMemo::shared() {
  static BatchSizingMemo memo;
  return memo;
}

std::optional<double> BatchSizingMemo::stepMs(const std::string& identity, const std::string& shape) const {
  if (identity.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = steps_.find({identity, shape});
  if (it == steps_.end()) return std::nullopt;
  return it->second;
}

void BatchSizingMemo::remember(const std::string& identity, const std::string& shape, double stepMs) {
  if (identity.empty() || !(stepMs > 0) || !std::isfinite(stepMs)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (steps_.size() >= kMaxEntries) steps_.clear();
  steps_[{identity, shape}] = stepMs;
}

}  // namespace kopt::campaign
