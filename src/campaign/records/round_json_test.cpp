#include "campaign/records/round_json.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "campaign/records/sample_records_test.h"
#include "util/atomic_file.h"

using namespace kopt::campaign::records;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::string errorOf(const json& j) {
  auto r = hypothesisFromJson(j);
  REQUIRE(std::holds_alternative<std::string>(r));
  return std::get<std::string>(r);
}
json validHypothesis() {
  return json::parse(R"({"statement":"I expect X because Y","change":"BLOCK_M 64->128",
    "expected_effect":{"metric":"Forward TFLOPS","direction":"increase","size_pct":5},
    "rule11_bucket":"k2","files":["k.py"],"config_only":true})");
}
}  // namespace

TEST_CASE("hypothesis JSON round-trips and names the bad field") {
  auto r = hypothesisFromJson(validHypothesis());
  REQUIRE(std::holds_alternative<Hypothesis>(r));
  Hypothesis h = std::get<Hypothesis>(r);
  CHECK((h.bucket == Rule11Bucket::K2));
  CHECK(h.configOnly);
  CHECK(h.expected.sizePct == 5);
  json back = toJson(h);
  CHECK(back["rule11_bucket"] == "K2");
  CHECK(back["expected_effect"]["direction"] == "increase");
  auto again = hypothesisFromJson(back);
  REQUIRE(std::holds_alternative<Hypothesis>(again));
  CHECK(toJson(std::get<Hypothesis>(again)) == back);

  json j = validHypothesis();
  j.erase("statement");
  CHECK(errorOf(j) == "statement: is required");
  j = validHypothesis();
  j["statement"] = "   ";
  CHECK(errorOf(j) == "statement: must not be empty");
  j = validHypothesis();
  j["expected_effect"]["direction"] = "up";
  CHECK(errorOf(j) == "expected_effect.direction: 'up' is not one of increase, decrease");
  j = validHypothesis();
  j["expected_effect"]["size_pct"] = "5";
  CHECK(errorOf(j).find("expected_effect.size_pct") == 0);
  j = validHypothesis();
  j["rule11_bucket"] = "W4";
  CHECK(errorOf(j).find("rule11_bucket: 'W4'") == 0);
  j = validHypothesis();
  j["files"] = {"a", 3};
  CHECK(errorOf(j) == "files[1]: must be a string");
  CHECK(isAllowed(Rule11Bucket::W1));
  CHECK_FALSE(isAllowed(Rule11Bucket::W2));
  CHECK_FALSE(isAllowed(Rule11Bucket::W3));
}

TEST_CASE("decision.json carries the verdict, shapes and prose; files are written atomically") {
  RoundRecord r = testing::rolledBackRecord();
  json d = decisionJson(r);
  CHECK(d["round"] == 3);
  CHECK(d["status"] == "ROLLED BACK");
  CHECK(d["shapes"].size() == 2);
  CHECK(d["shapes"][0]["verdict"] == "REGRESSED");
  CHECK(d["shapes"][0]["metrics"]["Forward TFLOPS"]["value"] == 280.0);
  CHECK(d["aggregate"]["delta_vs_best_pct"] == -1.283);
  CHECK(d["rollback_analysis"]["root_cause"] == "spills");
  CHECK_FALSE(d.contains("transfer_check"));
  r.results[0].metrics[0].value = std::numeric_limits<double>::quiet_NaN();
  CHECK(decisionJson(r)["shapes"][0]["metrics"]["Forward TFLOPS"]["value"].is_null());

  auto dir = fs::temp_directory_path() / ("kopt_rjson_" + std::to_string(::getpid()));
  writeDecisionJson(dir / "decision.json", r);
  writeHypothesisJson(dir / "hypothesis.json", *r.hypothesis, 3);
  auto hj = json::parse(kopt::util::readFile(dir / "hypothesis.json"));
  CHECK(hj["round"] == 3);
  CHECK(json::parse(kopt::util::readFile(dir / "decision.json"))["status"] == "ROLLED BACK");
  fs::remove_all(dir);
}
