#include "campaign/ledger_events.h"

#include <stdexcept>
#include <utility>

#include "campaign/engine_record_json.h"

namespace kopt::campaign {

using json = nlohmann::json;

namespace {

// ---- encoding helpers ----

json nullable(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json nullable(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// "at" is written whenever the writer (or OpenCampaign::record) stamped it; payloads always have one.
json stamped(json payload, const std::string& at) {
  if (!at.empty()) payload["at"] = at;
  return payload;
}

const char* kindName(bool full) { return full ? "full" : "quick"; }

// ---- decoding helpers ----

// A field that does not hold what it should. Caught by decode(), which adds the event and seq.
struct FieldProblem {
  std::string field;
  std::string expected;
};

// Reads one JSON object's fields, strict about types, lenient about absence (see the header).
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(object), path_(std::move(path)) {}

  const json* find(const char* key) const {
    if (!object_.is_object()) return nullptr;
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  [[noreturn]] void fail(const char* key, const std::string& expected) const {
    throw FieldProblem{path_ + key, expected};
  }

  std::string text(const char* key) const {
    const json* v = find(key);
    if (!v) return {};
    if (!v->is_string()) fail(key, "a string");
    return v->get<std::string>();
  }
  std::optional<std::string> optText(const char* key) const {
    const json* v = find(key);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_string()) fail(key, "a string or null");
    return v->get<std::string>();
  }
  bool flag(const char* key) const {
    const json* v = find(key);
    if (!v) return false;
    if (!v->is_boolean()) fail(key, "true or false");
    return v->get<bool>();
  }
  long long integer(const char* key, long long absent = 0) const {
    const json* v = find(key);
    if (!v) return absent;
    if (!v->is_number_integer()) fail(key, "an integer");
    return v->get<long long>();
  }
  std::optional<long long> optInteger(const char* key) const {
    if (!find(key)) return std::nullopt;
    return integer(key);
  }
  double number(const char* key) const {
    const json* v = find(key);
    if (!v) return 0.0;
    if (!v->is_number()) fail(key, "a number");
    return v->get<double>();
  }
  std::optional<double> optNumber(const char* key) const {
    const json* v = find(key);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_number()) fail(key, "a number or null");
    return v->get<double>();
  }
  RoundVerdict roundVerdict(const char* key) const {
    const char* expected = "ACCEPT, ACCEPT_WITH_NOTE, ROLLBACK or AUDIT";
    if (!find(key)) fail(key, expected);
    const auto verdict = roundVerdictFromString(text(key));
    if (!verdict) fail(key, expected);
    return *verdict;
  }
  std::vector<std::string> texts(const char* key) const {
    std::vector<std::string> out;
    const json* v = find(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "an array of strings");
    for (const auto& x : *v) {
      if (!x.is_string()) fail(key, "an array of strings");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  // Each element of an array of objects, read by `each(Fields)`.
  template <class T, class Each>
  std::vector<T> objects(const char* key, Each each) const {
    std::vector<T> out;
    const json* v = find(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "an array of objects");
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& x = (*v)[i];
      const std::string at = path_ + key + "[" + std::to_string(i) + "]";
      if (!x.is_object()) throw FieldProblem{at, "an object"};
      out.push_back(each(Fields(x, at + ".")));
    }
    return out;
  }
  json raw(const char* key) const {
    const json* v = find(key);
    return v ? *v : json(nullptr);
  }
  // A round's record: required, and an object.
  records::RoundRecord roundRecord(const char* key) const {
    const json* v = find(key);
    if (!v) fail(key, "the round's record (an object); every such event carries one");
    if (!v->is_object()) fail(key, "the round's record (an object)");
    try {
      return detail::roundRecordFromJson(*v);
    } catch (const std::exception& e) {
      fail(key, std::string("a round record (") + e.what() + ")");
    }
  }

 private:
  const json& object_;
  std::string path_;
};

// ---- per event: decode ----

TargetDefined decodeTargetDefined(const Fields& f) {
  TargetDefined e;
  e.campaign = f.text("campaign");
  e.repo = f.text("repo");
  e.campaignDir = f.text("campaign_dir");
  e.manifestSha256 = f.text("manifest_sha256");
  e.redefined = f.flag("redefined");
  return e;
}

TargetConfirmed decodeTargetConfirmed(const Fields& f) {
  TargetConfirmed e;
  e.confirmedBy = f.text("confirmed_by");
  e.method = f.text("method");
  e.manifestSha256 = f.text("manifest_sha256");
  return e;
}

EnvironmentPrepared decodeEnvironmentPrepared(const Fields& f) {
  EnvironmentPrepared e;
  e.branch = f.optText("branch");
  e.baseCommit = f.text("base_commit");
  e.manifestSha256 = f.text("manifest_sha256");
  e.harness = f.optText("harness");
  return e;
}

TipsRead decodeTipsRead(const Fields& f) {
  TipsRead e;
  e.path = f.text("path");
  e.exists = f.flag("exists");
  e.count = f.integer("count");
  return e;
}

measure::ShapeNoise decodeShapeNoise(const Fields& f) {
  measure::ShapeNoise n;
  n.label = f.text("label");
  n.pairs = static_cast<std::size_t>(f.integer("pairs"));
  n.sdLogRatio = f.number("sd_log_ratio");
  n.q975 = f.number("q975");
  n.delta = f.number("delta");
  n.processSd = f.number("process_sd");
  n.processDf = static_cast<int>(f.integer("process_df"));  // absent: 0, process_sd a plain floor
  n.tolerance = f.number("tolerance");  // absent before tolerances: 0, the margin
  return n;
}

FrozenSet decodeFrozen(const Fields& f) {
  const json* v = f.find("frozen");
  if (!v) return {};
  try {
    return FrozenSet::fromJson(*v);
  } catch (const std::exception& e) {
    f.fail("frozen", std::string("a frozen-file list (") + e.what() + ")");
  }
}

BaselineRecorded decodeBaselineRecorded(const Fields& f) {
  BaselineRecorded e;
  e.commit = f.text("commit");
  e.record = f.roundRecord("record");
  e.frozen = decodeFrozen(f);
  e.calibration = f.objects<measure::ShapeNoise>("calibration", decodeShapeNoise);
  e.representativeShapes = f.texts("representative_shapes");
  e.labels = f.texts("labels");
  e.schemaHeader = f.text("schema_header");
  e.metric = f.text("metric");
  e.manifestSha256 = f.text("manifest_sha256");
  e.pairs = f.integer("pairs");
  e.aaSame = f.integer("aa_same");
  e.harness = f.raw("harness");
  if (!e.harness.is_null() && !e.harness.is_object()) f.fail("harness", "an object or null");
  if (e.harness.is_object()) Fields(e.harness, "harness.").integer("blocks_per_look");  // type check
  e.aaBiasAlarm = f.texts("aa_bias_alarm");
  e.aaShapes = f.integer("aa_shapes");
  e.measurement = f.text("measurement");
  return e;
}

RoundBegun decodeRoundBegun(const Fields& f) {
  RoundBegun e;
  if (const json* h = f.find("hypothesis")) {
    if (!h->is_object()) f.fail("hypothesis", "an object");
    e.hypothesis = detail::hypothesisFromJsonLenient(*h);
  }
  e.hypothesisSha256 = f.text("hypothesis_sha256");
  e.lineageHead = f.text("lineage_head");
  e.files = f.texts("files");
  e.configOnly = f.flag("config_only");
  return e;
}

BuildFinished decodeBuildFinished(const Fields& f) {
  BuildFinished e;
  e.ok = f.flag("ok");
  e.outcome = f.text("outcome");
  e.exitCode = f.optInteger("exit_code");
  e.wallMs = f.optInteger("wall_ms");
  e.fingerprint = f.text("fingerprint");
  e.content = f.optText("content");
  e.automatic = f.flag("automatic");
  e.skipped = f.flag("skipped");
  return e;
}

TestsFinished decodeTestsFinished(const Fields& f) {
  TestsFinished e;
  e.ok = f.flag("ok");
  e.outcome = f.text("outcome");
  e.exitCode = f.integer("exit_code");
  e.wallMs = f.integer("wall_ms");
  e.fingerprint = f.text("fingerprint");
  return e;
}

bool decodeKind(const Fields& f) {
  const std::string kind = f.text("kind");
  if (!kind.empty() && kind != "full" && kind != "quick") f.fail("kind", "\"full\" or \"quick\"");
  return kind == "full";
}

BenchFinished decodeBenchFinished(const Fields& f) {
  BenchFinished e;
  e.full = decodeKind(f);
  e.pairs = f.integer("pairs");
  e.fingerprint = f.text("fingerprint");
  e.measurement = f.text("measurement");
  e.preview = f.text("preview");
  e.problems = f.texts("problems");
  return e;
}

GateReasonEntry decodeReason(const Fields& f) { return {f.text("code"), f.text("label"), f.text("message")}; }

RoundValidated decodeRoundValidated(const Fields& f) {
  RoundValidated e;
  e.decision = f.roundVerdict("decision");
  e.reasons = f.objects<GateReasonEntry>("reasons", decodeReason);
  e.fingerprint = f.text("fingerprint");
  e.full = decodeKind(f);
  e.pairs = f.integer("pairs");
  e.measurements = f.texts("measurements");
  e.flags = f.texts("flags");
  e.hypothesisSha256 = f.text("hypothesis_sha256");
  e.changedFiles = f.texts("changed_files");
  e.record = f.roundRecord("record");
  return e;
}

RoundDecided decodeRoundDecided(const Fields& f) {
  RoundDecided e;
  const std::string status = f.text("status");
  const auto parsed = detail::roundStatusFromString(status);
  if (!parsed) f.fail("status", "a round status (ACCEPTED, ACCEPTED WITH NOTE or ROLLED BACK), not '" + status + "'");
  e.status = *parsed;
  e.commit = f.text("commit");
  e.record = f.roundRecord("record");
  e.restoredFiles = f.texts("restored_files");
  return e;
}

TerminationCondition decodeCondition(const Fields& f) { return {f.text("id"), f.flag("met"), f.text("detail")}; }
StagnationDirection decodeDirection(const Fields& f) { return {f.text("category"), f.text("text")}; }

TerminationChecked decodeTerminationChecked(const Fields& f) {
  TerminationChecked e;
  e.afterRound = f.integer("after_round");
  e.conditions = f.objects<TerminationCondition>("conditions", decodeCondition);
  e.stop = f.flag("stop");
  e.decision = f.text("decision");
  e.stagnationReview = f.flag("stagnation_review");
  e.directions = f.objects<StagnationDirection>("directions", decodeDirection);
  return e;
}

FinalShape decodeFinalShape(const Fields& f) {
  FinalShape s;
  s.label = f.text("label");
  s.check = f.text("check");
  s.value = f.optNumber("value");
  s.baseline = f.optNumber("baseline");
  s.ratio = f.optNumber("ratio");
  s.verdict = f.text("verdict");
  return s;
}

FinalAcceptanceDone decodeFinalAcceptance(const Fields& f) {
  FinalAcceptanceDone e;
  e.testsOk = f.flag("tests_ok");
  e.tests = f.text("tests");
  e.pairs = f.integer("pairs");
  e.shapes = f.objects<FinalShape>("shapes", decodeFinalShape);
  e.aggregate = f.optNumber("aggregate");
  e.ratioVsBaseline = f.optNumber("ratio_vs_baseline");
  e.bestCommit = f.text("best_commit");
  e.baselineCommit = f.text("baseline_commit");
  e.problems = f.texts("problems");
  return e;
}

ReportWritten decodeReportWritten(const Fields& f) {
  ReportWritten e;
  e.metric = f.text("metric");
  e.bestRound = f.integer("best_round", 1);
  e.acceptedRounds = f.integer("accepted_rounds");
  e.rolledBackRounds = f.integer("rolled_back_rounds");
  e.totalRounds = f.integer("total_rounds");
  e.effectiveDirections = f.texts("effective_directions");
  e.ineffectiveDirections = f.texts("ineffective_directions");
  e.rolledBackWithProvenShape = f.texts("rolled_back_with_proven_shape");
  e.nextSteps = f.texts("next_steps");
  e.finalAcceptance = f.text("final_acceptance");
  e.reportPath = f.text("report_path");
  e.files = f.texts("files");
  e.baselineValue = f.optNumber("baseline_value");
  e.bestValue = f.optNumber("best_value");
  e.improvementPct = f.optNumber("improvement_pct");
  e.realTrainingAudit = f.optText("real_training_audit");
  return e;
}

TipAppended decodeTipAppended(const Fields&) { return {}; }

PendingDiscarded decodePendingDiscarded(const Fields& f) {
  PendingDiscarded e;
  e.step = f.text("step");
  e.startedAt = f.text("started_at");
  e.accept = f.raw("accept");
  e.reason = f.text("reason");
  return e;
}

WorktreeBuilt decodeWorktreeBuilt(const Fields& f) {
  WorktreeBuilt e;
  e.tree = f.text("tree");
  e.commit = f.text("commit");
  e.build = f.text("build");
  e.content = f.text("content");
  return e;
}

// The payload of `type`, with its "at"; nullopt for a type kopt does not know.
template <class E, class Decode>
std::optional<LedgerPayload> decodeAs(const Fields& f, Decode decodeFields) {
  E e = decodeFields(f);
  e.at = f.text("at");
  return LedgerPayload(std::move(e));
}

std::optional<LedgerPayload> decodePayload(const std::string& type, const Fields& f) {
  if (type == TargetDefined::kType) return decodeAs<TargetDefined>(f, decodeTargetDefined);
  if (type == TargetConfirmed::kType) return decodeAs<TargetConfirmed>(f, decodeTargetConfirmed);
  if (type == EnvironmentPrepared::kType) return decodeAs<EnvironmentPrepared>(f, decodeEnvironmentPrepared);
  if (type == TipsRead::kType) return decodeAs<TipsRead>(f, decodeTipsRead);
  if (type == BaselineRecorded::kType) return decodeAs<BaselineRecorded>(f, decodeBaselineRecorded);
  if (type == RoundBegun::kType) return decodeAs<RoundBegun>(f, decodeRoundBegun);
  if (type == BuildFinished::kType) return decodeAs<BuildFinished>(f, decodeBuildFinished);
  if (type == TestsFinished::kType) return decodeAs<TestsFinished>(f, decodeTestsFinished);
  if (type == BenchFinished::kType) return decodeAs<BenchFinished>(f, decodeBenchFinished);
  if (type == RoundValidated::kType) return decodeAs<RoundValidated>(f, decodeRoundValidated);
  if (type == RoundDecided::kType) return decodeAs<RoundDecided>(f, decodeRoundDecided);
  if (type == TerminationChecked::kType) return decodeAs<TerminationChecked>(f, decodeTerminationChecked);
  if (type == FinalAcceptanceDone::kType) return decodeAs<FinalAcceptanceDone>(f, decodeFinalAcceptance);
  if (type == ReportWritten::kType) return decodeAs<ReportWritten>(f, decodeReportWritten);
  if (type == TipAppended::kType) return decodeAs<TipAppended>(f, decodeTipAppended);
  if (type == PendingDiscarded::kType) return decodeAs<PendingDiscarded>(f, decodePendingDiscarded);
  if (type == WorktreeBuilt::kType) return decodeAs<WorktreeBuilt>(f, decodeWorktreeBuilt);
  return std::nullopt;
}

json shapeNoiseJson(const measure::ShapeNoise& n) {
  json out = {{"label", n.label}, {"pairs", n.pairs}, {"sd_log_ratio", n.sdLogRatio},
              {"q975", n.q975},   {"delta", n.delta}, {"process_sd", n.processSd}};
  // Written only when set, so a line from before they existed encodes back to its own hash.
  if (n.processDf) out["process_df"] = n.processDf;
  if (n.tolerance > 0) out["tolerance"] = n.tolerance;
  return out;
}

template <class T, class ToJson>
json arrayOf(const std::vector<T>& items, ToJson toJson) {
  json out = json::array();
  for (const auto& x : items) out.push_back(toJson(x));
  return out;
}

}  // namespace

int harnessBlocksPerLook(const BaselineRecorded& baseline) {
  if (!baseline.harness.is_object()) return 0;
  const auto it = baseline.harness.find("blocks_per_look");
  return it != baseline.harness.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// ---- per event: encode ----

json encode(const TargetDefined& e) {
  return stamped({{"campaign", e.campaign},
                  {"repo", e.repo},
                  {"campaign_dir", e.campaignDir},
                  {"manifest_sha256", e.manifestSha256},
                  {"redefined", e.redefined}},
                 e.at);
}

json encode(const TargetConfirmed& e) {
  return stamped({{"confirmed_by", e.confirmedBy}, {"method", e.method}, {"manifest_sha256", e.manifestSha256}}, e.at);
}

json encode(const EnvironmentPrepared& e) {
  return stamped({{"branch", nullable(e.branch)},
                  {"base_commit", e.baseCommit},
                  {"manifest_sha256", e.manifestSha256},
                  {"harness", nullable(e.harness)}},
                 e.at);
}

json encode(const TipsRead& e) {
  return stamped({{"path", e.path}, {"exists", e.exists}, {"count", e.count}}, e.at);
}

json encode(const BaselineRecorded& e) {
  return stamped({{"commit", e.commit},
                  {"record", detail::roundRecordToJson(e.record)},
                  {"frozen", e.frozen.toJson()},
                  {"calibration", arrayOf(e.calibration, shapeNoiseJson)},
                  {"representative_shapes", e.representativeShapes},
                  {"labels", e.labels},
                  {"schema_header", e.schemaHeader},
                  {"metric", e.metric},
                  {"manifest_sha256", e.manifestSha256},
                  {"pairs", e.pairs},
                  {"aa_same", e.aaSame},
                  {"harness", e.harness},
                  {"aa_bias_alarm", e.aaBiasAlarm},
                  {"aa_shapes", e.aaShapes},
                  {"measurement", e.measurement}},
                 e.at);
}

json encode(const RoundBegun& e) {
  json j{{"hypothesis_sha256", e.hypothesisSha256},
         {"lineage_head", e.lineageHead},
         {"files", e.files},
         {"config_only", e.configOnly}};
  if (e.hypothesis) j["hypothesis"] = detail::hypothesisToJson(*e.hypothesis);
  return stamped(std::move(j), e.at);
}

json encode(const BuildFinished& e) {
  json j{{"ok", e.ok}, {"outcome", e.outcome}, {"fingerprint", e.fingerprint}};
  if (e.exitCode) j["exit_code"] = *e.exitCode;
  if (e.wallMs) j["wall_ms"] = *e.wallMs;
  if (e.content) j["content"] = *e.content;
  if (e.automatic) j["automatic"] = true;
  if (e.skipped) j["skipped"] = true;
  return stamped(std::move(j), e.at);
}

json encode(const TestsFinished& e) {
  return stamped({{"ok", e.ok},
                  {"outcome", e.outcome},
                  {"exit_code", e.exitCode},
                  {"wall_ms", e.wallMs},
                  {"fingerprint", e.fingerprint}},
                 e.at);
}

json encode(const BenchFinished& e) {
  return stamped({{"kind", kindName(e.full)},
                  {"pairs", e.pairs},
                  {"fingerprint", e.fingerprint},
                  {"measurement", e.measurement},
                  {"preview", e.preview},
                  {"problems", e.problems}},
                 e.at);
}

json encode(const RoundValidated& e) {
  const json reasons = arrayOf(e.reasons, [](const GateReasonEntry& r) {
    return json{{"code", r.code}, {"label", r.label}, {"message", r.message}};
  });
  return stamped({{"decision", toString(e.decision)},
                  {"reasons", reasons},
                  {"fingerprint", e.fingerprint},
                  {"kind", kindName(e.full)},
                  {"pairs", e.pairs},
                  {"measurements", e.measurements},
                  {"flags", e.flags},
                  {"hypothesis_sha256", e.hypothesisSha256},
                  {"changed_files", e.changedFiles},
                  {"record", detail::roundRecordToJson(e.record)}},
                 e.at);
}

json encode(const RoundDecided& e) {
  return stamped({{"status", toString(e.status)},
                  {"commit", e.commit},
                  {"record", detail::roundRecordToJson(e.record)},
                  {"restored_files", e.restoredFiles}},
                 e.at);
}

json encode(const TerminationChecked& e) {
  const json conditions = arrayOf(e.conditions, [](const TerminationCondition& c) {
    return json{{"id", c.id}, {"met", c.met}, {"detail", c.detail}};
  });
  const json directions = arrayOf(e.directions, [](const StagnationDirection& d) {
    return json{{"category", d.category}, {"text", d.text}};
  });
  return stamped({{"after_round", e.afterRound},
                  {"conditions", conditions},
                  {"stop", e.stop},
                  {"decision", e.decision},
                  {"stagnation_review", e.stagnationReview},
                  {"directions", directions}},
                 e.at);
}

json encode(const FinalAcceptanceDone& e) {
  const json shapes = arrayOf(e.shapes, [](const FinalShape& s) {
    return json{{"label", s.label},
                {"check", s.check},
                {"value", nullable(s.value)},
                {"baseline", nullable(s.baseline)},
                {"ratio", nullable(s.ratio)},
                {"verdict", s.verdict}};
  });
  return stamped({{"tests_ok", e.testsOk},
                  {"tests", e.tests},
                  {"pairs", e.pairs},
                  {"shapes", shapes},
                  {"aggregate", nullable(e.aggregate)},
                  {"ratio_vs_baseline", nullable(e.ratioVsBaseline)},
                  {"best_commit", e.bestCommit},
                  {"baseline_commit", e.baselineCommit},
                  {"problems", e.problems}},
                 e.at);
}

json encode(const ReportWritten& e) {
  json j{{"metric", e.metric},
         {"best_round", e.bestRound},
         {"accepted_rounds", e.acceptedRounds},
         {"rolled_back_rounds", e.rolledBackRounds},
         {"total_rounds", e.totalRounds},
         {"effective_directions", e.effectiveDirections},
         {"ineffective_directions", e.ineffectiveDirections},
         {"next_steps", e.nextSteps},
         {"final_acceptance", e.finalAcceptance},
         {"report_path", e.reportPath},
         {"files", e.files}};
  if (e.baselineValue) j["baseline_value"] = *e.baselineValue;
  if (e.bestValue) j["best_value"] = *e.bestValue;
  if (e.improvementPct) j["improvement_pct"] = *e.improvementPct;
  if (e.realTrainingAudit) j["real_training_audit"] = *e.realTrainingAudit;
  // Only when there is one: the records written before the list existed read back byte for byte.
  if (!e.rolledBackWithProvenShape.empty()) j["rolled_back_with_proven_shape"] = e.rolledBackWithProvenShape;
  return stamped(std::move(j), e.at);
}

json encode(const TipAppended& e) { return stamped(json::object(), e.at); }

json encode(const PendingDiscarded& e) {
  return stamped({{"step", e.step}, {"started_at", e.startedAt}, {"accept", e.accept}, {"reason", e.reason}}, e.at);
}

json encode(const WorktreeBuilt& e) {
  return stamped({{"tree", e.tree}, {"commit", e.commit}, {"build", e.build}, {"content", e.content}}, e.at);
}

json encode(const LedgerPayload& payload) {
  return std::visit([](const auto& e) { return encode(e); }, payload);
}

const char* eventType(const LedgerPayload& payload) {
  return std::visit([](const auto& e) { return std::decay_t<decltype(e)>::kType; }, payload);
}

const char* TypedEvent::type() const { return eventType(payload); }

std::variant<TypedEvent, CodecError> decode(const LedgerEvent& event) {
  const std::string where = "ledger seq " + std::to_string(event.seq) + " (" + event.type + "): ";
  if (!event.payload.is_object()) return CodecError{where + "the payload is not a JSON object"};
  try {
    auto payload = decodePayload(event.type, Fields(event.payload, ""));
    if (!payload) {
      return CodecError{where + "unknown event type; this ledger was written by a newer kopt, open it with that one"};
    }
    return TypedEvent{event.seq, event.ts, event.round, std::move(*payload)};
  } catch (const FieldProblem& p) {
    return CodecError{where + "field '" + p.field + "': expected " + p.expected};
  }
}

std::variant<std::vector<TypedEvent>, CodecError> decodeAll(const std::vector<LedgerEvent>& events) {
  std::vector<TypedEvent> out;
  out.reserve(events.size());
  for (const auto& e : events) {
    auto decoded = decode(e);
    if (auto* error = std::get_if<CodecError>(&decoded)) return *error;
    out.push_back(std::get<TypedEvent>(std::move(decoded)));
  }
  return out;
}

}  // namespace kopt::campaign
