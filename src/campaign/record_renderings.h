#pragma once
// logs/optimize.md, logs/performance_trend.md and each round's summary.md and decision.json are
// renderings of the ledger (engine_records.cpp writes them as a pure function of the events). An
// agent that edits one (a rollback turned into an ACCEPTED line) would rewrite the campaign's
// history where people read it while the ledger stays intact. So every call renders them afresh
// from the ledger into a scratch directory and compares: a file that differs was edited behind
// kopt's back. A state-changing call restores it from the rendering and is refused
// (record_tampered, naming the file); campaign_status reports it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "campaign/engine_session.h"

namespace kopt::campaign::detail {

struct RenderingCheck {
  std::vector<std::string> differing;  // campaign-relative paths: "logs/optimize.md", ...
  std::vector<std::string> restored;   // those written back (restore = true)
};

// Compares the rendered records of `s.events` with the campaign's files. A file that matches the
// rendering of the events up to `alsoUpTo` (a call that has appended an event and is writing its
// records right now) counts as matching too. restore = true writes the rendering over a differing
// (or missing) file.
RenderingCheck checkRenderings(const OpenCampaign& s, bool restore, std::optional<std::uint64_t> alsoUpTo = std::nullopt);

}  // namespace kopt::campaign::detail
