#include "campaign/refusal.h"

namespace kopt::campaign {

const char* toString(RefusalCode code) {
  switch (code) {
    case RefusalCode::WrongPhase: return "wrong_phase";
    case RefusalCode::RoundOpen: return "round_open";
    case RefusalCode::NoOpenRound: return "no_open_round";
    case RefusalCode::UndeclaredFiles: return "undeclared_files";
    case RefusalCode::EmptyDiff: return "empty_diff";
    case RefusalCode::FrozenChanged: return "frozen_changed";
    case RefusalCode::LedgerTampered: return "ledger_tampered";
    case RefusalCode::RecordTampered: return "record_tampered";
    case RefusalCode::InvalidManifest: return "invalid_manifest";
    case RefusalCode::InvalidHypothesis: return "invalid_hypothesis";
    case RefusalCode::PathOutside: return "path_outside";
    case RefusalCode::Busy: return "busy";
    case RefusalCode::NotConfirmed: return "not_confirmed";
    case RefusalCode::StagnationReview: return "stagnation_review_required";
    case RefusalCode::MaxIterations: return "max_iterations_reached";
    case RefusalCode::NothingChanged: return "nothing_changed";
    case RefusalCode::ChangedSinceValidate: return "changed_since_validate";
    case RefusalCode::HeadMoved: return "head_moved";
    case RefusalCode::NotFound: return "not_found";
    case RefusalCode::AuditRequired: return "audit_required";
    case RefusalCode::TerminationNotChecked: return "termination_not_checked";
    case RefusalCode::BaselineBroken: return "baseline_broken";
    case RefusalCode::TooManyChanges: return "too_many_changes";
  }
  return "unknown";
}

namespace {

std::string phaseList(const std::vector<Phase>& phases) {
  std::string out;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    if (i) out += i + 1 == phases.size() ? " or " : ", ";
    out += toString(phases[i]);
  }
  return out;
}

}  // namespace

std::string toText(const Refusal& r) {
  std::string text = (r.tool.empty() ? std::string("call") : r.tool) + " refused (" + toString(r.code) + "): " + r.why;
  if (!r.field.empty()) text += " [argument '" + r.field + "']";
  for (const auto& d : r.details) text += "\n  - " + d;
  text += "\nPhase now: ";
  text += r.phaseNow ? toString(*r.phaseNow) : "none (no campaign yet)";
  text += ".";
  if (!r.phaseNeeded.empty()) text += " " + (r.tool.empty() ? std::string("This call") : r.tool) + " needs: " + phaseList(r.phaseNeeded) + ".";
  if (!r.toolToCall.empty()) text += " Call instead: " + r.toolToCall + ".";
  return text;
}

std::string toText(const ToolFailure& f) {
  std::string text = f.field.empty() ? f.message : "argument '" + f.field + "': " + f.message;
  for (const auto& d : f.details) text += "\n  - " + d;
  if (!f.fix.empty()) text += "\nFix: " + f.fix;
  return text;
}

}  // namespace kopt::campaign
