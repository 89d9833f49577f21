#pragma once
// Newline-delimited framing for the stdio transport: bytes in, complete lines out. A line longer
// than the limit is dropped (up to its newline) and reported once, so one oversized message costs
// an error answer instead of unbounded memory or a dead server.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kopt::mcp {

class LineFramer {
 public:
  using LineHandler = std::function<void(std::string_view line)>;
  using OverflowHandler = std::function<void(std::size_t droppedBytes)>;

  explicit LineFramer(std::size_t maxLineBytes) : maxLineBytes_(maxLineBytes) {}

  // Lines are delivered without their "\n" (and without a trailing "\r"); blank lines are skipped.
  void feed(std::string_view data, const LineHandler& onLine, const OverflowHandler& onOverflow);
  // End of input: delivers an unterminated last line, if any.
  void finish(const LineHandler& onLine, const OverflowHandler& onOverflow);

 private:
  void deliver(const LineHandler& onLine);

  std::size_t maxLineBytes_;
  std::string buffer_;
  bool discarding_ = false;  // inside an oversized line, dropping bytes up to the next newline
  std::size_t dropped_ = 0;
};

}  // namespace kopt::mcp
