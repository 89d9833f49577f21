#include "mcp/json_rpc.h"

#include <algorithm>
#include <cstdint>

namespace kopt::mcp::rpc {

std::optional<RequestId> RequestId::fromJson(const json& id) {
  if (id.is_string()) return RequestId(id.get<std::string>());
  // An unsigned id above INT64_MAX read as int64 came back negative: keep it unsigned.
  if (id.is_number_unsigned() && id.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    return RequestId::unsignedId(id.get<std::uint64_t>());
  if (id.is_number_integer()) return RequestId(id.get<std::int64_t>());
  // Floats (also integers too large for 64 bits, which the parser reads as floats), bools and
  // null are invalid ids.
  return std::nullopt;
}

json RequestId::toJson() const {
  if (const auto* n = std::get_if<std::int64_t>(&value_)) return *n;
  if (const auto* u = std::get_if<std::uint64_t>(&value_)) return *u;
  return std::get<std::string>(value_);
}

std::string RequestId::key() const {
  if (const auto* n = std::get_if<std::int64_t>(&value_)) return "i:" + std::to_string(*n);
  if (const auto* u = std::get_if<std::uint64_t>(&value_)) return "u:" + std::to_string(*u);
  return "s:" + std::get<std::string>(value_);
}

json Error::toJson() const {
  json e{{"code", code}, {"message", message}};
  if (data) e["data"] = *data;
  return e;
}

std::optional<json> parseJson(std::string_view text, Error* error) {
  // A number no double holds ("1e400", 400 digits) once escaped as an uncaught exception and
  // ended the whole server (found by tests/fuzz/fuzz_mcp_session); nlohmann's message names the
  // byte and what it expected, which helps whoever wrote the client.
  std::string problem;
  auto value = util::parseJsonText(text, &problem);
  if (!value && error) {
    *error = Error(ErrorCode::ParseError, "Parse error: " + problem);
  }
  return value;
}

namespace {

Invalid invalid(std::string why, std::optional<RequestId> id = std::nullopt, bool notification = false,
                ErrorCode code = ErrorCode::InvalidRequest) {
  return Invalid{Error(code, std::move(why)), std::move(id), notification};
}

}  // namespace

std::variant<Message, Invalid> classify(const json& message) {
  if (!message.is_object()) return invalid("Invalid Request: a message must be a JSON object");
  std::optional<RequestId> id;
  const bool hasId = message.contains("id");
  if (hasId) id = RequestId::fromJson(message["id"]);

  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return invalid("Invalid Request: \"jsonrpc\" must be \"2.0\"", id);
  }

  auto method = message.find("method");
  if (method != message.end()) {
    if (!method->is_string()) return invalid("Invalid Request: \"method\" must be a string", id);
    if (hasId && !id) {
      return invalid("Invalid Request: \"id\" must be a string or an integer (null is not allowed)");
    }
    json params = json::object();
    if (auto p = message.find("params"); p != message.end()) {
      if (p->is_array()) {
        return invalid("Invalid params: MCP params must be an object, not an array", id, !hasId,
                       ErrorCode::InvalidParams);
      }
      if (!p->is_object()) return invalid("Invalid Request: \"params\" must be an object", id, !hasId);
      params = *p;
    }
    if (hasId) return Message{Request{*id, method->get<std::string>(), std::move(params)}};
    return Message{Notification{method->get<std::string>(), std::move(params)}};
  }

  const bool hasResult = message.contains("result");
  const bool hasError = message.contains("error");
  if (hasResult == hasError) {
    return invalid("Invalid Request: a message needs \"method\", or exactly one of \"result\"/\"error\"", id);
  }
  if (!id) return invalid("Invalid Request: a response needs a string or integer \"id\"");
  Response response{*id, std::nullopt, std::nullopt};
  if (hasResult) {
    response.result = message["result"];
  } else {
    const json& e = message["error"];
    if (!e.is_object() || !e.contains("code") || !e["code"].is_number_integer()) {
      return invalid("Invalid Request: \"error\" must be an object with an integer \"code\"", id);
    }
    Error err(e["code"].get<int>(), e.value("message", std::string()));
    if (e.contains("data")) err.data = e["data"];
    response.error = std::move(err);
  }
  return Message{std::move(response)};
}

json toJson(const Request& request) {
  json m{{"jsonrpc", "2.0"}, {"id", request.id.toJson()}, {"method", request.method}};
  if (!request.params.empty()) m["params"] = request.params;
  return m;
}

json toJson(const Notification& notification) {
  json m{{"jsonrpc", "2.0"}, {"method", notification.method}};
  if (!notification.params.empty()) m["params"] = notification.params;
  return m;
}

json toJson(const Response& response) {
  if (response.error) return errorResponse(response.id, *response.error);
  return resultResponse(response.id, response.result.value_or(json::object()));
}

json resultResponse(const RequestId& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id.toJson()}, {"result", std::move(result)}};
}

json errorResponse(const std::optional<RequestId>& id, const Error& error) {
  return json{{"jsonrpc", "2.0"}, {"id", id ? id->toJson() : json(nullptr)}, {"error", error.toJson()}};
}

std::string serialize(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace kopt::mcp::rpc
