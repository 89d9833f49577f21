#pragma once
// The text an agent reads beside each campaign tool's structured result: what happened, in the
// words of the loop, and which tool comes next. respond() (tools/tool_support.h) puts it first
// and the compact JSON after it; typedResponse (tools/typed_tool_spec.h) picks the overload by
// the result's type, so an adapter never names its summary.
#include <string>

#include "campaign/engine_types.h"
#include "device/device_report.h"
#include "tools/bench_csv_report.h"

namespace kopt::tools {

// The loop, in order.
std::string summaryText(const campaign::DefineTargetResult& r);
std::string summaryText(const campaign::ConfirmTargetResult& r);
std::string summaryText(const campaign::PrepareEnvironmentResult& r);
std::string summaryText(const campaign::ReadTipsResult& r);
std::string summaryText(const campaign::BaselineResult& r);
std::string summaryText(const campaign::BeginRoundResult& r);
std::string summaryText(const campaign::StepResult& r);  // rebuild_kernel, run_tests
std::string summaryText(const campaign::BenchResult& r);
std::string summaryText(const campaign::ValidateResult& r);
std::string summaryText(const campaign::AcceptOrRevertResult& r);
std::string summaryText(const campaign::TerminationResult& r);
std::string summaryText(const campaign::FinalAcceptanceResult& r);
std::string summaryText(const campaign::ReportResult& r);
// The queries.
std::string summaryText(const campaign::StatusResult& s);
std::string summaryText(const campaign::TrendResult& r);
std::string summaryText(const campaign::IneffectiveResult& r);
std::string summaryText(const campaign::BestSummaryResult& r);
std::string summaryText(const campaign::TipsQueryResult& r);
std::string summaryText(const campaign::AppendTipResult& r);
// The inspection tools outside the campaign.
std::string summaryText(const BenchCsvReport& r);        // parse_bench_csv
std::string summaryText(const device::DeviceReport& r);  // device_info

}  // namespace kopt::tools
