#pragma once
// Reading one campaign file as MCP resource contents, safely: the path must stay inside the
// campaign directory (no "..", no absolute path, no symlink leading out), text is served as text
// (UTF-8, invalid bytes replaced) and anything else as a base64 blob, and big files are cut with a
// marker instead of flooding the client.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "mcp/tool_api.h"

namespace kopt::tools::resources {

struct ReadLimits {
  std::size_t maxTextBytes = 256 * 1024;        // text beyond this is cut, with a marker
  std::uintmax_t maxBlobBytes = 8 * 1024 * 1024;  // binary beyond this is not sent at all
};

// `relative` ('/'-separated) resolved inside `root` (which must exist); nullopt with the reason
// when it would leave the root, or names something that is not a regular file.
std::optional<std::filesystem::path> resolveInside(const std::filesystem::path& root, const std::string& relative,
                                                   std::string* error = nullptr);

// MIME type from the file name: text types for the records kopt writes, octet-stream otherwise.
std::string guessMimeType(const std::filesystem::path& file);

// nullopt when the file does not exist (or is not a regular file). `mimeType` empty: guessed.
std::optional<mcp::ResourceContents> readFileContents(const std::string& uri, const std::filesystem::path& file,
                                                      std::string mimeType = {}, const ReadLimits& limits = {});

std::string base64Encode(const std::string& bytes);

}  // namespace kopt::tools::resources
