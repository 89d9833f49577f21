#include "campaign/report/metric_chart.h"

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

constexpr double kWidth = 880;
constexpr double kHeight = 460;
constexpr double kLeft = 86;    // room for tick labels and the rotated axis title
constexpr double kRight = 36;
constexpr double kTop = 92;     // title, subtitle, legend
constexpr double kBottom = 62;  // tick labels and the axis title

struct Frame {
  double x0 = kLeft, x1 = kWidth - kRight, y0 = kTop, y1 = kHeight - kBottom;
  svg::Ticks ticks;
  size_t slots = 1;
  double slotWidth() const { return (x1 - x0) / static_cast<double>(slots); }
  double x(size_t index) const { return x0 + slotWidth() * (static_cast<double>(index) + 0.5); }
  double y(double v) const {
    double t = (v - ticks.lo) / (ticks.hi - ticks.lo);
    return y1 - t * (y1 - y0);
  }
};

void marker(std::ostringstream& out, RoundStatus status, double x, double y, double r) {
  const char* colour = style::statusColour(status);
  switch (status) {
    case RoundStatus::Baseline:
      out << "<path d=\"M" << coord(x) << ' ' << coord(y - r * 1.25) << " L" << coord(x + r * 1.25) << ' ' << coord(y)
          << " L" << coord(x) << ' ' << coord(y + r * 1.25) << " L" << coord(x - r * 1.25) << ' ' << coord(y)
          << " Z\" fill=\"" << colour << "\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>";
      break;
    case RoundStatus::Accepted:
      out << "<circle cx=\"" << coord(x) << "\" cy=\"" << coord(y) << "\" r=\"" << coord(r) << "\" fill=\"" << colour
          << "\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>";
      break;
    case RoundStatus::AcceptedWithNote:
      out << "<circle cx=\"" << coord(x) << "\" cy=\"" << coord(y) << "\" r=\"" << coord(r) << "\" fill=\"#ffffff\" stroke=\""
          << colour << "\" stroke-width=\"3\"/>";
      break;
    case RoundStatus::RolledBack: {
      double d = r * 0.9;
      out << "<path d=\"M" << coord(x - d) << ' ' << coord(y - d) << " L" << coord(x + d) << ' ' << coord(y + d) << " M"
          << coord(x - d) << ' ' << coord(y + d) << " L" << coord(x + d) << ' ' << coord(y - d) << "\" stroke=\"" << colour
          << "\" stroke-width=\"3\" stroke-linecap=\"round\" fill=\"none\"/>";
      break;
    }
  }
}

std::string valueText(double v, int decimals) { return svg::fixed(v, std::max(decimals, 0)); }

int valueDecimals(const svg::Ticks& ticks) { return std::min(ticks.decimals + 1, 6); }

void legend(std::ostringstream& out, double x, double y) {
  struct Item {
    const char* label;
    int kind;  // 0..3 status markers, 4 best line, 5 band
  };
  const Item items[] = {{"Baseline", 0},    {"Accepted", 1},     {"Accepted with note", 2},
                        {"Rolled back", 3}, {"Current best", 4}, {"A/A noise band", 5}};
  out << "<g class=\"legend\" font-size=\"12\" fill=\"" << style::kInk << "\">";
  for (const auto& item : items) {
    double cx = x + 8;
    if (item.kind <= 3) {
      marker(out, static_cast<RoundStatus>(item.kind), cx, y, 5.5);
    } else if (item.kind == 4) {
      out << "<line x1=\"" << coord(x) << "\" y1=\"" << coord(y) << "\" x2=\"" << coord(x + 16) << "\" y2=\"" << coord(y)
          << "\" stroke=\"" << style::kBestLine << "\" stroke-width=\"2.5\"/>";
    } else {
      out << "<rect x=\"" << coord(x) << "\" y=\"" << coord(y - 6) << "\" width=\"16\" height=\"12\" fill=\""
          << style::kBand << "\" fill-opacity=\"0.45\"/>";
    }
    out << "<text x=\"" << coord(x + 22) << "\" y=\"" << coord(y + 4) << "\">" << item.label << "</text>";
    x += 22 + style::textWidth(item.label, 12) + 18;
  }
  out << "</g>\n";
}

}  // namespace

