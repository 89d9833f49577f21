#pragma once
// The benchmark CSV parse_bench_csv is pointed at, found and read the way the turbo helper finds
// it (a relative path against the campaign directory first, then the workspace root), and only
// inside the workspace or the campaign: the agent names the path, so the path is checked.
#include <cstdint>
#include <filesystem>
#include <string>

#include "tools/field_reader.h"

namespace kopt::tools {

struct BenchCsvFile {
  std::filesystem::path path;  // as resolved
  std::string text;
};

struct BenchCsvPlace {
  std::filesystem::path workspaceRoot;  // "" = anywhere, relative to the working directory
  std::filesystem::path campaignDir;    // "" when the call names no campaign
  std::uintmax_t maxFileBytes = 0;
};

// The file's bytes, or a problem with `csv_path` (outside the places, missing, too large, unreadable).
Checked<BenchCsvFile> readBenchCsvFile(const std::string& csvPath, const BenchCsvPlace& place);

}  // namespace kopt::tools
