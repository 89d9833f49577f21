#include "campaign/report/shape_heatmap.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "campaign/report/chart_style.h"
#include "campaign/report/svg_support.h"

namespace kopt::campaign::report {

namespace {

using svg::coord;
using svg::escape;

constexpr double kMargin = 24;
constexpr double kTitleHeight = 64;
constexpr double kHeaderHeight = 40;  // round numbers + status strip
constexpr double kCellHeight = 26;
constexpr double kLegendHeight = 112;
constexpr int kMaxLabelChars = 36;

// Shape labels in first-seen order: the baseline's order, then shapes that appear later.
std::vector<std::string> shapeLabels(const CampaignHistory& h) {
  std::vector<std::string> labels;
  for (const auto& round : h.rounds)
    for (const auto& s : round.shapes)
      if (std::find(labels.begin(), labels.end(), s.label) == labels.end()) labels.push_back(s.label);
  return labels;
}

const ShapeResult* find(const RoundRecord& round, const std::string& label) {
  for (const auto& s : round.shapes)
    if (s.label == label) return &s;
  return nullptr;
}

double gainOf(const ShapeResult* s) {
  if (!s || s->verdict == Verdict::Fail || !std::isfinite(s->speedupVsBaseline) || s->speedupVsBaseline <= 0)
    return NAN;
  return (s->speedupVsBaseline - 1.0) * 100.0;
}

double niceUp(double value) {
  value *= 1 - 1e-9;  // 1.1 * 380 / 380 - 1 is 0.10000000000000009: "10%" must not become 20%
  const double steps[] = {1, 2, 5};
  for (double magnitude = 1; magnitude <= 1e9; magnitude *= 10)
    for (double s : steps)
      if (s * magnitude >= value) return s * magnitude;
  return value;
}

// The colour scale: linear in percent while gains stay within +-50% (where percent is what
// people read), in log-ratio beyond it, so a 10x speedup and a 10x slowdown get equal weight and a
// 2x next to a 12x still shows a difference. `limitPct` is the gain at full colour.
struct Scale {
  bool logarithmic = false;
  double limitPct = 1;
  double position(double gain) const {  // -1 .. +1 (clamped by the colour map)
    if (!logarithmic) return gain / limitPct;
    return std::log1p(gain / 100) / std::log1p(limitPct / 100);
  }
  double gainAt(double t) const {
    if (!logarithmic) return t * limitPct;
    return (std::pow(1 + limitPct / 100, t) - 1) * 100;
  }
};

Scale scaleFor(const CampaignHistory& h, const std::vector<std::string>& labels) {
  double maxAbs = 0, maxLogEquivalent = 0;
  for (const auto& round : h.rounds)
    for (const auto& label : labels) {
      double g = gainOf(find(round, label));
      if (!std::isfinite(g)) continue;
      maxAbs = std::max(maxAbs, std::fabs(g));
      // A slowdown to ratio r weighs like a speedup to 1/r.
      maxLogEquivalent = std::max(maxLogEquivalent, std::expm1(std::fabs(std::log1p(g / 100))) * 100);
    }
  Scale scale;
  if (maxAbs <= 50) {
    scale.limitPct = niceUp(std::max(maxAbs, 1.0));
  } else {
    scale.logarithmic = true;
    scale.limitPct = niceUp(maxLogEquivalent);
  }
  return scale;
}

}  // namespace

std::string renderShapeHeatmapSvg(const CampaignHistory& h) {
  std::vector<std::string> labels = shapeLabels(h);
  const auto& rounds = h.rounds;
  const Scale scale = scaleFor(h, labels);

  double labelWidth = 60;
  for (const auto& label : labels)
    labelWidth = std::max(labelWidth, style::textWidth(style::ellipsize(label, kMaxLabelChars), 12));
  labelWidth += 16;
  double cellWidth = rounds.size() <= 12 ? 64 : rounds.size() <= 30 ? 44 : 26;
  bool valuesInCells = cellWidth >= 44;
  double gridX = kMargin + labelWidth;
  double gridY = kTitleHeight + kHeaderHeight;
  double gridWidth = cellWidth * static_cast<double>(rounds.size());
  double gridHeight = kCellHeight * static_cast<double>(labels.size());
  std::string metric = h.metricName.empty() ? "primary metric" : h.metricName;
  std::string title = "Per-shape gain vs baseline";
  std::string subtitle = (h.campaignName.empty() ? "" : style::ellipsize(h.campaignName, 60) + ": ") + metric +
                         " per shape against its own baseline value";
  double width = std::max({gridX + gridWidth + kMargin, 620.0, style::textWidth(subtitle, 13) + 2 * kMargin});
  double height = gridY + std::max(gridHeight, 60.0) + kLegendHeight;

  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << coord(width) << "\" height=\"" << coord(height)
      << "\" viewBox=\"0 0 " << coord(width) << ' ' << coord(height) << "\" font-family=\"" << svg::kFontFamily
      << "\" role=\"img\" aria-labelledby=\"heatmap-title\">\n";
  out << "<title id=\"heatmap-title\">" << escape(title) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"" << style::kBackground << "\"/>\n";
  out << "<text x=\"" << coord(kMargin) << "\" y=\"30\" font-size=\"18\" font-weight=\"bold\" fill=\"" << style::kInk
      << "\">" << escape(title) << "</text>\n";
  out << "<text x=\"" << coord(kMargin) << "\" y=\"50\" font-size=\"13\" fill=\"" << style::kMuted << "\">"
      << escape(subtitle) << "</text>\n";

  if (rounds.empty() || labels.empty()) {
    out << "<text x=\"" << coord(width / 2) << "\" y=\"" << coord(gridY + 30) << "\" font-size=\"15\" text-anchor=\"middle\" fill=\""
        << style::kMuted << "\">" << (rounds.empty() ? "No rounds recorded yet" : "No per-shape results recorded")
        << "</text>\n";
  }

  // Column headers: round number, and a strip in the round's outcome colour.
  out << "<g class=\"columns\" font-size=\"11\" text-anchor=\"middle\" fill=\"" << style::kInk << "\">\n";
  for (size_t c = 0; c < rounds.size(); ++c) {
    const auto& round = rounds[c];
    double cx = gridX + cellWidth * (static_cast<double>(c) + 0.5);
    out << "<g><title>" << escape("Round " + std::to_string(round.number) + ": " + style::statusLabel(round.status) +
                                   (round.description.empty() ? "" : " \xE2\x80\x94 " + round.description))
        << "</title>";
    out << "<text x=\"" << coord(cx) << "\" y=\"" << coord(kTitleHeight + 18) << "\">" << (cellWidth >= 44 ? "R" : "")
        << round.number << "</text>";
    out << "<rect x=\"" << coord(gridX + cellWidth * static_cast<double>(c) + 2) << "\" y=\"" << coord(kTitleHeight + 26)
        << "\" width=\"" << coord(cellWidth - 4) << "\" height=\"6\" rx=\"2\" fill=\"" << style::statusColour(round.status)
        << "\"/></g>\n";
  }
  out << "</g>\n";

  // Row labels and cells.
  out << "<g class=\"cells\" font-size=\"11\">\n";
  for (size_t r = 0; r < labels.size(); ++r) {
    double y = gridY + kCellHeight * static_cast<double>(r);
    out << "<text x=\"" << coord(gridX - 8) << "\" y=\"" << coord(y + kCellHeight / 2 + 4) << "\" font-size=\"12\" text-anchor=\"end\" fill=\""
        << style::kInk << "\"><title>" << escape(labels[r]) << "</title>" << escape(style::ellipsize(labels[r], kMaxLabelChars))
        << "</text>\n";
    for (size_t c = 0; c < rounds.size(); ++c) {
      const ShapeResult* s = find(rounds[c], labels[r]);
      double g = gainOf(s);
      double x = gridX + cellWidth * static_cast<double>(c);
      std::string fill = std::isfinite(g) ? svg::hex(svg::diverging(scale.position(g))) : style::kMissing;
      std::string text = std::isfinite(g) ? (std::fabs(g) < 0.05 ? "0.0%" : svg::signedPercent(g, std::fabs(g) >= 100 ? 0 : 1))
                         : (s && s->verdict == Verdict::Fail) ? "FAIL"
                                                                    : "\xE2\x80\x93";
      std::string tip = labels[r] + ", round " + std::to_string(rounds[c].number) + ": " +
                        (std::isfinite(g) ? svg::signedPercent(g, 2) + " vs baseline" : text == "FAIL" ? "Check FAIL" : "not measured");
      if (s && std::isfinite(s->value)) tip += " (" + svg::fixed(s->value, 4) + (h.metricUnit.empty() ? "" : " " + h.metricUnit) + ")";
      if (s && s->verdict != Verdict::NotMeasured) tip += std::string(", verdict ") + toString(s->verdict);
      out << "<g><title>" << escape(tip) << "</title><rect x=\"" << coord(x + 1) << "\" y=\"" << coord(y + 1) << "\" width=\""
          << coord(cellWidth - 2) << "\" height=\"" << coord(kCellHeight - 2) << "\" fill=\"" << fill << "\"/>";
      if (valuesInCells || !std::isfinite(g)) {
        bool dark = std::isfinite(g) && std::fabs(scale.position(g)) > 0.6;
        out << "<text x=\"" << coord(x + cellWidth / 2) << "\" y=\"" << coord(y + kCellHeight / 2 + 4)
            << "\" text-anchor=\"middle\" fill=\"" << (dark ? "#ffffff" : style::kInk) << "\">" << escape(text) << "</text>";
      }
      out << "</g>\n";
    }
  }
  out << "</g>\n";

  // Legend: the diverging scale as a gradient, and the grey swatch.
  double legendY = gridY + std::max(gridHeight, 60.0) + 36;
  double barX = kMargin + 14, barWidth = std::min(300.0, width - 2 * kMargin - 200);
  out << "<defs><linearGradient id=\"gain-scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">";
  for (int i = 0; i <= 8; ++i) {
    double t = -1 + i * 0.25;
    out << "<stop offset=\"" << coord(i / 8.0) << "\" stop-color=\"" << svg::hex(svg::diverging(t)) << "\"/>";
  }
  out << "</linearGradient></defs>\n";
  out << "<g class=\"legend\" font-size=\"11\" fill=\"" << style::kInk << "\">";
  out << "<text x=\"" << coord(barX) << "\" y=\"" << coord(legendY - 6) << "\" font-size=\"12\">Gain vs baseline (red worse, blue better" << (scale.logarithmic ? "; log scale" : "") << ")</text>";
  out << "<rect x=\"" << coord(barX) << "\" y=\"" << coord(legendY) << "\" width=\"" << coord(barWidth)
      << "\" height=\"12\" fill=\"url(#gain-scale)\" stroke=\"" << style::kAxis << "\" stroke-width=\"0.5\"/>";
  const double tickAt[] = {-1, -0.5, 0, 0.5, 1};
  for (double t : tickAt) {
    double x = barX + (t + 1) / 2 * barWidth;
    out << "<line x1=\"" << coord(x) << "\" y1=\"" << coord(legendY + 12) << "\" x2=\"" << coord(x) << "\" y2=\"" << coord(legendY + 16)
        << "\" stroke=\"" << style::kAxis << "\"/>";
    double gain = scale.gainAt(t);
    std::string label = t == 0 ? "0%" : svg::signedPercent(gain, std::fabs(gain) >= 10 ? 0 : 1);
    if (t == -1) label = "\xE2\x89\xA4" + label;
    if (t == 1) label = "\xE2\x89\xA5" + label;
    out << "<text x=\"" << coord(x) << "\" y=\"" << coord(legendY + 28) << "\" text-anchor=\"middle\">" << escape(label) << "</text>";
  }
  double swatchX = barX + barWidth + 28;
  out << "<rect x=\"" << coord(swatchX) << "\" y=\"" << coord(legendY) << "\" width=\"18\" height=\"12\" fill=\"" << style::kMissing << "\"/>";
  out << "<text x=\"" << coord(swatchX + 24) << "\" y=\"" << coord(legendY + 10) << "\">FAIL / not measured</text>";
  // The strip above each column: what happened to the round.
  double itemX = barX, itemY = legendY + 48;
  out << "<text x=\"" << coord(itemX) << "\" y=\"" << coord(itemY + 9) << "\" font-size=\"12\">Round:</text>";
  itemX += 52;
  for (RoundStatus status : {RoundStatus::Baseline, RoundStatus::Accepted, RoundStatus::AcceptedWithNote, RoundStatus::RolledBack}) {
    out << "<rect x=\"" << coord(itemX) << "\" y=\"" << coord(itemY + 2) << "\" width=\"18\" height=\"6\" rx=\"2\" fill=\""
        << style::statusColour(status) << "\"/>";
    out << "<text x=\"" << coord(itemX + 24) << "\" y=\"" << coord(itemY + 9) << "\">" << style::statusLabel(status) << "</text>";
    itemX += 24 + style::textWidth(style::statusLabel(status), 11) + 18;
  }
  out << "</g>\n";
  out << "</svg>\n";
  return out.str();
}

}  // namespace kopt::campaign::report
