#include "measure/plausibility.h"

#include <cmath>
#include <cstdio>

namespace kopt::measure {

namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

const char* toString(AuditFlag flag) {
  switch (flag) {
    case AuditFlag::NearSpeedOfLight: return "near_speed_of_light";
    case AuditFlag::AbovePeak: return "above_peak";
    case AuditFlag::JumpVsBest: return "jump_vs_best";
  }
  return "unknown";
}

bool PlausibilityReport::needsAudit() const {
  for (const auto& s : shapes)
    if (!s.flags.empty()) return true;
  return false;
}

PlausibilityReport checkPlausibility(const ScoreVector& candidate, const ScoreVector* best, std::optional<double> peak,
                                     const PlausibilityPolicy& policy) {
  PlausibilityReport report;
  const bool usablePeak = peak && std::isfinite(*peak) && *peak > 0;
  for (const auto& shape : candidate.shapes) {
    if (!shape.countsAsPass()) continue;  // a FAIL row claims nothing
    ShapePlausibility p;
    p.label = shape.label;
    p.value = shape.value;
    if (usablePeak) {
      p.percentOfPeak = 100.0 * shape.value / *peak;
      if (shape.value > *peak) {
        p.flags.push_back(AuditFlag::AbovePeak);
        p.message += format("%.1f%% of the device peak: physically impossible, audit timing and correctness", *p.percentOfPeak);
      } else if (shape.value > policy.auditFractionOfPeak * *peak) {
        p.flags.push_back(AuditFlag::NearSpeedOfLight);
        p.message += format("%.1f%% of the device peak", *p.percentOfPeak) +
                     format(" (audit above %.0f%%)", 100.0 * policy.auditFractionOfPeak);
      }
    }
    if (best) {
      const ShapeScore* before = best->find(shape.label);
      if (before && before->countsAsPass() && before->value > 0) {
        p.jumpVsBest = shape.value / before->value;
        if (*p.jumpVsBest > policy.maxJumpRatio) {
          p.flags.push_back(AuditFlag::JumpVsBest);
          if (!p.message.empty()) p.message += "; ";
          p.message += format("%.1fx the current best in one round", *p.jumpVsBest) +
                       format(" (audit above %.0fx)", policy.maxJumpRatio);
        }
      }
    }
    report.shapes.push_back(std::move(p));
  }
  return report;
}

}  // namespace kopt::measure
