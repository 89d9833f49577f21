#include "campaign/report/report_files.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <unistd.h>

#include "campaign/report/report_test_support.h"

using namespace kopt::campaign::report;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "kopt-report-XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("writeReportFiles writes the three files and nothing else") {
  TempDir dir;
  auto result = writeReportFiles(dir.path, testing::sampleHistory());
  REQUIRE_MESSAGE(result.ok, result.error);
  CHECK(result.files.markdown == dir.path / "report.md");
  CHECK(slurp(result.files.markdown).find("## Final Report") != std::string::npos);
  CHECK(slurp(result.files.metricChart).find("<svg") != std::string::npos);
  CHECK(slurp(result.files.heatmap).find("<svg") != std::string::npos);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 3);  // no temp files left behind

  SUBCASE("writing again replaces the files") {
    auto h = testing::sampleHistory();
    h.campaignName = "renamed_campaign";
    REQUIRE(writeReportFiles(dir.path, h).ok);
    CHECK(slurp(dir.path / "report.md").find("renamed_campaign") != std::string::npos);
  }
}

TEST_CASE("writeReportFiles refuses a missing directory, naming it") {
  auto result = writeReportFiles("/nonexistent/kopt/campaign", testing::sampleHistory());
  CHECK_FALSE(result.ok);
  CHECK(result.error.find("/nonexistent/kopt/campaign") != std::string::npos);
}

TEST_CASE("writeFileAtomically reports an unwritable target and leaves no temp file") {
  TempDir dir;
  fs::create_directory(dir.path / "sub");
  std::string error = writeFileAtomically(dir.path / "missing-dir" / "x.md", "x");
  CHECK(error.find("cannot create") != std::string::npos);
  CHECK(writeFileAtomically(dir.path / "sub" / "ok.md", "hello").empty());
  CHECK(slurp(dir.path / "sub" / "ok.md") == "hello");
}
