#include "campaign/records/results_table.h"

#include <cmath>
#include <cstdio>

#include "campaign/records/trend_table.h"
#include "util/text.h"

namespace kopt::campaign::records {

std::string formatMetric(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "\xE2\x80\x94";
  char buf[64];
  if (*v != 0 && std::fabs(*v) < 0.1) std::snprintf(buf, sizeof buf, "%.4g", *v);
  else std::snprintf(buf, sizeof buf, "%.3f", *v);
  return buf;
}

std::string renderResultsTable(const std::vector<ShapeResult>& results, const std::string& primaryMetric,
                               bool withComparison) {
  if (results.empty()) return "_No shape results._\n";
  // Columns from the first row (the frozen schema makes every row alike).
  const ShapeResult& first = results.front();
  std::vector<std::string> heads = {"Label"};
  for (const auto& d : first.dims) heads.push_back(escapeCell(d.first));
  heads.push_back("Check");
  for (const auto& m : first.metrics) heads.push_back(escapeCell(m.name));
  bool showPrimary = !primaryMetric.empty();
  for (const auto& m : first.metrics) showPrimary = showPrimary && m.name != primaryMetric;
  if (showPrimary) heads.push_back(escapeCell(primaryMetric));
  if (withComparison) {
    heads.push_back("\xCE\x94 vs best");
    heads.push_back("95% CI");
    heads.push_back("Verdict");
  }
  std::string out = "| " + util::join(heads, " | ") + " |\n|";
  for (std::size_t i = 0; i < heads.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : results) {
    std::vector<std::string> cells = {escapeCell(r.label)};
    for (std::size_t i = 0; i < first.dims.size(); ++i) {
      cells.push_back(i < r.dims.size() ? escapeCell(r.dims[i].second) : "");
    }
    cells.push_back(escapeCell(r.check));
    for (std::size_t i = 0; i < first.metrics.size(); ++i) {
      if (i >= r.metrics.size()) {
        cells.push_back("");
        continue;
      }
      std::string cell = formatMetric(r.metrics[i].value);
      if (r.metrics[i].stddev && r.metrics[i].value) cell += " \xC2\xB1 " + formatMetric(r.metrics[i].stddev);
      cells.push_back(cell);
    }
    if (showPrimary) cells.push_back(formatMetric(r.primaryValue));
    if (withComparison) {
      cells.push_back(r.deltaVsBestPct ? util::formatSignedPercent(*r.deltaVsBestPct, 3)
                                       : std::string("\xE2\x80\x94"));
      cells.push_back(r.ciLowPct && r.ciHighPct
                          ? "[" + util::formatSignedPercent(*r.ciLowPct, 2) + ", " +
                                util::formatSignedPercent(*r.ciHighPct, 2) + "]"
                          : std::string("\xE2\x80\x94"));
      cells.push_back(r.verdict.empty() ? std::string("\xE2\x80\x94") : escapeCell(r.verdict));
    }
    out += "| " + util::join(cells, " | ") + " |\n";
  }
  return out;
}

}  // namespace kopt::campaign::records
