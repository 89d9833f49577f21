#include "campaign/report/campaign_history.h"

#include <algorithm>

namespace kopt::campaign::report {

const RoundRecord* baselineRound(const CampaignHistory& history) {
  for (const auto& round : history.rounds)
    if (round.status == RoundStatus::Baseline) return &round;
  return nullptr;
}

const RoundRecord* bestRound(const CampaignHistory& history) {
  const RoundRecord* best = baselineRound(history);
  for (const auto& round : history.rounds)
    if (isAccepted(round.status)) best = &round;
  return best;
}

NoiseBand noiseBandOf(const CampaignHistory& history, size_t index) {
  NoiseBand band;
  if (index >= history.rounds.size()) return band;
  const RoundRecord& round = history.rounds[index];
  if (std::isfinite(round.noiseLo) && std::isfinite(round.noiseHi)) {
    band.lo = std::min(round.noiseLo, round.noiseHi);
    band.hi = std::max(round.noiseLo, round.noiseHi);
    return band;
  }
  double pct = history.aggregateNoisePct;
  if (!std::isfinite(pct) || pct < 0) return band;
  double reference = kNaN;
  for (size_t i = 0; i < index; ++i) {
    const RoundRecord& r = history.rounds[i];
    if ((r.status == RoundStatus::Baseline || isAccepted(r.status)) && std::isfinite(r.aggregate) && r.aggregate > 0)
      reference = r.aggregate;
  }
  if (!std::isfinite(reference) && round.status == RoundStatus::Baseline) reference = round.aggregate;
  if (!std::isfinite(reference) || reference <= 0) return band;
  band.lo = reference * (1 - pct / 100);
  band.hi = reference * (1 + pct / 100);
  return band;
}

double gainPct(double value, double reference, bool higherIsBetter) {
  if (!std::isfinite(value) || !std::isfinite(reference) || value <= 0 || reference <= 0) return kNaN;
  return higherIsBetter ? (value / reference - 1.0) * 100.0 : (reference / value - 1.0) * 100.0;
}

}  // namespace kopt::campaign::report
