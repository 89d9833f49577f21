#include "campaign/validation_record.h"

#include <doctest/doctest.h>

using namespace kopt::campaign;

namespace {

detail::ValidationRun sampleRun() {
  detail::ValidationRun run;
  run.verdict = ValidationVerdict{RoundVerdict::Rollback, {{"pair_cap_reached", "", "not shown better"},
                                               {"shape_inconclusive", "m64", "inconclusive at m64"}}};
  run.full = true;
  run.tags = {"r4-validate-quick-1", "r4-validate-full-2"};
  run.assembled.usablePairs = 24;
  return run;
}

}  // namespace

TEST_CASE("validation record: the verdict, its reasons and the round's origin are stamped on the record") {
  records::RoundRecord record;
  record.gateVerdict = "stale";
  const std::vector<std::string> flags = {"m64: jump_vs_best"};
  stampValidation(record, 4, "gemm", "2026-01-02 03:04", sampleRun(), flags, "abc123");
  CHECK(record.number == 4);
  CHECK(record.campaign == "gemm");
  CHECK(record.timestamp == "2026-01-02 03:04");
  CHECK(record.validation == "full");
  CHECK(record.flags == flags);
  CHECK(record.gateVerdict == "ROLLBACK");
  CHECK(record.decisionReason == "not shown better; inconclusive at m64");
  CHECK(record.lineageHead == "abc123");
  auto quick = sampleRun();
  quick.full = false;
  stampValidation(record, 4, "gemm", "t", quick, {}, "abc123");
  CHECK(record.validation == "quick");
  CHECK(record.flags.empty());
}

TEST_CASE("validation record: validation.json names the verdict, the measurements and the files") {
  const auto j = validationJson(4, sampleRun(), {"f"}, "fp");
  CHECK(j.at("round") == 4);
  CHECK(j.at("decision") == "ROLLBACK");
  REQUIRE(j.at("reasons").size() == 2);
  CHECK(j.at("reasons")[1] == nlohmann::json{{"code", "shape_inconclusive"}, {"label", "m64"}, {"message", "inconclusive at m64"}});
  CHECK(j.at("flags") == nlohmann::json::array({"f"}));
  CHECK(j.at("measurements") == nlohmann::json::array({"r4-validate-quick-1", "r4-validate-full-2"}));
  CHECK(j.at("fingerprint") == "fp");
  CHECK(j.size() == 6);
  CHECK(validationJson(2, detail::ValidationRun{}, {}, "").at("reasons") == nlohmann::json::array());
}

TEST_CASE("validation record: round_validated carries the verdict, the checks' findings and the record") {
  records::RoundRecord record;
  record.number = 4;
  record.gateVerdict = "ROLLBACK";
  detail::CheckedRound checked{"fp", "hyp-sha"};
  const auto e = roundValidatedEvent(sampleRun(), {"f"}, checked, {"kernels/gemm.cu"}, record);
  CHECK((e.decision == RoundVerdict::Rollback));
  REQUIRE(e.reasons.size() == 2);
  CHECK(e.reasons[0].code == "pair_cap_reached");
  CHECK(e.reasons[1].label == "m64");
  CHECK(e.reasons[1].message == "inconclusive at m64");
  CHECK(e.fingerprint == "fp");
  CHECK(e.full);
  CHECK(e.pairs == 24);
  CHECK(e.measurements == std::vector<std::string>{"r4-validate-quick-1", "r4-validate-full-2"});
  CHECK(e.flags == std::vector<std::string>{"f"});
  CHECK(e.hypothesisSha256 == "hyp-sha");
  CHECK(e.changedFiles == std::vector<std::string>{"kernels/gemm.cu"});
  CHECK(e.record.number == 4);
  CHECK(e.record.gateVerdict == "ROLLBACK");
  CHECK(e.at.empty());
}
