#include "exec/output_tail.h"

#include <fstream>
#include <system_error>

namespace kopt::exec {

std::uintmax_t fileSize(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

std::string lastCompleteLine(const std::filesystem::path& path, std::size_t maxBytes) {
  constexpr std::uintmax_t kWindow = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  const std::streamoff start = size > static_cast<std::streamoff>(kWindow) ? size - kWindow : 0;
  std::string buf(static_cast<size_t>(size - start), '\0');
  in.seekg(start);
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));

  const size_t end = buf.rfind('\n');  // end of the last complete line
  if (end == std::string::npos) return {};
  const size_t prev = end == 0 ? std::string::npos : buf.rfind('\n', end - 1);
  const size_t begin = prev == std::string::npos ? 0 : prev + 1;
  if (prev == std::string::npos && start > 0) return {};  // the line is longer than the window
  std::string line = buf.substr(begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > maxBytes) line.resize(maxBytes);
  return line;
}

std::string tailText(const std::filesystem::path& path, std::size_t maxBytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return {};
  const std::streamoff start = size > static_cast<std::streamoff>(maxBytes) ? size - static_cast<std::streamoff>(maxBytes) : 0;
  std::string buf(static_cast<size_t>(size - start), '\0');
  in.seekg(start);
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));
  return buf;
}

}  // namespace kopt::exec
