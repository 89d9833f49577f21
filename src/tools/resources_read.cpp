#include "tools/resources_read.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tools/output_limits.h"
#include "util/text.h"

namespace kopt::tools::resources {

namespace fs = std::filesystem;

namespace {

bool fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return false;
}

// Bytes that make a file binary for our purposes: NUL anywhere in the first block.
bool looksBinary(const std::string& bytes) {
  size_t n = std::min<size_t>(bytes.size(), 8192);
  return std::find(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n), '\0') != bytes.begin() + static_cast<std::ptrdiff_t>(n);
}

bool isTextMime(const std::string& mime) {
  return mime.rfind("text/", 0) == 0 || mime == "application/json" || mime == "application/jsonl" ||
         mime == "application/yaml" || mime == "image/svg+xml";
}

std::optional<std::string> readBytes(const fs::path& file, std::uintmax_t max) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes;
  bytes.resize(static_cast<size_t>(max));
  in.read(bytes.data(), static_cast<std::streamsize>(max));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

// The last `n` bytes of a file, without reading the rest.
std::optional<std::string> readTail(const fs::path& file, std::uintmax_t size, std::uintmax_t n) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::uintmax_t start = size > n ? size - n : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string bytes(static_cast<size_t>(size - start), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

}  // namespace

std::optional<fs::path> resolveInside(const fs::path& root, const std::string& relative, std::string* error) {
  if (relative.empty()) {
    fail(error, "empty path");
    return std::nullopt;
  }
  fs::path rel(relative);
  if (rel.is_absolute() || relative[0] == '/' || relative[0] == '\\') {
    fail(error, "absolute paths are refused");
    return std::nullopt;
  }
  for (const auto& part : rel) {
    if (part == "..") {
      fail(error, "'..' is refused");
      return std::nullopt;
    }
  }
  std::error_code ec;
  fs::path canonicalRoot = fs::canonical(root, ec);
  if (ec) {
    fail(error, "campaign directory is gone");
    return std::nullopt;
  }
  fs::path target = fs::canonical(canonicalRoot / rel, ec);  // follows every symlink
  if (ec) {
    fail(error, "no such file");
    return std::nullopt;
  }
  auto rootText = canonicalRoot.generic_string(), targetText = target.generic_string();
  if (targetText.size() <= rootText.size() || targetText.compare(0, rootText.size(), rootText) != 0 ||
      targetText[rootText.size()] != '/') {
    fail(error, "resolves outside the campaign directory");
    return std::nullopt;
  }
  if (!fs::is_regular_file(target, ec)) {
    fail(error, "not a regular file");
    return std::nullopt;
  }
  return target;
}

std::string guessMimeType(const fs::path& file) {
  std::string ext = util::toLower(file.extension().string());
  if (ext == ".md") return "text/markdown";
  if (ext == ".json") return "application/json";
  if (ext == ".jsonl" || ext == ".ndjson") return "application/jsonl";
  if (ext == ".yaml" || ext == ".yml") return "application/yaml";
  if (ext == ".csv") return "text/csv";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".log" || ext == ".txt" || ext == ".out" || ext == ".err") return "text/plain";
  if (ext == ".py") return "text/x-python";
  if (ext == ".cpp" || ext == ".cc" || ext == ".h" || ext == ".hpp" || ext == ".cu" || ext == ".hip")
    return "text/x-c++";
  if (ext == ".diff" || ext == ".patch") return "text/x-diff";
  return "application/octet-stream";
}

std::string base64Encode(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<mcp::ResourceContents> readFileContents(const std::string& uri, const fs::path& file, std::string mimeType,
                                                      const ReadLimits& limits) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::uintmax_t size = fs::file_size(file, ec);
  if (ec) return std::nullopt;
  if (mimeType.empty()) mimeType = guessMimeType(file);
  mcp::ResourceContents contents;
  contents.uri = uri;
  contents.mimeType = mimeType;

  // Text: read one byte past the limit to know whether it was cut.
  std::uintmax_t want = isTextMime(mimeType) || mimeType == "application/octet-stream"
                            ? std::min<std::uintmax_t>(size, limits.maxTextBytes + 1)
                            : std::min<std::uintmax_t>(size, limits.maxBlobBytes);
  auto bytes = readBytes(file, want);
  if (!bytes) return std::nullopt;

  bool text = isTextMime(mimeType) || (mimeType == "application/octet-stream" && !looksBinary(*bytes) &&
                                       util::isValidUtf8(util::truncateUtf8(*bytes, limits.maxTextBytes)));
  if (text) {
    if (mimeType == "application/octet-stream") contents.mimeType = "text/plain";
    std::string hint = "the whole file is " + file.string();
    if (size > limits.maxTextBytes) {
      bool isLog = contents.mimeType == "text/plain";  // build/test logs: the end is what matters
      if (isLog) {
        auto tail = readTail(file, size, limits.maxTextBytes);
        std::string body = tail ? *tail : *bytes;
        size_t skip = 0;  // the cut may fall inside a code point
        while (skip < body.size() && skip < 3 && (static_cast<unsigned char>(body[skip]) & 0xC0) == 0x80) ++skip;
        contents.text = "[kopt: truncated " + file.filename().string() + ": last " + std::to_string(body.size() - skip) +
                        " of " + std::to_string(size) + " bytes shown; " + hint + "]\n" +
                        util::sanitizeUtf8(std::string_view(body).substr(skip));
      } else {
        TextWindow w = windowText(*bytes, 0, limits.maxTextBytes);
        w.total = static_cast<std::size_t>(size);
        contents.text = withTruncationMarker(w, file.filename().string(), hint);
      }
    } else {
      contents.text = util::sanitizeUtf8(*bytes);
    }
    return contents;
  }
  if (size > limits.maxBlobBytes) {
    contents.mimeType = "text/plain";
    contents.text = "[kopt: " + file.filename().string() + " is " + std::to_string(size) +
                    " bytes of binary data, over the " + std::to_string(limits.maxBlobBytes) +
                    "-byte limit for a resource; the file is " + file.string() + "]";
    return contents;
  }
  if (bytes->size() < size) {
    auto all = readBytes(file, size);
    if (!all) return std::nullopt;
    bytes = std::move(all);
  }
  contents.blobBase64 = base64Encode(*bytes);
  return contents;
}

}  // namespace kopt::tools::resources
