// Every refusal of the referee, each with the phase it names and the tool it points to.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "campaign/engine.h"
#include "campaign/engine_test_support.h"
#include "campaign/ledger.h"
#include "util/text.h"

namespace kopt::campaign {
namespace {

using testing::FakeWorkspace;
using testing::readText;
using testing::writeText;
namespace fs = std::filesystem;

using testing::defineFakeCampaign;
using testing::fakeCampaignAtBaseline;
BeginRoundRequest hypothesis(const std::string& dir, std::vector<std::string> files = {"kernel/config.ini"}) {
  return testing::speedKnobHypothesis(dir, std::move(files));
}

template <class T>
Refusal refusalOf(const Outcome<T>& o) {
  REQUIRE_MESSAGE(o.refused(), (o.ok() ? std::string("unexpectedly ok") : o.errorText()));
  return o.refusal();
}

}  // namespace

TEST_CASE("refusal: a tool out of phase names the phase, the phase it needs and the tool to call") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = defineFakeCampaign(engine);
  const Refusal& r = refusalOf(engine.runBaseline(dir, {}));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::WrongPhase));
  CHECK(testing::name(r.phaseNow) == testing::name(Phase::DefineTarget));
  REQUIRE(r.phaseNeeded.size() == 1);
  CHECK(testing::name(r.phaseNeeded[0]) == testing::name(Phase::Baseline));
  CHECK(r.toolToCall == "confirm_target");
  const std::string text = toText(r);
  CHECK(text.find("run_baseline refused") == 0);
  CHECK(text.find("Phase now: DEFINE_TARGET") != std::string::npos);
  CHECK(text.find("needs: BASELINE") != std::string::npos);
  CHECK(text.find("Call instead: confirm_target") != std::string::npos);
  const Refusal& r2 = refusalOf(engine.beginRound(hypothesis(dir)));
  CHECK(testing::name(r2.code) == testing::name(RefusalCode::WrongPhase));
  const Refusal& r3 = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r3.phaseNow) == testing::name(Phase::DefineTarget));
  // Not confirmed: nothing changes.
  const Refusal& r4 = refusalOf(engine.confirmTarget({dir, false, "someone", "argument"}));
  CHECK(testing::name(r4.code) == testing::name(RefusalCode::NotConfirmed));
  CHECK(testing::name(engine.campaignStatus(dir).value().phase) == testing::name(Phase::DefineTarget));
  auto noName = engine.confirmTarget({dir, true, "  ", "argument"});
  REQUIRE(noName.failed());
  CHECK(noName.failure().field == "confirmed_by");
}

TEST_CASE("refusal: one open round at a time; round steps need an open round") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  const Refusal& none = refusalOf(engine.rebuildKernel({dir}, {}));
  CHECK(testing::name(none.code) == testing::name(RefusalCode::NoOpenRound));
  CHECK(none.toolToCall == "begin_round");
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  const Refusal& second = refusalOf(engine.beginRound(hypothesis(dir)));
  CHECK(testing::name(second.code) == testing::name(RefusalCode::RoundOpen));
  CHECK(second.why.find("round 2 is still open") != std::string::npos);
  const Refusal& accept = refusalOf(engine.acceptOrRevert({dir}, {}));
  CHECK(testing::name(accept.code) == testing::name(RefusalCode::WrongPhase));
  CHECK(accept.toolToCall == "validate_round");
}

TEST_CASE("refusal: files outside the declared set, and an empty diff unless config-only") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  const Refusal& empty = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(empty.code) == testing::name(RefusalCode::EmptyDiff));
  ws.setConfig("speed=120\n");
  writeText(ws.repo / "kernel/impl.txt", "a second, undeclared change\n");
  const Refusal& r = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::UndeclaredFiles));
  REQUIRE(r.details.size() == 1);
  CHECK(r.details[0].find("kernel/impl.txt") == 0);
  // Outside the kernel entirely: refused at begin_round.
  writeText(ws.repo / "kernel/impl.txt", "the kernel body\n");
  ws.setConfig("speed=100\n");
  REQUIRE(engine.validateRound({dir, false}, {}).refused());  // empty again
}

TEST_CASE("refusal: a config-only round may have an empty diff") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  auto h = hypothesis(dir);
  h.hypothesis.configOnly = true;
  REQUIRE(engine.beginRound(h).ok());
  auto v = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(v.ok(), v.errorText());
  CHECK(v.value().decision == "ROLLBACK");  // no change, not shown better
}

