#include "harness/hip/bench_cli.h"

#include <cerrno>
#include <cstdlib>
#include <set>

namespace kopt::hipbench {

namespace {

std::optional<std::uint64_t> parseUnsigned(const std::string& text) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

std::optional<double> parsePositive(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || errno != 0 || end != text.c_str() + text.size() || !(v > 0)) return std::nullopt;
  return v;
}

}  // namespace

std::variant<BenchArgs, CliError> parseBenchArgs(const std::vector<std::string>& args) {
  BenchArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& opt = args[i];
    auto value = [&](const char* what) -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      (void)what;
      return args[++i];
    };
    auto missing = [&](const std::string& what) { return CliError{opt + " needs " + what}; };
    if (opt == "--help" || opt == "-h") {
      out.help = true;
    } else if (opt == "--summary-csv") {
      auto v = value("a path");
      if (!v || v->empty()) return missing("a file path");
      out.summaryCsv = *v;
    } else if (opt == "--samples") {
      auto v = value("a path");
      if (!v || v->empty()) return missing("a file path");
      out.samplesPath = *v;
    } else if (opt == "--shapes") {
      auto v = value("labels");
      if (!v) return missing("a comma-separated list of shape labels");
      std::vector<std::string> labels;
      std::set<std::string> seen;
      std::size_t start = 0;
      while (start <= v->size()) {
        const std::size_t comma = v->find(',', start);
        const std::string label = v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (label.empty()) return CliError{"--shapes has an empty label in '" + *v + "'"};
        if (!seen.insert(label).second) return CliError{"--shapes names '" + label + "' twice"};
        labels.push_back(label);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      out.shapes = labels;
    } else if (opt == "--seed") {
      auto v = value("N");
      auto n = v ? parseUnsigned(*v) : std::nullopt;
      if (!n) return missing("a non-negative integer");
      out.seed = *n;
    } else if (opt == "--check-only") {
      out.checkOnly = true;
    } else if (opt == "--no-launch-cover") {
      out.launchCover = false;
    } else if (opt == "--write-flush") {
      out.flushMode = FlushMode::Write;
    } else if (opt == "--list-shapes") {
      out.listShapes = true;
    } else if (opt == "--target-rsd" || opt == "--time-cap-s") {
      auto v = value("a number");
      auto x = v ? parsePositive(*v) : std::nullopt;
      if (!x) return missing("a positive number");
      if (opt == "--target-rsd") out.sampling.targetRsd = *x;
      else out.sampling.timeCapSeconds = *x;
    } else if (opt == "--min-samples" || opt == "--max-samples") {
      auto v = value("N");
      auto n = v ? parseUnsigned(*v) : std::nullopt;
      if (!n || *n == 0 || *n > 1000000) return missing("an integer between 1 and 1000000");
      (opt == "--min-samples" ? out.sampling.minSamples : out.sampling.maxSamples) = static_cast<int>(*n);
    } else if (opt == "--flush-mib") {
      auto v = value("N");
      auto n = v ? parseUnsigned(*v) : std::nullopt;
      if (!n || *n == 0 || *n > (1u << 20)) return missing("a size in MiB between 1 and 1048576");
      out.flushBytes = *n << 20;
    } else {
      return CliError{"unknown option '" + opt + "' (see --help)"};
    }
  }
  if (out.help || out.listShapes) return out;
  if (out.sampling.minSamples > out.sampling.maxSamples) {
    return CliError{"--min-samples (" + std::to_string(out.sampling.minSamples) + ") exceeds --max-samples (" +
                    std::to_string(out.sampling.maxSamples) + ")"};
  }
  if (!out.checkOnly) {
    if (out.summaryCsv.empty()) return CliError{"--summary-csv PATH is required"};
    if (out.samplesPath.empty()) return CliError{"--samples PATH is required"};
  }
  return out;
}

std::string benchUsage(const std::string& program) {
  return "usage: " + program +
         " --summary-csv PATH --samples PATH [--shapes L1,L2,...] [--seed N]\n"
         "       " + program + " --check-only [--shapes ...] [--seed N]\n"
         "       " + program + " --list-shapes\n"
         "options: --target-rsd F (0.005) --time-cap-s S (2, per shape) --min-samples N (10) --max-samples N (400)\n"
         "         --flush-mib N (default max(2 x L2, 256 MiB; 512 MiB on AMD))\n"
         "         --no-launch-cover (the device idle at each start event: only to measure the cover)\n"
         "         --write-flush (evict the L2 by overwriting the flush buffer: only to measure its write-back)\n";
}

}  // namespace kopt::hipbench
