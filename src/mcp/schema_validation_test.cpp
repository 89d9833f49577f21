#include "mcp/schema_validation.h"

#include <doctest/doctest.h>

using namespace kopt::mcp;
using nlohmann::json;

namespace {

const json kSchema = json::parse(R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1, "description": "campaign name"},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number"},
    "mode": {"type": "string", "enum": ["fast", "full"]},
    "flag": {"type": "boolean"},
    "shapes": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    "nested": {"type": "object", "properties": {"seed": {"type": "integer"}}, "additionalProperties": false}
  },
  "required": ["name"],
  "additionalProperties": false
})");

SchemaViolation violation(const json& value) {
  auto v = validateAgainstSchema(value, kSchema);
  REQUIRE(v.has_value());
  return *v;
}

}  // namespace

TEST_CASE("valid arguments pass") {
  CHECK_FALSE(validateAgainstSchema(json{{"name", "a"}}, kSchema));
  CHECK_FALSE(validateAgainstSchema(json::parse(R"({"name":"a","count":3,"ratio":1,"mode":"fast","flag":true,
      "shapes":["x"],"nested":{"seed":4}})"), kSchema));
  CHECK_FALSE(validateAgainstSchema(json{{"name", "a"}, {"count", 3.0}}, kSchema));  // integral float
}

TEST_CASE("each violation names the field and says what fits") {
  auto missing = violation(json::object());
  CHECK(missing.path == "name");
  CHECK(missing.message.find("required") != std::string::npos);
  CHECK(missing.fix.find("campaign name") != std::string::npos);

  auto type = violation(json{{"name", "a"}, {"count", "3"}});
  CHECK(type.path == "count");
  CHECK(type.message.find("integer") != std::string::npos);

  CHECK(violation(json{{"name", "a"}, {"count", 3.5}}).path == "count");
  CHECK(violation(json{{"name", "a"}, {"count", 0}}).message.find(">=") != std::string::npos);
  CHECK(violation(json{{"name", "a"}, {"count", 11}}).message.find("<=") != std::string::npos);
  auto e = violation(json{{"name", "a"}, {"mode", "slow"}});
  CHECK(e.path == "mode");
  CHECK(e.message.find("fast") != std::string::npos);
  CHECK(violation(json{{"name", "a"}, {"flag", 1}}).path == "flag");
  CHECK(violation(json{{"name", "a"}, {"shapes", {"x", 2}}}).path == "shapes[1]");
  CHECK(violation(json{{"name", "a"}, {"shapes", {"a", "b", "c", "d"}}}).path == "shapes");
  CHECK(violation(json{{"name", "a"}, {"nested", {{"seed", "x"}}}}).path == "nested.seed");
  CHECK(violation(json{{"name", "a"}, {"nested", {{"other", 1}}}}).path == "nested.other");
  CHECK(violation(json{{"name", ""}}).path == "name");

  auto extra = violation(json{{"name", "a"}, {"nmae", "b"}});
  CHECK(extra.path == "nmae");
  CHECK(extra.fix.find("name") != std::string::npos);

  CHECK(violation(json::array()).path.empty());
}

TEST_CASE("combinators and unknown keywords") {
  json anyOf = json::parse(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})");
  CHECK_FALSE(validateAgainstSchema(json(1), anyOf));
  CHECK_FALSE(validateAgainstSchema(json("a"), anyOf));
  CHECK(validateAgainstSchema(json(true), anyOf));
  json oneOf = json::parse(R"({"oneOf":[{"type":"number"},{"type":"integer"}]})");
  CHECK(validateAgainstSchema(json(1), oneOf));  // matches both
  CHECK_FALSE(validateAgainstSchema(json(1.5), oneOf));
  json typeList = json::parse(R"({"type":["string","null"]})");
  CHECK_FALSE(validateAgainstSchema(json(nullptr), typeList));
  // $ref and formats are not checked: a schema we cannot fully check never fails a valid call.
  CHECK_FALSE(validateAgainstSchema(json{{"a", 1}}, json::parse(R"({"type":"object","properties":{"a":{"$ref":"#/x"}}})")));
}
