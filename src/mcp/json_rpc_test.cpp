#include "mcp/json_rpc.h"

#include <doctest/doctest.h>

using namespace kopt::mcp::rpc;

namespace {

Invalid invalidOf(const json& message) {
  auto classified = classify(message);
  REQUIRE(std::holds_alternative<Invalid>(classified));
  return std::get<Invalid>(classified);
}

Message messageOf(const json& message) {
  auto classified = classify(message);
  REQUIRE(std::holds_alternative<Message>(classified));
  return std::get<Message>(classified);
}

}  // namespace

TEST_CASE("requests, notifications and responses are told apart") {
  auto request = messageOf(json::parse(R"({"jsonrpc":"2.0","id":3,"method":"ping"})"));
  REQUIRE(std::holds_alternative<Request>(request));
  CHECK(std::get<Request>(request).id == RequestId(3));
  CHECK(std::get<Request>(request).params == json::object());

  auto stringId = messageOf(json::parse(R"({"jsonrpc":"2.0","id":"a-1","method":"x","params":{"k":1}})"));
  CHECK(std::get<Request>(stringId).id == RequestId("a-1"));
  CHECK(std::get<Request>(stringId).params["k"] == 1);

  auto notification = messageOf(json::parse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  CHECK(std::holds_alternative<Notification>(notification));

  auto result = messageOf(json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"ok":true}})"));
  REQUIRE(std::holds_alternative<Response>(result));
  CHECK(std::get<Response>(result).result->at("ok") == true);

  auto error = messageOf(json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}})"));
  CHECK(std::get<Response>(error).error->code == -1);
}

TEST_CASE("invalid messages get -32600 and keep their id when it is readable") {
  CHECK(invalidOf(json::array()).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"id":1,"method":"ping"})")).error.code == -32600);  // no jsonrpc
  auto wrongVersion = invalidOf(json::parse(R"({"jsonrpc":"1.0","id":5,"method":"ping"})"));
  CHECK(wrongVersion.id == RequestId(5));
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")).id == std::nullopt);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})")).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":true,"method":"ping"})")).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":7})")).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":5})")).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})")).error.code == -32602);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1})")).error.code == -32600);
  CHECK(invalidOf(json::parse(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1}})")).error.code == -32600);
}

TEST_CASE("a broken notification is marked so that it is never answered") {
  auto broken = invalidOf(json::parse(R"({"jsonrpc":"2.0","method":"x","params":[1]})"));
  CHECK(broken.isNotification);
}

TEST_CASE("parse errors are -32700, also for invalid UTF-8") {
  Error error;
  CHECK_FALSE(parseJson("{\"a\":", &error));
  CHECK(error.code == -32700);
  CHECK_FALSE(parseJson("{\"a\":\"\xff\"}", &error));
  CHECK(error.code == -32700);
  CHECK(parseJson(R"({"a":"é"})", &error)->at("a") == "é");
}

TEST_CASE("a number no double holds is a -32700 error, not an exception that ends the server") {
  // Found by tests/fuzz/fuzz_mcp_session: nlohmann throws out_of_range, not parse_error, for these.
  Error error;
  const std::string digits(400, '4');
  for (const std::string& text : {std::string("1e400"), digits, "{\"id\":" + digits + "}", std::string("[-1e99999]")}) {
    CAPTURE(text);
    CHECK_FALSE(parseJson(text, &error));
    CHECK(error.code == -32700);
    CHECK(error.message.size() < 400);  // the number is not echoed whole
  }
}

TEST_CASE("nesting deeper than kopt's limit is a -32700 error, not a stack overflow") {
  // 150,000 nested arrays and 100,000 nested objects: the messages that killed the server.
  const std::string arrays = std::string(150000, '[') + std::string(150000, ']');
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  for (const std::string* text : std::initializer_list<const std::string*>{&arrays, &objects}) {
    Error error;
    CHECK_FALSE(parseJson(*text, &error));
    CHECK(error.code == -32700);
    CHECK(error.message.find("nest deeper than 256 levels") != std::string::npos);
  }
  // The limit itself parses (the counting is util/json_text_test.cpp's).
  const std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  Error error;
  CHECK(parseJson(atLimit, &error));
}

TEST_CASE("request ids come back exactly, also above INT64_MAX") {
  for (const char* text : {"9223372036854775807", "9223372036854775808", "18446744073709551615", "-9223372036854775808", "7"}) {
    const json id = json::parse(text);
    auto parsed = RequestId::fromJson(id);
    REQUIRE(parsed);
    CHECK(parsed->toJson().dump() == text);
  }
  // 2^63 and -2^63 are different ids; a float or an integer beyond 64 bits is not an id.
  CHECK(RequestId::fromJson(json::parse("9223372036854775808"))->key() !=
        RequestId::fromJson(json::parse("-9223372036854775808"))->key());
  CHECK_FALSE(RequestId::fromJson(json::parse("1.5")));
  CHECK_FALSE(RequestId::fromJson(json::parse("18446744073709551616")));
}

TEST_CASE("serialize is one line and replaces invalid UTF-8 instead of throwing") {
  json message{{"text", std::string("line1\nline2 \xff end")}};
  std::string out;
  CHECK_NOTHROW(out = serialize(message));
  CHECK(out.find('\n') == std::string::npos);
  CHECK(out.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD
  CHECK(json::parse(out)["text"].get<std::string>().find("line1\nline2") == 0);
}

TEST_CASE("wire forms") {
  CHECK(errorResponse(std::nullopt, Error(ErrorCode::ParseError, "bad"))["id"].is_null());
  json response = resultResponse(RequestId("x"), json::object());
  CHECK(response["id"] == "x");
  CHECK(response["jsonrpc"] == "2.0");
  CHECK_FALSE(toJson(Notification{"n", json::object()}).contains("params"));
  CHECK(RequestId(7).key() != RequestId("7").key());
}
