#pragma once
// What validate_round leaves behind: the round's record with the verdict stamped on it,
// artifacts/validation.json, and the round_validated event that carries both the verdict and the
// record (accept_or_revert applies it later; a restart replays it).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/engine_session.h"
#include "campaign/ledger_events.h"
#include "campaign/round_checks.h"
#include "campaign/validation_looks.h"

namespace kopt::campaign {

// Stamps what validate_round adds to a measured record (an empty one when nothing was measured):
// the round, campaign, time, validation kind, plausibility flags, verdict and its reasons, and
// the commit the round started from.
void stampValidation(records::RoundRecord& record, int round, const std::string& campaign,
                     const std::string& timestamp, const detail::ValidationRun& run,
                     const std::vector<std::string>& flags, const std::string& lineageHead);

// artifacts/validation.json: the verdict with its reasons and flags, the measurements it rests on
// and the kernel files it was measured on.
nlohmann::json validationJson(int round, const detail::ValidationRun& run, const std::vector<std::string>& flags,
                              const std::string& fingerprint);

// The round_validated event ("at" left to the ledger).
RoundValidated roundValidatedEvent(const detail::ValidationRun& run, const std::vector<std::string>& flags,
                                   const detail::CheckedRound& checked, const std::vector<std::string>& changedFiles,
                                   const records::RoundRecord& record);

namespace detail {

// Builds the round's record, writes validation.json and records round_validated, in that order.
void recordValidation(OpenCampaign& session, const OpenRound& open, const RoundPaths& paths, const ValidationRun& run,
                      const std::vector<std::string>& flags, const CheckedRound& checked,
                      const std::vector<std::string>& changedFiles);

}  // namespace detail
}  // namespace kopt::campaign
