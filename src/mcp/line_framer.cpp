#include "mcp/line_framer.h"

namespace kopt::mcp {

void LineFramer::deliver(const LineHandler& onLine) {
  std::string_view line(buffer_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find_first_not_of(" \t\r") != std::string_view::npos) onLine(line);
  buffer_.clear();
}

void LineFramer::feed(std::string_view data, const LineHandler& onLine, const OverflowHandler& onOverflow) {
  while (!data.empty()) {
    const std::size_t newline = data.find('\n');
    const std::string_view chunk = data.substr(0, newline);
    if (discarding_) {
      dropped_ += chunk.size();
    } else if (buffer_.size() + chunk.size() > maxLineBytes_) {
      discarding_ = true;
      dropped_ = buffer_.size() + chunk.size();
      buffer_.clear();
      buffer_.shrink_to_fit();
    } else {
      buffer_.append(chunk);
    }
    if (newline == std::string_view::npos) return;
    if (discarding_) {
      onOverflow(dropped_);
      discarding_ = false;
      dropped_ = 0;
    } else {
      deliver(onLine);
    }
    data.remove_prefix(newline + 1);
  }
}

void LineFramer::finish(const LineHandler& onLine, const OverflowHandler& onOverflow) {
  if (discarding_) {
    onOverflow(dropped_);
    discarding_ = false;
    dropped_ = 0;
  } else if (!buffer_.empty()) {
    deliver(onLine);
  }
}

}  // namespace kopt::mcp
