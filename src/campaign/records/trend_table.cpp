#include "campaign/records/trend_table.h"

#include <cmath>
#include <cstdio>

#include "util/atomic_file.h"
#include "util/text.h"

namespace kopt::campaign::records {

TrendColumns trendColumnsFor(const BenchSchema& schema) {
  switch (schema.kind) {
    case SchemaKind::Gemm:
      return {{"Fwd Avg TFLOPS", "Fwd Peak TFLOPS", "Bwd Avg TFLOPS", "Bwd Peak TFLOPS",
               "Combined Step TFLOPS"}};
    case SchemaKind::MemoryBound:
      return {{"Fwd Avg GB/s", "Fwd Peak GB/s", "Bwd Avg GB/s", "Bwd Peak GB/s"}};
    case SchemaKind::Custom: {
      TrendColumns c;
      for (const auto& m : schema.metricColumns) {
        c.valueHeaders.push_back(m + " Avg");
        c.valueHeaders.push_back(m + " Peak");
      }
      return c;
    }
  }
  return {};
}

std::string formatTrendNumber(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "\xE2\x80\x94";
  char buf[64];
  // Three decimals read well for GPU-sized numbers (301.250); a CPU kernel's 0.0039 TFLOPS would
  // print as 0.004, hiding a 10 % change, so values below 1 keep four significant digits.
  if (std::fabs(*v) >= 1.0 || *v == 0.0) std::snprintf(buf, sizeof buf, "%.3f", *v);
  else std::snprintf(buf, sizeof buf, "%.4g", *v);
  return buf;
}

std::string formatVsBaseline(const std::vector<VsBaselineTerm>& terms) {
  std::vector<std::string> parts;
  for (const auto& t : terms) {
    parts.push_back(t.key + " " + (t.pct ? util::formatSignedPercent(*t.pct, 3) : std::string("n/a")));
  }
  return util::join(parts, ", ");
}

std::string escapeCell(const std::string& text) {
  std::string s = util::sanitizeUtf8(text);
  s = util::replaceAll(s, "\r", "");
  s = util::replaceAll(s, "\n", " ");
  s = util::replaceAll(s, "|", "\\|");
  return util::trim(s);
}

std::string renderTrendHeader(const TrendColumns& columns, const std::string& campaign) {
  std::vector<std::string> heads = {"Round", "Status", "Description"};
  heads.insert(heads.end(), columns.valueHeaders.begin(), columns.valueHeaders.end());
  heads.push_back("vs Baseline");
  heads.push_back("Key Finding");
  std::string out = "# Performance Trend: " + campaign + "\n\n| " + util::join(heads, " | ") + " |\n|";
  for (std::size_t i = 0; i < heads.size(); ++i) out += "---|";
  return out + "\n";
}

std::string renderTrendRow(const TrendRow& row) {
  std::vector<std::string> cells = {std::to_string(row.round), toString(row.status),
                                    escapeCell(row.description)};
  for (const auto& v : row.values) cells.push_back(formatTrendNumber(v));
  cells.push_back(row.status == RoundStatus::Baseline ? "\xE2\x80\x94" : formatVsBaseline(row.vsBaseline));
  cells.push_back(escapeCell(row.keyFinding));
  return "| " + util::join(cells, " | ") + " |\n";
}

void appendTrendRow(const std::filesystem::path& trendMd, const TrendColumns& columns,
                    const std::string& campaign, const TrendRow& row, unsigned long long seq) {
  // The marker rides at the end of the row, after the last pipe: GFM ignores cells beyond the
  // header's count, so the comment renders as nothing, while a comment on a line of its own would
  // start an HTML block and split the table.
  std::string marker = util::eventMarker(seq);
  std::string existing = util::readFileIfExists(trendMd).value_or("");
  std::string text = existing.empty() ? renderTrendHeader(columns, campaign) : std::string();
  std::string line = renderTrendRow(row);
  line.pop_back();  // '\n'
  text += line + " " + marker + "\n";
  util::appendBlockOnce(trendMd, marker, text);
}

}  // namespace kopt::campaign::records
