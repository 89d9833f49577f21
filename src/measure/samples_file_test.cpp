#include "measure/samples_file.h"

#include <doctest/doctest.h>

using namespace kopt::measure;

namespace {

const std::string kHeader = R"({"kopt_samples":1,"harness":"cpu_gemm","device":"Xeon","seed":42})" "\n";

SamplesFile ok(const SamplesResult& r) {
  if (auto* e = std::get_if<SamplesError>(&r)) FAIL("unexpected error: " << e->toString());
  return std::get<SamplesFile>(r);
}

SamplesError err(const std::string& text) {
  auto r = parseSamplesFile(text);
  REQUIRE(std::holds_alternative<SamplesError>(r));
  return std::get<SamplesError>(r);
}

}  // namespace

TEST_CASE("a well-formed samples file reads into typed series") {
  SamplesFile f = ok(parseSamplesFile(
      kHeader +
      R"({"label":"s1","direction":"forward","unit":"ms","times":[1.0,3.0,2.0],"flops":2e9,"bytes":null,"stop":"rsd"})" "\n"
      R"({"label":"s1","direction":"backward","unit":"ms","times":[4,2,3,5],"flops":4e9,"stop":"time_cap"})" "\r\n"
      "\n"));
  CHECK(f.header.harness == "cpu_gemm");
  CHECK(f.header.device == "Xeon");
  CHECK(f.header.seed == 42);
  CHECK(f.header.hooks.empty());  // a harness without kernel-module hooks says none
  REQUIRE(f.series.size() == 2);
  const SampleSeries* fwd = f.find("s1", Direction::Forward);
  REQUIRE(fwd);
  CHECK(fwd->line == 2);
  CHECK(fwd->medianMs() == 2.0);
  CHECK(*fwd->flops == 2e9);
  CHECK_FALSE(fwd->bytes.has_value());
  CHECK(fwd->rsdPercent() == doctest::Approx(50.0));
  const SampleSeries* bwd = f.find("s1", Direction::Backward);
  REQUIRE(bwd);
  CHECK(bwd->medianMs() == 3.5);
  CHECK((bwd->stop == StopReason::TimeCap));
  CHECK((f.find("s2", Direction::Forward) == nullptr));
  CHECK((std::string(toString(StopReason::MaxSamples)) == "max_samples"));
}

TEST_CASE("every malformed samples line names the line and the field") {
  CHECK(err("").message.find("empty") != std::string::npos);
  CHECK(err(R"({"label":"s1"})").field == "kopt_samples");
  CHECK(err(R"({"kopt_samples":2})").message.find("unsupported") != std::string::npos);
  CHECK(err(R"({"kopt_samples":1,"seed":-1})").field == "seed");
  CHECK(err(R"({"kopt_samples":1,"harness":3})").field == "harness");
  CHECK(err(R"({"kopt_samples":1,"hooks":["a"]})").field == "hooks");
  CHECK(ok(parseSamplesFile(R"({"kopt_samples":1,"hooks":"c0ffee"})" "\n")).header.hooks == "c0ffee");

  auto at2 = [](const std::string& line) { return err(kHeader + line + "\n"); };
  SamplesError notJson = at2("{oops");
  CHECK(notJson.line == 2);
  CHECK(notJson.message.find("not a JSON object") != std::string::npos);
  CHECK(at2("[1,2]").message.find("expected a JSON object") != std::string::npos);
  // A samples file is written by the bench command (the candidate's code): nesting that would
  // overflow kopt's stack is "not a JSON object" like any other garbage.
  CHECK(at2(std::string(200000, '[') + std::string(200000, ']')).message.find("not a JSON object") != std::string::npos);
  CHECK(at2(R"({"direction":"forward","times":[1]})").field == "label");
  CHECK(at2(R"({"label":"a","direction":"sideways","times":[1]})").field == "direction");
  CHECK(at2(R"({"label":"a","direction":"forward","unit":"us","times":[1]})").field == "unit");
  CHECK(at2(R"({"label":"a","direction":"forward","times":[]})").field == "times");
  SamplesError badTime = at2(R"({"label":"a","direction":"forward","times":[1,0]})");
  CHECK(badTime.field == "times");
  CHECK(badTime.message.find("times[1]") != std::string::npos);
  CHECK(at2(R"({"label":"a","direction":"forward","times":[1,"x"]})").field == "times");
  CHECK(at2(R"({"label":"a","direction":"forward","times":[1],"flops":-1})").field == "flops");
  CHECK(at2(R"({"label":"a","direction":"forward","times":[1],"bytes":"many"})").field == "bytes");
  CHECK(at2(R"({"label":"a","direction":"forward","times":[1],"stop":"bored"})").field == "stop");

  SamplesError dup = err(kHeader + R"({"label":"a","direction":"forward","times":[1]})" "\n"
                                   R"({"label":"a","direction":"forward","times":[2]})" "\n");
  CHECK(dup.line == 3);
  CHECK(dup.message.find("appears twice") != std::string::npos);
  CHECK(dup.toString().find("samples line 3, field 'label'") == 0);
}
