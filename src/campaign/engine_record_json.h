#pragma once
// RoundRecord <-> JSON for ledger payloads. The ledger must hold everything the round's records
// are rendered from, so that replaying it after a crash rewrites exactly the same summary.md,
// decision.json, trend row and optimize.md block. (decision.json is the store's own, one-way
// format; this one round-trips.)
#include <nlohmann/json.hpp>

#include "campaign/records/record_types.h"

namespace kopt::campaign::detail {

nlohmann::json roundRecordToJson(const records::RoundRecord& r);
records::RoundRecord roundRecordFromJson(const nlohmann::json& j);  // lenient: missing keys = defaults

nlohmann::json hypothesisToJson(const records::Hypothesis& h);
records::Hypothesis hypothesisFromJsonLenient(const nlohmann::json& j);

std::optional<records::RoundStatus> roundStatusFromString(const std::string& text);

}  // namespace kopt::campaign::detail
