#include "campaign/validation_record.h"

#include "campaign/measured_record.h"
#include "util/atomic_file.h"

namespace kopt::campaign {

void stampValidation(records::RoundRecord& record, int round, const std::string& campaign,
                     const std::string& timestamp, const detail::ValidationRun& run,
                     const std::vector<std::string>& flags, const std::string& lineageHead) {
  record.number = round;
  record.campaign = campaign;
  record.timestamp = timestamp;
  record.validation = run.full ? "full" : "quick";
  record.flags = flags;
  record.gateVerdict = toString(*run.verdict.decision);
  record.decisionReason = reasonText(run.verdict.reasons);
  record.lineageHead = lineageHead;
}

nlohmann::json validationJson(int round, const detail::ValidationRun& run, const std::vector<std::string>& flags,
                              const std::string& fingerprint) {
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto& r : run.verdict.reasons) reasons.push_back({{"code", r.code}, {"label", r.label}, {"message", r.message}});
  return nlohmann::json{{"round", round},     {"decision", toString(*run.verdict.decision)}, {"reasons", reasons},
                        {"flags", flags},     {"measurements", run.tags},         {"fingerprint", fingerprint}};
}

RoundValidated roundValidatedEvent(const detail::ValidationRun& run, const std::vector<std::string>& flags,
                                   const detail::CheckedRound& checked, const std::vector<std::string>& changedFiles,
                                   const records::RoundRecord& record) {
  RoundValidated validated;
  validated.decision = *run.verdict.decision;
  for (const auto& r : run.verdict.reasons) validated.reasons.push_back({r.code, r.label, r.message});
  validated.fingerprint = checked.fingerprint;
  validated.full = run.full;
  validated.pairs = run.assembled.usablePairs;
  validated.measurements = run.tags;
  validated.flags = flags;
  validated.hypothesisSha256 = checked.hypothesisSha256;
  validated.changedFiles = changedFiles;
  validated.record = record;
  return validated;
}

namespace detail {

void recordValidation(OpenCampaign& s, const OpenRound& open, const RoundPaths& rp, const ValidationRun& run,
                      const std::vector<std::string>& flags, const CheckedRound& checked,
                      const std::vector<std::string>& changedFiles) {
  const int round = open.number;
  const measure::GateResult* gate = run.gate ? &*run.gate : nullptr;
  records::RoundRecord record =
      run.pairs.empty() ? records::RoundRecord{} : measuredRecord(s, round, run.pairs, run.assembled, gate, run.full);
  stampValidation(record, round, s.name, s.now(), run, flags, open.lineageHead);
  util::writeFileAtomic(rp.artifacts / "validation.json", validationJson(round, run, flags, checked.fingerprint).dump(2) + "\n");
  s.record(roundValidatedEvent(run, flags, checked, changedFiles, record), round);
}

}  // namespace detail
}  // namespace kopt::campaign