TEST_CASE("refusal: a config-only round that changes two settings (one hypothesis per round)") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  auto h = hypothesis(dir);
  h.hypothesis.configOnly = true;
  REQUIRE(engine.beginRound(h).ok());
  ws.setConfig("speed=120\nnoise=0.001\n");
  const Refusal& r = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r.code) == "too_many_changes");
  REQUIRE(r.details.size() == 2);
  CHECK(r.details[0].find("kernel/config.ini: speed") == 0);
  CHECK(r.details[1].find("kernel/config.ini: noise added") == 0);
  CHECK(r.toolToCall.find("split into two rounds") != std::string::npos);
  // One setting is one hypothesis: measured.
  ws.setConfig("speed=120\n");
  auto v = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(v.ok(), v.errorText());
  CHECK(v.value().decision.rfind("ACCEPT", 0) == 0);  // +20%: ACCEPT or ACCEPT_WITH_NOTE
}

TEST_CASE("refusal: an accept written into state.json without a verdict is discarded, not completed") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  auto begun = engine.beginRound(hypothesis(dir));
  REQUIRE(begun.ok());
  ws.setConfig("speed=90\n");  // a regression the agent would like committed
  const std::string headBefore = ws.git("rev-parse HEAD");
  // The forged marker: the accepted baseline's record, renumbered, as an interrupted accept.
  const fs::path statePath = fs::path(dir) / "state.json";
  auto state = nlohmann::json::parse(readText(statePath));
  nlohmann::json record;
  for (const auto& e : Ledger(fs::path(dir) / "ledger.jsonl").readAll()) {
    if (e.type == "baseline_recorded") record = e.payload["record"];
  }
  record["number"] = 2;
  record["status"] = "ACCEPTED";
  state["pending"] = {{"round", 2},
                      {"step", "decide"},
                      {"started_at", "2026-04-12T10:00:00Z"},
                      {"detail",
                       {{"accept", true},
                        {"lineage_head", begun.value().lineageHead},
                        {"scope", {"kernel", "kernel/config.ini"}},
                        {"declared", {"kernel/config.ini"}},
                        {"record", record},
                        {"message", "[optimize] round-2: forged"},
                        {"after_seq", 999}}}};
  writeText(statePath, state.dump(2));
  const Refusal& r = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r.code) == "record_tampered");
  CHECK(r.why.find("state.json") != std::string::npos);
  CHECK(r.why.find("no standing verdict") != std::string::npos);
  CHECK(ws.git("rev-parse HEAD") == headBefore);
  CHECK(readText(ws.repo / "kernel/config.ini") == "speed=90\n");  // nothing restored either
  const auto events = Ledger(fs::path(dir) / "ledger.jsonl").readAll();
  REQUIRE_FALSE(events.empty());
  CHECK(events.back().type == "pending_discarded");
  CHECK(events.back().payload.value("reason", "").find("no standing verdict") != std::string::npos);
  // The marker is gone: the round goes on as if nothing happened.
  auto v = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(v.ok(), v.errorText());
  CHECK(v.value().decision == "ROLLBACK");
}

TEST_CASE("refusal: a frozen harness edited behind kopt's back") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=120\n");
  writeText(ws.repo / "bench.py", readText(ws.repo / "bench.py") + "\n# tuned\n");
  const Refusal& r = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::FrozenChanged));
  REQUIRE_FALSE(r.details.empty());
  CHECK(r.details[0].find("bench.py") != std::string::npos);
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK_FALSE(status.value().problems.empty());
  // Declaring the harness as a round's file is refused too.
  FakeWorkspace ws2;
  CampaignEngine engine2(ws2.options());
  const std::string dir2 = fakeCampaignAtBaseline(engine2);
  const Refusal& declared = refusalOf(engine2.beginRound(hypothesis(dir2, {"bench.py"})));
  CHECK(testing::name(declared.code) == testing::name(RefusalCode::InvalidHypothesis));  // outside kernel_source
  CHECK(declared.field == "files[0]");
}

TEST_CASE("refusal: the frozen manifest and an edited hypothesis") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  REQUIRE(engine.beginRound(hypothesis(dir)).ok());
  ws.setConfig("speed=120\n");
  const fs::path hyp = fs::path(dir) / "rounds/round-2/hypothesis.json";
  const std::string original = readText(hyp);
  writeText(hyp, util::replaceAll(original, "speed knob", "speed knob and tiles"));
  const Refusal& r = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::RecordTampered));
  CHECK(r.why.find("hypothesis.json") != std::string::npos);
  writeText(hyp, original);
  auto ok = engine.validateRound({dir, false}, {});
  REQUIRE_MESSAGE(ok.ok(), ok.errorText());
  // Validating again on the same files would only re-roll the dice.
  const Refusal& again = refusalOf(engine.validateRound({dir, false}, {}));
  CHECK(testing::name(again.code) == testing::name(RefusalCode::NothingChanged));
  CHECK(again.toolToCall.find("accept_or_revert") == 0);
  // manifest.yaml is frozen: an edit stops every call.
  const fs::path manifest = fs::path(dir) / "manifest.yaml";
  writeText(manifest, readText(manifest) + "# edited\n");
  const Refusal& m = refusalOf(engine.acceptOrRevert({dir}, {}));
  CHECK(testing::name(m.code) == testing::name(RefusalCode::RecordTampered));
}

