#include "tools/bench_csv_file.h"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace kopt::tools {

namespace fs = std::filesystem;

namespace {

bool isInside(const fs::path& root, const fs::path& path) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(root, ec);
  if (ec) return false;
  fs::path p = fs::weakly_canonical(path, ec);
  if (ec) return false;
  auto [ri, pi] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return ri == r.end();
}

fs::path resolve(const std::string& csvPath, const BenchCsvPlace& place) {
  fs::path path(csvPath);
  if (!path.is_relative()) return path;
  fs::path base = place.campaignDir.empty() ? place.workspaceRoot : place.campaignDir;
  std::error_code ec;
  if (!place.campaignDir.empty() && !fs::exists(base / path, ec) && !place.workspaceRoot.empty())
    base = place.workspaceRoot;
  return base.empty() ? path : base / path;
}

ArgumentProblem csvProblem(std::string message, std::string fix) {
  return ArgumentProblem{"csv_path", std::move(message), std::move(fix)};
}

}  // namespace

Checked<BenchCsvFile> readBenchCsvFile(const std::string& csvPath, const BenchCsvPlace& place) {
  const fs::path path = resolve(csvPath, place);
  if (!place.workspaceRoot.empty() && !isInside(place.workspaceRoot, path) &&
      !(!place.campaignDir.empty() && isInside(place.campaignDir, path)))
    return csvProblem("'" + csvPath + "' is outside the workspace " + place.workspaceRoot.string(),
                      "pass a CSV inside the workspace or the campaign directory");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return csvProblem("no such file: " + path.string(),
                      "check the path; relative paths resolve against " +
                          std::string(place.campaignDir.empty() ? "the workspace root" : "the campaign directory"));
  const auto size = fs::file_size(path, ec);
  if (ec || size > place.maxFileBytes)
    return csvProblem("the file is larger than " + std::to_string(place.maxFileBytes) + " bytes",
                      "a benchmark table has one row per shape; check that this is the right file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return csvProblem("cannot read " + path.string(), "check the file's permissions");
  BenchCsvFile file{path, std::string(static_cast<std::size_t>(size), '\0')};
  in.read(file.text.data(), static_cast<std::streamsize>(size));
  file.text.resize(static_cast<std::size_t>(in.gcount()));
  return file;
}

}  // namespace kopt::tools
