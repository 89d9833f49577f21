#pragma once
// The coming validate_round's bench workers, started while run_tests runs the tests: a Python
// worker's start-up (interpreter, torch, Triton: 2.8-4.0 s on the H200) then overlaps the tests
// instead of opening the look (spare_workers.h says when a look takes them).
#include "campaign/command_outcome.h"
#include "campaign/engine_session.h"
#include "exec/executor.h"

namespace kopt::campaign::detail {

// Both arms' workers of the full measurement, offered as spares: the candidate's tree as it was
// just built, the best's worktree made ready first exactly as validate_round makes it (reset to
// the best commit and built, a no-op when it still is what kopt built). Nothing when the campaign
// does not measure with workers, or the best's tree cannot be made ready (validate_round will
// say why).
void startWorkersAhead(OpenCampaign& session, exec::Executor& executor, const RoundPaths& round, const CallContext& ctx);

}  // namespace kopt::campaign::detail
