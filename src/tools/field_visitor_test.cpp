#include "tools/field_visitor.h"

#include <cmath>

#include <doctest/doctest.h>

#include "tools/field_reader.h"
#include "tools/field_schema.h"
#include "tools/field_writer.h"
#include "tools/request_fields.h"
#include "tools/result_fields.h"

using namespace kopt::tools;
using nlohmann::json;

namespace {

enum class Colour { Red, Blue };

struct Sample {
  std::string name;
  int count = 3;
  std::optional<double> ratio;
  Colour colour = Colour::Red;
  std::vector<std::string> tags;
  std::vector<kopt::campaign::NextStep> next;
};

void describe(FieldVisitor& v, Sample& s) {
  v.field(arg("name", "Who").required(), s.name);
  v.field(arg("count", "How many").range(1, 9), s.count);
  v.field(arg("ratio", "A ratio"), s.ratio);
  choice(v, arg("colour", "Which colour"), s.colour, NameTable<Colour>{{"red", Colour::Red}, {"blue", Colour::Blue}});
  v.field(arg("tags", "Labels"), s.tags);
  objects(v, out("next"), s.next);
}

}  // namespace

TEST_CASE("field visitor: one description gives the flat input schema and the terse output schema") {
  const json input = inputSchemaOf<Sample>();
  CHECK(input["additionalProperties"] == false);
  CHECK(input["required"] == json::array({"name"}));
  CHECK(input["properties"]["name"] ==
        json{{"type", "string"}, {"description", "Who"}, {"maxLength", Field::kMaxStringChars}});
  CHECK(input["properties"]["count"] ==
        json{{"type", "integer"}, {"description", "How many"}, {"minimum", 1}, {"maximum", 9}});
  CHECK(input["properties"]["colour"]["enum"] == json::array({"red", "blue"}));
  CHECK(input["properties"]["tags"]["maxItems"] == Field::kMaxListItems);

  const json output = outputSchemaOf<Sample>();
  CHECK_FALSE(output.contains("additionalProperties"));
  CHECK(output["properties"]["name"] == json{{"type", "string"}});
  CHECK(output["properties"]["ratio"] == nullable("number"));
  CHECK(output["properties"]["next"]["items"]["required"] == json::array({"tool"}));
}

TEST_CASE("field visitor: the reader names the argument at fault and the fix") {
  Sample s;
  auto problem = readArguments(json{{"name", "x"}, {"count", "five"}}, s);
  REQUIRE(problem);
  CHECK(problem->field == "count");
  CHECK(problem->message == "argument 'count' is a string, not an integer");
  CHECK(problem->fix.find("pass count as an integer") != std::string::npos);

  problem = readArguments(json{{"name", "x"}, {"count", 12}}, s);
  REQUIRE(problem);
  CHECK(problem->field == "count");
  CHECK(problem->fix == "pass an integer from 1 to 9");

  problem = readArguments(json{{"next", json::array({json{{"tool", 7}}})}}, s);
  REQUIRE(problem);
  CHECK(problem->field == "next[0].tool");
}

TEST_CASE("field visitor: arguments left out keep the defaults; a comma list is tolerated") {
  Sample s;
  CHECK_FALSE(readArguments(json{{"name", "x"}, {"tags", "a, b"}}, s));
  CHECK(s.count == 3);
  CHECK((s.colour == Colour::Red));
  CHECK(s.tags == std::vector<std::string>{"a", "b"});
}

TEST_CASE("field visitor: begin_round's bucket is refused as before, with the field and the fix") {
  kopt::campaign::BeginRoundRequest q;
  auto problem = readArguments(json{{"campaign_dir", "c"}, {"rule11_bucket", "K9"}}, q);
  REQUIRE(problem);
  CHECK(problem->field == "rule11_bucket");
  CHECK(problem->message == "'K9' is not a Rule-11 bucket");
  CHECK(problem->fix == "one of K1, K2, K3, K4, W1 (W2/W3 are forbidden)");
  CHECK(readArguments(json{{"campaign_dir", "c"}}, q)->message == "'' is not a Rule-11 bucket");
}

TEST_CASE("field visitor: what the writer writes, the reader reads back") {
  kopt::campaign::BeginRoundRequest q;
  q.campaignDir = "/c";
  q.hypothesis.statement = "I expect it to be faster";
  q.hypothesis.expected.direction = kopt::campaign::records::EffectDirection::Decrease;
  q.hypothesis.expected.sizePct = 2.5;
  q.bucketText = "K3";
  q.hypothesis.files = {"a.cpp", "b.cpp"};
  q.hypothesis.configOnly = true;
  const json written = resultJson(q);
  CHECK(written["expected_direction"] == "decrease");
  CHECK(written["rule11_bucket"] == "K3");

  kopt::campaign::BeginRoundRequest back;
  REQUIRE_FALSE(readArguments(written, back));
  CHECK(back.campaignDir == "/c");
  CHECK(back.hypothesis.statement == q.hypothesis.statement);
  CHECK((back.hypothesis.expected.direction == kopt::campaign::records::EffectDirection::Decrease));
  CHECK(back.hypothesis.expected.sizePct == 2.5);
  CHECK((back.hypothesis.bucket == kopt::campaign::Rule11Bucket::K3));
  CHECK(back.hypothesis.files == q.hypothesis.files);
  CHECK(back.hypothesis.configOnly);
  CHECK(resultJson(back) == written);
}

