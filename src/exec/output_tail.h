#pragma once
// Watching a running command's output files for progress reports: how much was written and the
// last complete line, read from the end of the file so a command that writes gigabytes costs the
// same to watch as one that writes a line.
#include <cstdint>
#include <filesystem>
#include <string>

namespace kopt::exec {

// Size of the file in bytes; 0 when it does not exist (yet).
std::uintmax_t fileSize(const std::filesystem::path& path);

// The last '\n'-terminated line of the file (without the newline, and without a trailing '\r'),
// trimmed to `maxBytes`; empty when there is none. Only the last 64 KiB are read.
std::string lastCompleteLine(const std::filesystem::path& path, std::size_t maxBytes = 200);

// The last `maxBytes` bytes of the file (all of it when smaller); empty when unreadable.
std::string tailText(const std::filesystem::path& path, std::size_t maxBytes = 8192);

}  // namespace kopt::exec
