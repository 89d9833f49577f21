#include "campaign/frozen_files.h"

#include <stdexcept>

#include "util/atomic_file.h"
#include "util/sha256.h"

namespace kopt::campaign {
namespace fs = std::filesystem;

namespace {

fs::path resolve(const fs::path& baseDir, const fs::path& p) {
  return p.is_absolute() ? p : baseDir / p;
}

std::string shortHash(const std::string& h) { return h.empty() ? "(none)" : h.substr(0, 12) + ".."; }

}  // namespace

void FrozenSet::addFile(const std::string& name, const fs::path& relPath, const fs::path& baseDir) {
  FrozenEntry e;
  e.name = name;
  e.kind = FrozenEntry::Kind::File;
  e.path = relPath;
  e.sha256 = util::sha256FileHex(resolve(baseDir, relPath));
  entries_.push_back(std::move(e));
}

void FrozenSet::addText(const std::string& name, const std::string& text) {
  FrozenEntry e;
  e.name = name;
  e.kind = FrozenEntry::Kind::Text;
  e.sha256 = util::sha256Hex(text);
  entries_.push_back(std::move(e));
}

std::vector<FrozenDifference> FrozenSet::verify(
    const fs::path& baseDir, const std::map<std::string, std::string>& currentTexts) const {
  std::vector<FrozenDifference> diffs;
  for (const auto& e : entries_) {
    FrozenDifference d;
    d.name = e.name;
    d.was = e.sha256;
    if (e.kind == FrozenEntry::Kind::File) {
      fs::path p = resolve(baseDir, e.path);
      std::error_code ec;
      if (!fs::exists(p, ec)) {
        d.message = e.name + " is missing (frozen at BASELINE with sha256 " + shortHash(e.sha256) + ")";
        diffs.push_back(d);
        continue;
      }
      try {
        d.now = util::sha256FileHex(p);
      } catch (const util::IoError& err) {
        d.message = e.name + " cannot be read: " + err.what();
        diffs.push_back(d);
        continue;
      }
    } else {
      auto it = currentTexts.find(e.name);
      if (it == currentTexts.end()) {
        d.message = e.name + ": no current value to compare with the frozen one";
        diffs.push_back(d);
        continue;
      }
      d.now = util::sha256Hex(it->second);
    }
    if (d.now != d.was) {
      d.message = e.name + " changed: sha256 was " + shortHash(d.was) + " now " + shortHash(d.now);
      diffs.push_back(d);
    }
  }
  return diffs;
}

nlohmann::json FrozenSet::toJson() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& e : entries_) {
    nlohmann::json j = {{"name", e.name},
                        {"kind", e.kind == FrozenEntry::Kind::File ? "file" : "text"},
                        {"sha256", e.sha256}};
    if (e.kind == FrozenEntry::Kind::File) j["path"] = e.path.generic_string();
    arr.push_back(j);
  }
  return arr;
}

FrozenSet FrozenSet::fromJson(const nlohmann::json& j) {
  if (!j.is_array()) throw std::runtime_error("frozen: expected a list of entries");
  FrozenSet set;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& item = j[i];
    std::string where = "frozen[" + std::to_string(i) + "]";
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string() ||
        !item.contains("sha256") || !item["sha256"].is_string() || !item.contains("kind") ||
        !item["kind"].is_string()) {
      throw std::runtime_error(where + ": needs string fields name, kind, sha256");
    }
    FrozenEntry e;
    e.name = item["name"].get<std::string>();
    e.sha256 = item["sha256"].get<std::string>();
    std::string kind = item["kind"].get<std::string>();
    if (kind == "file") {
      e.kind = FrozenEntry::Kind::File;
      if (!item.contains("path") || !item["path"].is_string()) {
        throw std::runtime_error(where + " (" + e.name + "): a file entry needs a path");
      }
      e.path = item["path"].get<std::string>();
    } else if (kind == "text") {
      e.kind = FrozenEntry::Kind::Text;
    } else {
      throw std::runtime_error(where + ": kind '" + kind + "' is not file or text");
    }
    set.entries_.push_back(std::move(e));
  }
  return set;
}

}  // namespace kopt::campaign
