#pragma once
// Crash-safe file writes. A reader (or a restarted kopt) sees either the old content or the new
// content of a file, never a torn mix: write a temp file in the same directory, fsync it, rename it
// over the target, fsync the directory so the rename itself survives a power cut.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kopt::util {

// Every I/O failure in util throws this, naming the path and the OS error.
class IoError : public std::runtime_error {
 public:
  IoError(const std::filesystem::path& path, const std::string& what);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Replaces `path` with `content` atomically (temp + fsync + rename + fsync dir). Creates missing
// parent directories. Throws IoError.
void writeFileAtomic(const std::filesystem::path& path, std::string_view content);

// Whole-file read. nullopt when the file does not exist; throws IoError on any other failure.
std::optional<std::string> readFileIfExists(const std::filesystem::path& path);
// Whole-file read; throws IoError (also when missing).
std::string readFile(const std::filesystem::path& path);

// fsync a directory so that entries created/renamed in it are durable. Throws IoError.
void fsyncDirectory(const std::filesystem::path& dir);

enum class AppendOutcome { Appended, AlreadyPresent };

// Idempotent append for append-only markdown records: when `marker` (e.g.
// "<!-- kopt:event 42 -->") already occurs in the file, nothing is written; otherwise the file is
// rewritten atomically as old content + `text` (text should contain the marker). Replaying the
// ledger after a crash therefore adds exactly the missing blocks. A missing file is created.
AppendOutcome appendBlockOnce(const std::filesystem::path& path, std::string_view marker,
                              std::string_view text);

// The marker kopt puts in front of each appended block: "<!-- kopt:event <seq> -->".
std::string eventMarker(unsigned long long seq);

}  // namespace kopt::util
