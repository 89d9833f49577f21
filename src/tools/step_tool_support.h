#pragma once
// The shared shape of rebuild_kernel and run_tests (one command, one log).
#include "tools/tool_support.h"
#include "tools/tool_texts.h"

namespace kopt::tools {

// A tool that runs one of the manifest's commands in the open round through `run` (the engine's
// rebuildKernel or runTests): campaign_dir + async in, a StepResult out, long-running.
using StepRunner = campaign::Outcome<campaign::StepResult> (campaign::CampaignEngine::*)(const campaign::StepRequest&,
                                                                                         const campaign::CallContext&);
mcp::ToolSpec makeStepTool(const CampaignToolDeps& deps, ToolText text, StepRunner run);

}  // namespace kopt::tools
