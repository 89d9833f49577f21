// Renders both charts to PNG with rsvg-convert (Debian librsvg2-bin) and checks the pixels: a
// chart that is well-formed XML can still draw nothing (everything off-canvas, a zero-size
// viewBox, white on white). The PNGs stay under the build tree for a human to look at.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "campaign/report/metric_chart.h"
#include "campaign/report/report_files.h"
#include "campaign/report/report_test_support.h"
#include "campaign/report/shape_heatmap.h"

using namespace kopt::campaign::report;
namespace fs = std::filesystem;

namespace {

bool haveTools() {
  return std::system("command -v rsvg-convert >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1") == 0;
}

fs::path outDir() {
  fs::path dir = fs::path(KOPT_BINARY_DIR) / "report-render";
  fs::create_directories(dir);
  return dir;
}

// Exit status of `png_stats.py` on the rendered file: 0 = not blank and every colour found.
int renderAndCheck(const std::string& svg, const std::string& name, const std::string& checks) {
  fs::path dir = outDir();
  fs::path svgPath = dir / (name + ".svg"), pngPath = dir / (name + ".png");
  REQUIRE(writeFileAtomically(svgPath, svg).empty());
  fs::remove(pngPath);
  std::string convert = "rsvg-convert -f png -o '" + pngPath.string() + "' '" + svgPath.string() + "'";
  REQUIRE_MESSAGE(std::system(convert.c_str()) == 0, "rsvg-convert rejected " << svgPath);
  std::string check = "python3 '" KOPT_SOURCE_DIR "/tests/e2e/clients/png_stats.py' '" + pngPath.string() + "' " + checks;
  int status = std::system(check.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("both charts render to non-blank PNGs showing their key colours") {
  if (!haveTools()) {
    WARN_MESSAGE(false, "rsvg-convert or python3 missing: install librsvg2-bin to run the render check");
    return;
  }
  auto h = testing::sampleHistory();
  // Accepted green, rolled-back red, the best line's blue: the markers and the line were drawn.
  CHECK(renderAndCheck(renderMetricChartSvg(h), "metric", "--min-ink 0.02 --expect-colour 1b9e4b --expect-colour d7301f --expect-colour 3b5b92") == 0);
  // Full red (-10%) and a strong blue: the diverging scale reached the cells.
  CHECK(renderAndCheck(renderShapeHeatmapSvg(h), "heatmap", "--min-ink 0.05 --expect-colour b2182b --expect-colour d4d4d4") == 0);
  // The degenerate histories still draw their frame and message.
  CHECK(renderAndCheck(renderMetricChartSvg(CampaignHistory{}), "metric-empty", "--min-ink 0.003") == 0);
  CHECK(renderAndCheck(renderShapeHeatmapSvg(CampaignHistory{}), "heatmap-empty", "--min-ink 0.003") == 0);
  auto one = h;
  one.rounds.resize(1);
  CHECK(renderAndCheck(renderMetricChartSvg(one), "metric-one", "--min-ink 0.01 --expect-colour 444444") == 0);
  CHECK(renderAndCheck(renderShapeHeatmapSvg(one), "heatmap-one", "--min-ink 0.01") == 0);
}

TEST_CASE("the blank check itself fails on a blank image") {
  if (!haveTools()) return;
  std::string blank =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\"><rect width=\"200\" height=\"100\" "
      "fill=\"#ffffff\"/></svg>";
  CHECK(renderAndCheck(blank, "blank", "--min-ink 0.003") == 1);
}
