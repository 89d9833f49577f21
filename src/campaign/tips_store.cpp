#include "campaign/tips_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "campaign/campaign_name.h"
#include "util/atomic_file.h"
#include "util/file_lock.h"
#include "util/text.h"
#include "util/time_format.h"

namespace kopt::campaign {
namespace fs = std::filesystem;

namespace {

// One path component from user-ish input: no separators, no "..", no hidden names.
std::string pathPart(const std::string& s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back((std::isalnum(u) && u < 0x80) || c == '_' || c == '-' || c == '.' ? c : '_');
  }
  while (!out.empty() && out[0] == '.') out.erase(0, 1);
  return out.empty() ? "_" : out;
}

std::string header(const TipKey& key) {
  return "# Historical Experience Tips\n\nOperator: " + key.op + " \xE2\x80\x94 Backend: " +
         key.backend + " \xE2\x80\x94 GPU: " + key.gpu + "\n\n";
}

void appendBytes(const fs::path& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw util::IoError(path, std::string("cannot open tips file: ") + std::strerror(errno));
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      throw util::IoError(path, "tips append failed: " + why);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

TipsStore::TipsStore(fs::path tipsRoot) : root_(std::move(tipsRoot)) {}

fs::path TipsStore::pathFor(const TipKey& key) const {
  return root_ / pathPart(key.gpu) / pathPart(key.op) / pathPart(util::toLower(key.backend)) / "tips.md";
}

std::optional<std::string> TipsStore::read(const TipKey& key) const {
  return util::readFileIfExists(pathFor(key));
}

std::vector<TipEntry> splitTipEntries(const std::string& text) {
  std::vector<TipEntry> entries;
  std::vector<std::size_t> starts;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, 4, "### ") == 0) starts.push_back(pos);
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  starts.push_back(text.size());
  for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
    std::string block = util::trim(std::string_view(text).substr(starts[i], starts[i + 1] - starts[i]));
    std::string head = block.substr(0, block.find('\n'));
    std::size_t k = 0;
    while (k < head.size() && (head[k] == '#' || head[k] == ' ')) ++k;
    entries.push_back({util::trim(head.substr(k)), block});
  }
  return entries;
}

TipsQuery TipsStore::query(const TipKey& key, const std::string& keyword) const {
  TipsQuery q;
  q.path = pathFor(key);
  auto text = util::readFileIfExists(q.path);
  if (!text) return q;
  q.fileExists = true;
  std::vector<std::string> words;
  for (const auto& w : util::split(util::trim(keyword), ' ')) {
    if (!w.empty()) words.push_back(w);
  }
  for (auto& e : splitTipEntries(*text)) {
    bool all = true;
    for (const auto& w : words) all = all && util::containsIgnoreCase(e.body, w);
    if (all) q.items.push_back(std::move(e));
  }
  return q;
}

std::string renderTip(const NewTip& tip, const std::string& now) {
  std::string head = "\n### " + now + " round-" + (tip.round ? std::to_string(*tip.round) : "None") +
                     " \xE2\x80\x94 " + (tip.status.empty() ? "ACCEPTED" : tip.status) + "\n";
  std::string body;
  auto field = [&](const char* label, const std::string& value) {
    // One bullet a field: newlines inside a value would start a fake entry ("### ...").
    std::string v = util::replaceAll(util::replaceAll(util::trim(value), "\r", ""), "\n", " ");
    if (!v.empty()) body += std::string("- ") + label + ": " + util::sanitizeUtf8(v) + "\n";
  };
  field("Context", tip.context);
  field("Signal", tip.signal);
  field("Takeaway", tip.takeaway);
  field("Applicability", tip.applicability);
  return head + body;
}

fs::path TipsStore::append(const TipKey& key, const NewTip& tip, const std::string& now) const {
  fs::path path = pathFor(key);
  fs::create_directories(path.parent_path());
  fs::path lockPath = path;
  lockPath.replace_extension(".lock");
  auto lock = util::FileLock::acquire(lockPath);
  std::string block = renderTip(tip, now.empty() ? util::formatManifestCreated(
                                                       std::chrono::system_clock::now())
                                                 : now);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    // A new file appears whole (header + first tip) or not at all.
    util::writeFileAtomic(path, header(key) + block);
  } else {
    appendBytes(path, block);
  }
  return path;
}

}  // namespace kopt::campaign
