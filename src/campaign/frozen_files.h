#pragma once
// What BASELINE freezes: the bytes of files (the quick harness copy, kernel-independent frozen
// files) and of strings (the schema header, the test and bench commands, the shape list). Later
// verification lists every difference, so a tampering report says exactly what changed.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::campaign {

struct FrozenEntry {
  enum class Kind { File, Text };
  std::string name;            // display name: "tests/bench.py", "schema header", "test_command"
  Kind kind = Kind::File;
  std::filesystem::path path;  // File only: relative to the verify() base dir (or absolute)
  std::string sha256;          // hex
  bool operator==(const FrozenEntry& o) const {
    return name == o.name && kind == o.kind && path == o.path && sha256 == o.sha256;
  }
};

struct FrozenDifference {
  std::string name;
  std::string was;      // sha256 recorded
  std::string now;      // sha256 now; "" when missing / unreadable / not supplied
  std::string message;  // "tests/bench.py changed: sha256 was ab12cd34.. now cd34ef56.."
};

class FrozenSet {
 public:
  // Hashes the file now (`baseDir / relPath` unless relPath is absolute). Throws util::IoError.
  void addFile(const std::string& name, const std::filesystem::path& relPath,
               const std::filesystem::path& baseDir);
  void addText(const std::string& name, const std::string& text);
  const std::vector<FrozenEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  // Re-hashes files under baseDir; texts are compared with `currentTexts[name]` (a text missing
  // from the map is reported as a difference). Empty result = intact.
  std::vector<FrozenDifference> verify(const std::filesystem::path& baseDir,
                                       const std::map<std::string, std::string>& currentTexts) const;

  nlohmann::json toJson() const;  // [{"name","kind":"file"|"text","path"?,"sha256"}]
  static FrozenSet fromJson(const nlohmann::json& j);  // throws std::runtime_error naming the entry
  bool operator==(const FrozenSet& o) const { return entries_ == o.entries_; }

 private:
  std::vector<FrozenEntry> entries_;
};

}  // namespace kopt::campaign
