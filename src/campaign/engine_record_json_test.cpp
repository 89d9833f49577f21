#include <doctest/doctest.h>

#include "campaign/engine_record_json.h"

namespace kopt::campaign {

TEST_CASE("record json: a round record survives the ledger round trip") {
  records::RoundRecord r;
  r.number = 4;
  r.campaign = "c";
  r.description = "tile 128";
  r.validation = "full";
  records::Hypothesis h;
  h.statement = "I expect";
  h.change = "tile";
  h.expected = {"Forward TFLOPS", records::EffectDirection::Decrease, 3.5};
  h.bucket = records::Rule11Bucket::W1;
  h.files = {"a.cu"};
  h.configOnly = true;
  r.hypothesis = h;
  records::ShapeResult s;
  s.label = "s1";
  s.dims = {{"M", "64"}};
  s.check = "PASS";
  s.metrics = {{"Forward TFLOPS", 1.5, std::nullopt}};
  s.primaryValue = 1.5;
  s.verdict = "SAME";
  r.results = {s};
  r.aggregate.metric = "Forward TFLOPS";
  r.aggregate.value = 1.5;
  r.aggregate.passCount = 1;
  r.status = records::RoundStatus::AcceptedWithNote;
  r.rollback = records::RollbackAnalysis{"c", "e", "a", "r", "l"};
  r.transfer = records::TransferCheck{"W1", "id(w)", "", "", "", "+1%", "+0.5%", "ACCEPT-with-asterisk"};
  r.flags = {"x"};
  const auto back = detail::roundRecordFromJson(detail::roundRecordToJson(r));
  CHECK(detail::roundRecordToJson(back) == detail::roundRecordToJson(r));
  REQUIRE(back.hypothesis);
  CHECK(std::string(records::toString(back.hypothesis->bucket)) == "W1");
  CHECK(std::string(records::toString(back.hypothesis->expected.direction)) == "decrease");
  CHECK(back.results[0].metrics[0].stddev == std::nullopt);
  CHECK(std::string(records::toString(back.status)) == "ACCEPTED WITH NOTE");
}

}  // namespace kopt::campaign
