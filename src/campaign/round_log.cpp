#include "campaign/round_log.h"

namespace kopt::campaign {

const RoundValidated* RoundProgress::verdictOn(const std::string& fingerprint) const {
  for (const RoundValidated* v : verdicts) {
    if (v->fingerprint == fingerprint) return v;
  }
  return nullptr;
}

RoundLog::RoundLog(const std::deque<TypedEvent>& events, std::optional<std::uint64_t> upToSeq) {
  for (const auto& e : events) {
    if (upToSeq && e.seq > *upToSeq) break;
    fold(e);
  }
}

void RoundLog::finishRound(int number, const records::RoundRecord& record, bool best) {
  records_.push_back(&record);
  recordByRound_[number] = &record;
  if (best) best_ = &record;
  termination_ = nullptr;  // a check counts for the rounds before it only
}

void RoundLog::fold(const TypedEvent& e) {
  if (const auto* w = e.as<WorktreeBuilt>()) {
    worktreeBuilds_[w->tree] = w;
    return;
  }
  if (const auto* t = e.as<TerminationChecked>()) {
    termination_ = t;
    return;
  }
  if (const auto* b = e.as<BaselineRecorded>()) {
    baseline_ = b;
    finishRound(e.round.value_or(1), b->record, true);
    return;
  }
  if (!e.round) return;
  if (const auto* begun = e.as<RoundBegun>()) {
    RoundProgress fresh;
    fresh.number = *e.round;
    fresh.begun = begun;
    rounds_[*e.round] = fresh;
    return;
  }
  auto it = rounds_.find(*e.round);
  if (it == rounds_.end()) {
    // A round's events before its round_begun are not its own; only its decision counts.
    if (const auto* d = e.as<RoundDecided>()) {
      decisions_.push_back(d);
      finishRound(*e.round, d->record, isAccepted(d->status));
    }
    return;
  }
  RoundProgress& r = it->second;
  if (const auto* b = e.as<BuildFinished>()) {
    r.lastBuild = b;
    r.standingVerdict = nullptr;
  } else if (const auto* t = e.as<TestsFinished>()) {
    r.lastTests = t;
    r.standingVerdict = nullptr;
  } else if (e.is<BenchFinished>()) {
    ++r.measurements;
    r.standingVerdict = nullptr;
  } else if (const auto* v = e.as<RoundValidated>()) {
    ++r.measurements;
    r.verdicts.push_back(v);
    r.standingVerdict = v;
  } else if (const auto* d = e.as<RoundDecided>()) {
    r.decided = d;
    decisions_.push_back(d);
    finishRound(*e.round, d->record, isAccepted(d->status));
  }
}

const RoundProgress* RoundLog::round(int number) const {
  auto it = rounds_.find(number);
  return it == rounds_.end() ? nullptr : &it->second;
}

const records::RoundRecord* RoundLog::record(int number) const {
  auto it = recordByRound_.find(number);
  return it == recordByRound_.end() ? nullptr : it->second;
}

int RoundLog::acceptedRounds() const {
  int n = 0;
  for (const auto* d : decisions_) n += isAccepted(d->status) ? 1 : 0;
  return n;
}

int RoundLog::rolledBackRounds() const { return static_cast<int>(decisions_.size()) - acceptedRounds(); }

const WorktreeBuilt* RoundLog::lastWorktreeBuild(const std::string& tree) const {
  auto it = worktreeBuilds_.find(tree);
  return it == worktreeBuilds_.end() ? nullptr : it->second;
}

}  // namespace kopt::campaign