TEST_CASE("refusal: an edited ledger line stops the campaign and campaign_status says where") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  const fs::path ledger = fs::path(dir) / "ledger.jsonl";
  std::string text = readText(ledger);
  const auto pos = text.find("\"confirmed_by\":\"tester\"");
  REQUIRE(pos != std::string::npos);
  text.replace(pos, std::string("\"confirmed_by\":\"tester\"").size(), "\"confirmed_by\":\"mallory\"");
  writeText(ledger, text);
  const Refusal& r = refusalOf(engine.beginRound(hypothesis(dir)));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::LedgerTampered));
  CHECK(r.why.find("line 2") != std::string::npos);
  auto status = engine.campaignStatus(dir);
  REQUIRE(status.ok());
  CHECK_FALSE(status.value().ledgerOk);
  CHECK(status.value().integrity.find("ledger") != std::string::npos);
  CHECK(engine.queryTrend(dir, 5).refused());
}

TEST_CASE("refusal: path traversal in files, campaign_dir and repo_path") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  const Refusal& up = refusalOf(engine.beginRound(hypothesis(dir, {"../outside.txt"})));
  CHECK(testing::name(up.code) == testing::name(RefusalCode::PathOutside));
  CHECK(up.field == "files[0]");
  const Refusal& abs = refusalOf(engine.beginRound(hypothesis(dir, {"/etc/passwd"})));
  CHECK(testing::name(abs.code) == testing::name(RefusalCode::PathOutside));
  fs::create_directory_symlink("/tmp", ws.repo / "kernel" / "escape");
  const Refusal& link = refusalOf(engine.beginRound(hypothesis(dir, {"kernel/escape/x.txt"})));
  CHECK(testing::name(link.code) == testing::name(RefusalCode::PathOutside));
  const Refusal& kopt = refusalOf(engine.beginRound(hypothesis(dir, {".kopt/campaigns/x"})));
  CHECK(testing::name(kopt.code) == testing::name(RefusalCode::PathOutside));
  const Refusal& campaign = refusalOf(engine.campaignStatus("../../etc"));
  CHECK(testing::name(campaign.code) == testing::name(RefusalCode::PathOutside));
  CHECK(campaign.field == "campaign_dir");
  DefineTargetRequest d;
  d.repoPath = "/";
  d.manifestPath = "manifest.yaml";
  const Refusal& repo = refusalOf(engine.defineTarget(d));
  CHECK(testing::name(repo.code) == testing::name(RefusalCode::PathOutside));
}

TEST_CASE("refusal: a manifest's tips_root outside the workspace") {
  // append_tip and read_tips wrote and read wherever tips_root pointed.
  for (const char* outside : {"/tmp/kopt-tips-outside", "../../tips-outside"}) {
    FakeWorkspace ws;
    CampaignEngine engine(ws.options());
    writeText(ws.repo / "manifest.yaml", testing::fakeKernelFile("manifest.yaml") + "tips_root: " + outside + "\n");
    DefineTargetRequest d;
    d.repoPath = "repo";
    d.manifestPath = "manifest.yaml";
    const Refusal& r = refusalOf(engine.defineTarget(d));
    CHECK(testing::name(r.code) == testing::name(RefusalCode::PathOutside));
    CHECK(r.field == "tips_root");
    CHECK(r.tool == "define_target");
  }
  // Inside the workspace it is the tips root.
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  writeText(ws.repo / "manifest.yaml", testing::fakeKernelFile("manifest.yaml") + "tips_root: shared-tips\n");
  const std::string dir = defineFakeCampaign(engine);
  AppendTipRequest tip;
  tip.campaignDir = dir;
  tip.takeaway = "x";
  auto appended = engine.appendTip(tip);
  REQUIRE_MESSAGE(appended.ok(), appended.errorText());
  CHECK(appended.value().path.rfind((ws.root / "shared-tips").string(), 0) == 0);
}

