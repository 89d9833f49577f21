#pragma once
// JSON text that someone else wrote, parsed without letting it take kopt down. nlohmann's parser
// is iterative, but the values it builds are dumped and destroyed recursively: 100,000 nested
// arrays in one line are a SIGSEGV (8 MB stack, Release build). That was found first on the MCP
// transports (docs/robustness.md); a candidate's worker reply, a harness's samples, a shard's rows
// and the campaign's own records (an agent can edit them) are the same kind of input.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kopt::util {

// How deep arrays and objects may nest. No message or record of kopt's needs more than a few
// dozen levels.
inline constexpr int kMaxJsonDepth = 256;

// The deepest nesting of arrays and objects in `text`, counted outside strings; stops counting
// (and returns) once `limit` is exceeded, so a hostile text costs one linear scan.
int jsonNestingDepth(std::string_view text, int limit = kMaxJsonDepth);

// `text` as JSON, or nullopt with `problem` (when given) saying why: not JSON, a number no double
// holds, or nesting deeper than kMaxJsonDepth. Never throws.
std::optional<nlohmann::json> parseJsonText(std::string_view text, std::string* problem = nullptr);

// A file's text as parseJsonText reads it; nullopt when the file is missing or unreadable too.
std::optional<nlohmann::json> readJsonFile(const std::filesystem::path& path, std::string* problem = nullptr);

}  // namespace kopt::util
