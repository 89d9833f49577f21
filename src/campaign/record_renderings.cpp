#include "campaign/record_renderings.h"

#include <atomic>
#include <map>
#include <system_error>
#include <unistd.h>

#include "util/atomic_file.h"

namespace kopt::campaign::detail {

namespace fs = std::filesystem;

namespace {

// A directory that removes itself.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static std::atomic<unsigned> counter{0};
    path = fs::temp_directory_path() /
           ("kopt-render-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::error_code ec;
    fs::remove_all(path, ec);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The rendered files, campaign-relative path -> bytes, of the events up to `upTo`.
std::map<std::string, std::string> render(const OpenCampaign& s, std::uint64_t upTo) {
  ScratchDir scratch;
  OpenCampaign r;
  r.options = s.options;
  r.name = s.name;
  r.repo = s.repo;
  r.manifest = s.manifest;
  r.state = s.state;
  // The same paths in every text (the campaign directory is named in optimize.md), files elsewhere.
  r.paths = s.paths;
  r.paths.logsDir = scratch.path / "logs";
  r.paths.optimizeLog = r.paths.logsDir / "optimize.md";
  r.paths.performanceTrend = r.paths.logsDir / "performance_trend.md";
  r.paths.roundsDir = scratch.path / "rounds";
  for (const auto& e : s.events) {
    if (e.seq <= upTo) r.events.push_back(e);
  }
  for (const auto& e : r.events) writeEventRecords(r, e);

  std::map<std::string, std::string> out;
  auto take = [&](const fs::path& file, const std::string& rel) {
    if (auto text = util::readFileIfExists(file)) out[rel] = *text;
  };
  take(r.paths.optimizeLog, "logs/optimize.md");
  take(r.paths.performanceTrend, "logs/performance_trend.md");
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(r.paths.roundsDir, ec)) {
    const std::string name = dir.path().filename().string();
    take(dir.path() / "summary.md", "rounds/" + name + "/summary.md");
    take(dir.path() / "decision.json", "rounds/" + name + "/decision.json");
  }
  return out;
}

}  // namespace

RenderingCheck checkRenderings(const OpenCampaign& s, bool restore, std::optional<std::uint64_t> alsoUpTo) {
  RenderingCheck check;
  const std::uint64_t last = s.events.empty() ? 0 : s.events.back().seq;
  const auto expected = render(s, last);
  std::optional<std::map<std::string, std::string>> earlier;
  for (const auto& [rel, text] : expected) {
    const fs::path file = s.paths.root / rel;
    const auto now = util::readFileIfExists(file);
    if (now && *now == text) continue;
    if (alsoUpTo && *alsoUpTo < last) {
      if (!earlier) earlier = render(s, *alsoUpTo);
      auto it = earlier->find(rel);
      if (it == earlier->end() ? !now : (now && *now == it->second)) continue;
    }
    check.differing.push_back(rel);
    if (restore) {
      util::writeFileAtomic(file, text);
      check.restored.push_back(rel);
    }
  }
  return check;
}

}  // namespace kopt::campaign::detail