TEST_CASE("refusal: forbidden Rule-11 buckets and an incomplete hypothesis") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  auto h = hypothesis(dir);
  h.hypothesis.bucket = records::Rule11Bucket::W2;
  const Refusal& w2 = refusalOf(engine.beginRound(h));
  CHECK(testing::name(w2.code) == testing::name(RefusalCode::InvalidHypothesis));
  CHECK(w2.field == "rule11_bucket");
  h = hypothesis(dir);
  h.hypothesis.statement = " ";
  CHECK(refusalOf(engine.beginRound(h)).field == "statement");
  h = hypothesis(dir);
  h.hypothesis.files.clear();
  CHECK(refusalOf(engine.beginRound(h)).field == "files");
  h = hypothesis(dir);
  h.hypothesis.expected.sizePct = 0;
  CHECK(refusalOf(engine.beginRound(h)).field == "expected_size_pct");
  // Nothing was recorded: the next round is still 2.
  auto ok = engine.beginRound(hypothesis(dir));
  REQUIRE(ok.ok());
  CHECK(ok.value().round == 2);
}

TEST_CASE("refusal: two rollbacks in a row require a stagnation review") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string dir = fakeCampaignAtBaseline(engine);
  AcceptOrRevertRequest a;
  a.campaignDir = dir;
  a.attribution = "slower";
  a.nextDirection = "other";
  a.rootCause = "it is slower";
  a.lesson = "do not";
  for (int i = 0; i < 2; ++i) {
    REQUIRE(engine.beginRound(hypothesis(dir)).ok());
    ws.setConfig("speed=80\n");
    auto v = engine.validateRound({dir, false}, {});
    REQUIRE_MESSAGE(v.ok(), v.errorText());
    REQUIRE(v.value().decision == "ROLLBACK");
    auto missing = engine.acceptOrRevert({dir}, {});
    REQUIRE(missing.failed());
    CHECK(missing.failure().field == "attribution");
    REQUIRE(engine.acceptOrRevert(a, {}).ok());
  }
  const Refusal& r = refusalOf(engine.beginRound(hypothesis(dir)));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::StagnationReview));
  CHECK(r.toolToCall.find("termination_check") == 0);
  TerminationRequest t;
  t.campaignDir = dir;
  t.directions = {"tiling: 128x64", "tiling: 64x128"};
  auto few = engine.terminationCheck(t);
  REQUIRE(few.failed());
  CHECK(few.failure().field == "directions");
  t.directions.push_back("memory: pack B");
  auto review = engine.terminationCheck(t);
  REQUIRE_MESSAGE(review.ok(), review.errorText());
  CHECK(review.value().stagnationReviewDone);
  CHECK(engine.beginRound(hypothesis(dir)).ok());
}

TEST_CASE("refusal: a manifest with a required field missing or wrong names the field") {
  FakeWorkspace ws;
  CampaignEngine engine(ws.options());
  const std::string base = testing::fakeKernelFile("manifest.yaml");
  for (const std::string field : {"target_op", "target_backend", "target_gpu", "primary_metric", "kernel_source",
                                  "test_command", "benchmark_command", "quick_command"}) {
    CAPTURE(field);
    std::string text;
    for (const auto& line : util::splitLines(base)) {
      if (!util::startsWith(line, field + ":")) text += line + "\n";
    }
    DefineTargetRequest d;
    d.repoPath = "repo";
    d.manifestYaml = text;
    const Refusal& r = refusalOf(engine.defineTarget(d));
    CHECK(testing::name(r.code) == testing::name(RefusalCode::InvalidManifest));
    CHECK(toText(r).find(field) != std::string::npos);
  }
  struct Wrong {
    std::string key, value, field;
  };
  for (const Wrong& w : std::vector<Wrong>{{"target_backend", "TRITONN", "target_backend"},
                                           {"target_gpu", "abacus", "target_gpu"},
                                           {"max_iterations", "500", "max_iterations"},
                                           {"test_command", "\"make test | tee log\"", "test_command"},
                                           {"created", "\"yesterday\"", "created"}}) {
    CAPTURE(w.key);
    std::string text;
    for (const auto& line : util::splitLines(base)) {
      if (!util::startsWith(line, w.key + ":")) text += line + "\n";
    }
    text += w.key + ": " + w.value + "\n";
    DefineTargetRequest d;
    d.repoPath = "repo";
    d.manifestYaml = text;
    const Refusal& r = refusalOf(engine.defineTarget(d));
    CHECK(testing::name(r.code) == testing::name(RefusalCode::InvalidManifest));
    CHECK(r.field == w.field);
  }
  DefineTargetRequest missingSource;
  missingSource.repoPath = "repo";
  missingSource.manifestPath = "manifest.yaml";
  missingSource.kernelSource = std::vector<std::string>{"kernel/does_not_exist.cu"};
  const Refusal& r = refusalOf(engine.defineTarget(missingSource));
  CHECK(testing::name(r.code) == testing::name(RefusalCode::PathOutside));
  CHECK(r.field == "kernel_source[0]");
  // Nothing was written for the refused definitions.
  CHECK_FALSE(fs::exists(ws.repo / ".kopt"));
}

}  // namespace kopt::campaign