std::string renderMetricChartSvg(const CampaignHistory& h) {
  const auto& rounds = h.rounds;
  Frame f;
  f.slots = std::max<size_t>(1, rounds.size());

  // The y range covers every finite aggregate and band edge.
  double lo = INFINITY, hi = -INFINITY;
  auto include = [&](double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (size_t i = 0; i < rounds.size(); ++i) {
    include(rounds[i].aggregate);
    NoiseBand b = noiseBandOf(h, i);
    include(b.lo);
    include(b.hi);
  }
  bool anyValue = std::isfinite(lo);
  if (anyValue) {
    double pad = (hi - lo) * 0.08;
    f.ticks = svg::niceTicks(lo - pad, hi + pad, 6);
  } else {
    f.ticks = svg::niceTicks(0, 1, 4);
  }

  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << coord(kWidth) << "\" height=\"" << coord(kHeight)
      << "\" viewBox=\"0 0 " << coord(kWidth) << ' ' << coord(kHeight) << "\" font-family=\"" << svg::kFontFamily
      << "\" role=\"img\" aria-labelledby=\"chart-title\">\n";
  std::string metric = h.metricName.empty() ? "Primary metric" : h.metricName;
  std::string title = style::ellipsize(metric + " per round", 70);
  out << "<title id=\"chart-title\">" << escape(title) << "</title>\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"" << style::kBackground << "\"/>\n";
  out << "<text x=\"" << coord(kLeft) << "\" y=\"30\" font-size=\"18\" font-weight=\"bold\" fill=\"" << style::kInk
      << "\">" << escape(title) << "</text>\n";

  // Subtitle: baseline -> best, the one sentence people look for.
  const RoundRecord* base = baselineRound(h);
  const RoundRecord* best = bestRound(h);
  std::string subtitle = h.campaignName.empty() ? "" : style::ellipsize(h.campaignName, 56) + ":  ";
  int vd = valueDecimals(f.ticks);
  std::string unit = h.metricUnit.empty() ? "" : " " + h.metricUnit;
  if (base && std::isfinite(base->aggregate)) {
    subtitle += "baseline " + valueText(base->aggregate, vd) + unit;
    if (best && best != base && std::isfinite(best->aggregate))
      subtitle += "  \xE2\x86\x92  best " + valueText(best->aggregate, vd) + unit + " (" +
                  svg::signedPercent(gainPct(best->aggregate, base->aggregate, h.higherIsBetter), 2) + ", round " +
                  std::to_string(best->number) + ")";
  } else if (rounds.empty()) {
    subtitle += "no rounds recorded yet";
  } else {
    subtitle += "no valid baseline aggregate";
  }
  out << "<text x=\"" << coord(kLeft) << "\" y=\"50\" font-size=\"13\" fill=\"" << style::kMuted << "\">"
      << escape(subtitle) << "</text>\n";
  legend(out, kLeft, 72);

  // Grid and y ticks.
  out << "<g class=\"grid\" font-size=\"11\" fill=\"" << style::kMuted << "\">\n";
  for (double v : f.ticks.values) {
    double y = f.y(v);
    out << "<line x1=\"" << coord(f.x0) << "\" y1=\"" << coord(y) << "\" x2=\"" << coord(f.x1) << "\" y2=\"" << coord(y)
        << "\" stroke=\"" << style::kGrid << "\" stroke-width=\"1\"/>";
    out << "<text x=\"" << coord(f.x0 - 8) << "\" y=\"" << coord(y + 4) << "\" text-anchor=\"end\">"
        << svg::fixed(v, f.ticks.decimals) << "</text>\n";
  }
  out << "</g>\n";

  // Noise band around the current best: one rectangle per round slot, drawn as one path.
  std::ostringstream band;
  for (size_t i = 0; i < rounds.size(); ++i) {
    NoiseBand b = noiseBandOf(h, i);
    if (!b.known()) continue;
    double top = f.y(b.hi), bottom = f.y(b.lo);
    double left = f.x(i) - f.slotWidth() / 2, right = f.x(i) + f.slotWidth() / 2;
    band << "M" << coord(left) << ' ' << coord(top) << " H" << coord(right) << " V" << coord(bottom) << " H"
         << coord(left) << " Z ";
  }
  if (!band.str().empty())
    out << "<path class=\"noise-band\" d=\"" << band.str() << "\" fill=\"" << style::kBand
        << "\" fill-opacity=\"0.45\" stroke=\"none\"/>\n";

  // The current best as a step line: the bar each round had to beat, moving up (or down, for a
  // time metric) through the marker of the round that was accepted, so the line, the band around
  // it and the markers tell one story.
  std::ostringstream step;
  double bestValue = NAN;
  for (size_t i = 0; i < rounds.size(); ++i) {
    const auto& r = rounds[i];
    bool moves = (r.status == RoundStatus::Baseline || isAccepted(r.status)) && std::isfinite(r.aggregate);
    double left = f.x(i) - f.slotWidth() / 2, right = f.x(i) + f.slotWidth() / 2;
    if (std::isfinite(bestValue))
      step << (step.str().empty() ? "M" : " L") << coord(left) << ' ' << coord(f.y(bestValue)) << " L" << coord(f.x(i)) << ' '
           << coord(f.y(bestValue));
    if (moves) {
      bestValue = r.aggregate;
      step << (step.str().empty() ? "M" : " L") << coord(f.x(i)) << ' ' << coord(f.y(bestValue));
    }
    if (std::isfinite(bestValue)) step << " L" << coord(right) << ' ' << coord(f.y(bestValue));
  }
  if (!step.str().empty())
    out << "<path class=\"best-line\" d=\"" << step.str() << "\" fill=\"none\" stroke=\"" << style::kBestLine
        << "\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>\n";

  // Axes.
  out << "<line x1=\"" << coord(f.x0) << "\" y1=\"" << coord(f.y1) << "\" x2=\"" << coord(f.x1) << "\" y2=\"" << coord(f.y1)
      << "\" stroke=\"" << style::kAxis << "\" stroke-width=\"1.2\"/>\n";
  out << "<line x1=\"" << coord(f.x0) << "\" y1=\"" << coord(f.y0) << "\" x2=\"" << coord(f.x0) << "\" y2=\"" << coord(f.y1)
      << "\" stroke=\"" << style::kAxis << "\" stroke-width=\"1.2\"/>\n";

  // x tick labels: every round when they fit, else every k-th.
  size_t every = 1;
  while (f.slotWidth() * static_cast<double>(every) < 34) ++every;
  out << "<g class=\"x-ticks\" font-size=\"11\" fill=\"" << style::kMuted << "\" text-anchor=\"middle\">";
  for (size_t i = 0; i < rounds.size(); i += every)
    out << "<text x=\"" << coord(f.x(i)) << "\" y=\"" << coord(f.y1 + 18) << "\">" << rounds[i].number << "</text>";
  out << "</g>\n";

  // Markers, with a tooltip each.
  double r = std::clamp(f.slotWidth() * 0.18, 3.5, 7.0);
  out << "<g class=\"rounds\">\n";
  for (size_t i = 0; i < rounds.size(); ++i) {
    const auto& round = rounds[i];
    std::string tip = "Round " + std::to_string(round.number) + ": " + style::statusLabel(round.status);
    if (!round.description.empty()) tip += " \xE2\x80\x94 " + round.description;
    tip += "\n" + (std::isfinite(round.aggregate) ? valueText(round.aggregate, vd) + unit : std::string("no valid aggregate"));
    if (!round.decisionReason.empty()) tip += "\n" + round.decisionReason;
    out << "<g><title>" << escape(tip) << "</title>";
    if (std::isfinite(round.aggregate)) {
      marker(out, round.status, f.x(i), f.y(round.aggregate), r);
    } else {
      // No valid aggregate (Check failure, build or test failure): a marker on the axis.
      marker(out, RoundStatus::RolledBack, f.x(i), f.y1 - 10, r);
      out << "<text x=\"" << coord(f.x(i)) << "\" y=\"" << coord(f.y1 - 22) << "\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\""
          << style::statusColour(RoundStatus::RolledBack) << "\">FAIL</text>";
    }
    out << "</g>\n";
  }
  out << "</g>\n";

  if (rounds.empty() || !anyValue) {
    out << "<text x=\"" << coord((f.x0 + f.x1) / 2) << "\" y=\"" << coord((f.y0 + f.y1) / 2) << "\" font-size=\"15\" text-anchor=\"middle\" fill=\""
        << style::kMuted << "\">" << (rounds.empty() ? "No rounds recorded yet" : "No round has a valid aggregate")
        << "</text>\n";
  }

  // Axis titles.
  out << "<text x=\"" << coord((f.x0 + f.x1) / 2) << "\" y=\"" << coord(kHeight - 18) << "\" font-size=\"13\" text-anchor=\"middle\" fill=\""
      << style::kInk << "\">Round</text>\n";
  std::string yTitle = metric + (h.metricUnit.empty() ? "" : " (" + h.metricUnit + ")") +
                       (h.higherIsBetter ? ", higher is better" : ", lower is better");
  double yMid = (f.y0 + f.y1) / 2;
  out << "<text x=\"22\" y=\"" << coord(yMid) << "\" font-size=\"13\" text-anchor=\"middle\" fill=\"" << style::kInk
      << "\" transform=\"rotate(-90 22 " << coord(yMid) << ")\">" << escape(style::ellipsize(yTitle, 60)) << "</text>\n";
  out << "</svg>\n";
  return out.str();
}

}  // namespace kopt::campaign::report
