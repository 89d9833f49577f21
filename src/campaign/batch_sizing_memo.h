#pragma once
// What one call of a shape costs the best build, remembered across looks. The interleaved runner
// sizes every batch from it, and the best's prepare measured it with a long sizing batch each
// look (about 0.1 s per direction and shape on the H200, a second of every look), although the
// same build costs the same. Batches of one best build then also keep one size from look to look.
//
// Keyed by the best's identity (its commit and the bench command: an accepted round, or another
// command, measures afresh) and the shape. One memo per kopt process, shared by its campaigns,
// whose identities differ; bounded, since a long-lived server sees many builds.
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace kopt::campaign {

class BatchSizingMemo {
 public:
  static BatchSizingMemo& shared();

  // The remembered ms of one call of every direction of `shape` under `identity`; none for an
  // empty identity (nothing identifies the build) or a shape not measured yet.
  std::optional<double> stepMs(const std::string& identity, const std::string& shape) const;
  // Keeps a positive, finite estimate; forgets everything once kMaxEntries are kept.
  void remember(const std::string& identity, const std::string& shape, double stepMs);

  static constexpr std::size_t kMaxEntries = 4096;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, double> steps_;
};

}  // namespace kopt::campaign
