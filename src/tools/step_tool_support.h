#pragma once
// The shared shape of rebuild_kernel and run_tests (one command, one log).
#include "tools/tool_support.h"

namespace kopt::tools {

std::string stepResultText(const campaign::StepResult& r);

// A tool that runs one of the manifest's commands in the open round through `run` (the engine's
// rebuildKernel or runTests): campaign_dir + async in, a StepResult out, long-running.
using StepRunner = campaign::Outcome<campaign::StepResult> (campaign::CampaignEngine::*)(const campaign::StepRequest&,
                                                                                         const campaign::CallContext&);
mcp::ToolSpec makeStepTool(const CampaignToolDeps& deps, const std::string& name, const std::string& title,
                           const std::string& description, StepRunner run);

}  // namespace kopt::tools