TEST_CASE("field visitor: results write null for what is missing or not finite, and next_tool from the phase") {
  kopt::campaign::ShapeRow row;
  row.label = "s1";
  row.ratio = std::nan("");
  row.candidate = 1.5;
  const json j = resultJson(row);
  CHECK(j["ratio"].is_null());
  CHECK(j["best"].is_null());
  CHECK(j["candidate"] == 1.5);

  kopt::campaign::BeginRoundResult r;
  r.round = 4;
  const json b = resultJson(r);
  CHECK(b["phase"] == "OPTIMIZE");
  CHECK(b["next_tool"] == "validate_round");
  CHECK(outputSchemaOf<kopt::campaign::BeginRoundResult>()["properties"]["phase"]["enum"].size() ==
        kopt::campaign::allPhases().size());

  kopt::campaign::TipsQueryResult tips;
  tips.items = {{"h", "b"}};
  const json t = resultJson(tips);
  CHECK_FALSE(t.contains("path"));
  CHECK(t["count"] == 1);
}

namespace {

struct Reading {
  std::string unit;
  std::optional<long long> samples;
};

void describe(FieldVisitor& v, Reading& r) {
  v.field(out("unit").required(), r.unit);
  v.field(out("samples").omittedWhenEmpty(), r.samples);
}

struct Probe {
  std::string path;
  std::optional<std::string> scope;
  bool verbose = false;
  int rows = 100;
  long long skipped = 0;
  std::map<std::string, double> snr;
  std::map<std::string, double> gains;
  std::optional<Reading> reading;
};

void describe(FieldVisitor& v, Probe& p) {
  v.field(arg("path", "Where").required().nonEmpty(), p.path);
  v.field(arg("scope", "Within").nonEmpty(), p.scope);
  v.field(arg("verbose", "Say more").defaultShown(), p.verbose);
  v.field(arg("rows", "How many").range(0, 1000).defaultShown(), p.rows);
  v.field(out("skipped").atLeast(0), p.skipped);
  v.field(out("snr").infinitySpelled(), p.snr);
  v.field(out("gains").numberValues(), p.gains);
  object(v, out("reading"), p.reading);
}

}  // namespace

TEST_CASE("field visitor: non-empty strings, shown defaults and explicit bounds reach the schemas") {
  const json input = inputSchemaOf<Probe>();
  CHECK(input["properties"]["path"]["minLength"] == 1);
  CHECK(input["properties"]["verbose"]["default"] == false);
  CHECK(input["properties"]["rows"]["default"] == 100);
  CHECK_FALSE(input["properties"]["skipped"].contains("default"));

  const json output = outputSchemaOf<Probe>();
  CHECK_FALSE(output["properties"]["path"].contains("minLength"));
  CHECK(output["properties"]["skipped"] == json{{"type", "integer"}, {"minimum", 0}});
  CHECK(output["properties"]["rows"] == json{{"type", "integer"}, {"minimum", 0}, {"maximum", 1000}});
  CHECK(output["properties"]["snr"]["additionalProperties"]["anyOf"].size() == 3);
  CHECK(output["properties"]["gains"]["additionalProperties"] == json{{"type", "number"}});
  // Absent results are null, unless the field leaves them out (then they are never null).
  const json reading = output["properties"]["reading"]["anyOf"];
  REQUIRE(reading.size() == 2);
  CHECK(reading[1] == json{{"type", "null"}});
  CHECK(reading[0]["required"] == json::array({"unit"}));
  CHECK(reading[0]["properties"]["samples"] == json{{"type", "integer"}});
}

TEST_CASE("field visitor: the reader refuses an empty or missing non-empty string, naming it") {
  Probe p;
  auto missing = readArguments(json::object(), p);
  REQUIRE(missing);
  CHECK(missing->field == "path");
  CHECK(missing->message == "argument 'path' is required");
  CHECK(missing->fix.find("non-empty") != std::string::npos);
  auto empty = readArguments(json{{"path", "x"}, {"scope", ""}}, p);
  REQUIRE(empty);
  CHECK(empty->field == "scope");
  CHECK(empty->message == "argument 'scope' is empty");
  CHECK_FALSE(readArguments(json{{"path", "x"}, {"reading", {{"unit", "s"}}}}, p));
  REQUIRE(p.reading);
  CHECK(p.reading->unit == "s");
}

TEST_CASE("field visitor: infinity spelled where asked, absent values null or left out") {
  Probe p;
  p.snr = {{"exact", INFINITY}, {"lost", -INFINITY}, {"blank", std::nan("")}, {"db", 40.0}};
  json j = resultJson(p);
  CHECK(j["snr"] == json{{"exact", "inf"}, {"lost", "-inf"}, {"blank", nullptr}, {"db", 40.0}});
  CHECK(j["reading"].is_null());
  CHECK(j["scope"].is_null());
  p.reading = Reading{"ms", std::nullopt};
  j = resultJson(p);
  CHECK(j["reading"] == json{{"unit", "ms"}});
  p.reading->samples = 3;
  CHECK(resultJson(p)["reading"]["samples"] == 3);
}
