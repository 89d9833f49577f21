#include "util/json_text.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kopt::util {

int jsonNestingDepth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (const char c : text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::optional<nlohmann::json> parseJsonText(std::string_view text, std::string* problem) {
  if (jsonNestingDepth(text) > kMaxJsonDepth) {
    if (problem) *problem = "arrays and objects nest deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    // parse_error, and out_of_range for a number no double holds ("1e400").
    if (problem) {
      constexpr std::size_t kMaxMessage = 300;  // an overflowing number is quoted in the message
      std::string what = e.what();
      if (what.size() > kMaxMessage) what = what.substr(0, kMaxMessage) + "...";
      *problem = what;
    }
    return std::nullopt;
  }
}

std::optional<nlohmann::json> readJsonFile(const std::filesystem::path& path, std::string* problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (problem) *problem = "cannot be read";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseJsonText(text.str(), problem);
}

}  // namespace kopt::util
