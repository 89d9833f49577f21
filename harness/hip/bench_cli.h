#pragma once
// The bench harness command line (shared formats, "Bench harness command-line contract"):
//   <bench> --summary-csv PATH --samples PATH [--shapes L1,L2,...] [--seed N]
// plus the native harness's own switches:
//   --check-only            correctness on every shape (and the edge shapes), no timing; exit 0
//                           iff all PASS. The manifests' test_command.
//   --list-shapes           print the shape labels and exit.
//   --target-rsd F (0.005)  --time-cap-s S (2, per shape)  --min-samples N (10)  --max-samples N (400)
//                           the Python quick harness's names and defaults (sampling.h)
//   --flush-mib N           L2/LLC flush buffer size (default: max(2 x L2, 256 MiB; 512 MiB on AMD)).
//   --no-launch-cover       no spin in front of each timed call (gpu/launch_cover.h): the device is
//                           idle when the start event executes. For measuring what the cover changes.
//   --write-flush           evict the L2 by overwriting the flush buffer instead of reading it
//                           (flush_mode.h): leaves a write-back for the timed call. For comparisons.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/hip/flush_mode.h"
#include "harness/hip/sampling.h"

namespace kopt::hipbench {

struct BenchArgs {
  std::string summaryCsv;
  std::string samplesPath;
  std::optional<std::vector<std::string>> shapes;
  std::uint64_t seed = 0;
  bool checkOnly = false;
  bool listShapes = false;
  bool help = false;
  SamplingPolicy sampling;
  std::optional<std::uint64_t> flushBytes;
  bool launchCover = true;
  FlushMode flushMode = FlushMode::Read;
};

struct CliError {
  std::string message;  // names the option and what is expected
};

std::variant<BenchArgs, CliError> parseBenchArgs(const std::vector<std::string>& args);

std::string benchUsage(const std::string& program);

}  // namespace kopt::hipbench
