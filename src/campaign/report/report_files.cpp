#include "campaign/report/report_files.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "campaign/report/metric_chart.h"
#include "campaign/report/report_markdown.h"
#include "campaign/report/shape_heatmap.h"

namespace kopt::campaign::report {

namespace {

std::string errnoText(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

}  // namespace

std::string writeFileAtomically(const std::filesystem::path& path, const std::string& contents) {
  std::filesystem::path temp = path;
  temp += ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errnoText("cannot create", temp);
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string error = errnoText("cannot write", temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return error;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    std::string error = errnoText("cannot fsync", temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return error;
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    std::string error = errnoText("cannot rename into", path);
    ::unlink(temp.c_str());
    return error;
  }
  std::filesystem::path dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);  // best effort: the rename is durable on the filesystems kopt targets
    ::close(dirFd);
  }
  return {};
}

WriteReportResult writeReportFiles(const std::filesystem::path& campaignDir, const CampaignHistory& history) {
  WriteReportResult result;
  std::error_code ec;
  if (!std::filesystem::is_directory(campaignDir, ec)) {
    result.error = "campaign directory " + campaignDir.string() + " does not exist";
    return result;
  }
  result.files = {campaignDir / kReportFile, campaignDir / kMetricChartFile, campaignDir / kHeatmapFile};
  MarkdownOptions options;
  options.metricChartFile = kMetricChartFile;
  options.heatmapFile = kHeatmapFile;
  // Charts first: report.md links to them, so it appears last and never points at nothing.
  const std::pair<const std::filesystem::path*, std::string> files[] = {
      {&result.files.metricChart, renderMetricChartSvg(history)},
      {&result.files.heatmap, renderShapeHeatmapSvg(history)},
      {&result.files.markdown, renderReportMarkdown(history, options)},
  };
  for (const auto& [path, contents] : files) {
    std::string error = writeFileAtomically(*path, contents);
    if (!error.empty()) {
      result.error = error;
      return result;
    }
  }
  result.ok = true;
  return result;
}

}  // namespace kopt::campaign::report
