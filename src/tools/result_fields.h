#pragma once
// Each tool's result, described once (tools/field_visitor.h): the campaign engine's result
// structs and their shared pieces. The output schema and the structuredContent of every
// campaign tool come from here.
#include <string>

#include "campaign/engine_types.h"
#include "tools/field_visitor.h"

namespace kopt::tools {

// What a tool that can run as a job may return instead: {job_id, job_state} (tools/tool_jobs.h).
template <class Result>
struct JobOr {
  Result result;
  std::string jobId, jobState;
};

// campaign_status returns one campaign's status, or (without campaign_dir) the list of them.
struct StatusOrListing {
  campaign::StatusResult status;
  std::vector<campaign::CampaignListing> campaigns;
};

// `phase`: the campaign's phase by name, an enum of the engine's phase names (campaign/phase.h).
void describePhase(FieldVisitor& v, campaign::Phase& phase, bool required = false);
// `next_tool`: the tool the phase table (campaign/engine_phase_table.h) says comes next. It is
// derived from the phase, never spelled by an adapter, so the two cannot disagree.
void describeNextTool(FieldVisitor& v, campaign::Phase phase);

void describe(FieldVisitor& v, campaign::NextStep& n);
void describe(FieldVisitor& v, campaign::ShapeRow& r);
void describe(FieldVisitor& v, campaign::AggregateRow& a);
void describe(FieldVisitor& v, campaign::GateReason& r);
void describe(FieldVisitor& v, campaign::DefineTargetResult& r);
void describe(FieldVisitor& v, campaign::ConfirmTargetResult& r);
void describe(FieldVisitor& v, campaign::PrepareEnvironmentResult& r);
void describe(FieldVisitor& v, campaign::ReadTipsResult& r);
void describe(FieldVisitor& v, campaign::BaselineResult& r);
void describe(FieldVisitor& v, campaign::BeginRoundResult& r);
void describe(FieldVisitor& v, campaign::StepResult& r);
void describe(FieldVisitor& v, campaign::BenchResult& r);
void describe(FieldVisitor& v, campaign::ValidateResult& r);
void describe(FieldVisitor& v, campaign::AcceptOrRevertResult& r);
void describe(FieldVisitor& v, campaign::TerminationResult::Condition& c);
void describe(FieldVisitor& v, campaign::TerminationResult& r);
void describe(FieldVisitor& v, campaign::FinalAcceptanceResult& r);
void describe(FieldVisitor& v, campaign::ReportResult& r);
void describe(FieldVisitor& v, campaign::StatusResult& s);
void describe(FieldVisitor& v, campaign::CampaignListing& c);
void describe(FieldVisitor& v, StatusOrListing& s);
void describe(FieldVisitor& v, campaign::TrendRowView& row);
void describe(FieldVisitor& v, campaign::TrendResult& r);
void describe(FieldVisitor& v, campaign::IneffectiveItem& i);
void describe(FieldVisitor& v, campaign::IneffectiveResult& r);
void describe(FieldVisitor& v, campaign::BestSummaryResult& r);
void describe(FieldVisitor& v, campaign::TipsQueryResult& r);
void describe(FieldVisitor& v, campaign::AppendTipResult& r);

template <class Result>
void describe(FieldVisitor& v, JobOr<Result>& r) {
  describe(v, r.result);
  v.field(out("job_id"), r.jobId);
  v.field(out("job_state"), r.jobState);
}

}  // namespace kopt::tools
