#include "cli/run_log_cause.h"

#include "util/text.h"

namespace kopt::cli {

std::vector<std::string> runLogCause(std::string_view log, std::string_view program, std::string_view shape,
                                     std::size_t maxLines) {
  const std::string own = std::string(program) + ": ";
  const std::string timing = own + "time:";
  const std::string named = own + "shape " + std::string(shape);
  std::vector<std::string> aboutShape, other, any;
  for (const auto& raw : util::splitLines(log)) {
    const std::string line = util::truncateUtf8(util::trim(raw), 400);
    if (line.empty()) continue;
    any.push_back(line);
    if (program.empty() || !util::startsWith(line, own) || util::startsWith(line, timing)) continue;
    const bool onShape = util::startsWith(line, named) &&
                         (line.size() == named.size() || line[named.size()] == ':' || line[named.size()] == ',');
    (onShape ? aboutShape : other).push_back(line);
  }
  std::vector<std::string> out = aboutShape;
  out.insert(out.end(), other.begin(), other.end());
  if (out.empty()) out.assign(any.end() - static_cast<std::ptrdiff_t>(std::min(any.size(), maxLines)), any.end());
  if (out.size() > maxLines) out.resize(maxLines);
  return out;
}

}  // namespace kopt::cli
