#pragma once
// Each tool's arguments, described once (tools/field_visitor.h): the campaign engine's request
// structs, and the few argument sets that have no engine struct (paging, polling). The input
// schema and the argument reader of every campaign tool come from here.
#include <string>

#include "campaign/engine_types.h"
#include "tools/field_visitor.h"

namespace kopt::tools {

// Tools that take only the campaign directory.
struct CampaignDirArgs {
  std::string campaignDir;
};

// campaign_status: the directory is optional (without it the campaigns are listed).
struct CampaignStatusArgs {
  std::string campaignDir;
};

// A tool that returns a long text (a tips file, a summary, a report) a window at a time.
struct PagedArgs {
  std::string what;  // the text paged through, as the descriptions name it ("summary")
  std::string campaignDir;
  int offset = 0;
  int limit = 40000;  // tool_support.h's kTextLimit

  static PagedArgs through(std::string textName) {
    PagedArgs a;
    a.what = std::move(textName);
    return a;
  }
};

struct TrendArgs {
  std::string campaignDir;
  int limit = 10;
};

struct PollJobArgs {
  std::string jobId;
  int waitSeconds = 0;
  bool cancel = false;
};

// A tool that can run as a background job takes `async` besides its own arguments
// (tools/tool_support.h, longHandler, reads it).
template <class Request>
struct AsyncArgs {
  Request request;
  bool async = false;
};
Field asyncField();

// The required campaign_dir every phase tool starts with.
Field campaignDirField();

void describe(FieldVisitor& v, CampaignDirArgs& a);
void describe(FieldVisitor& v, CampaignStatusArgs& a);
void describe(FieldVisitor& v, PagedArgs& a);
void describe(FieldVisitor& v, TrendArgs& a);
void describe(FieldVisitor& v, PollJobArgs& a);
void describe(FieldVisitor& v, campaign::DefineTargetRequest& q);
void describe(FieldVisitor& v, campaign::ConfirmTargetRequest& q);
void describe(FieldVisitor& v, campaign::BeginRoundRequest& q);
void describe(FieldVisitor& v, campaign::StepRequest& q);
void describe(FieldVisitor& v, campaign::BenchRequest& q);
void describe(FieldVisitor& v, campaign::ValidateRequest& q);
void describe(FieldVisitor& v, campaign::AcceptOrRevertRequest& q);
void describe(FieldVisitor& v, campaign::TerminationRequest& q);
void describe(FieldVisitor& v, campaign::FinalAcceptanceRequest& q);
void describe(FieldVisitor& v, campaign::TipsQueryRequest& q);
void describe(FieldVisitor& v, campaign::AppendTipRequest& q);

template <class Request>
void describe(FieldVisitor& v, AsyncArgs<Request>& a) {
  describe(v, a.request);
  v.field(asyncField(), a.async);
}

}  // namespace kopt::tools
