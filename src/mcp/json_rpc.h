#pragma once
// JSON-RPC 2.0 as MCP uses it: typed messages, the standard error codes, and the one place that
// decides whether a decoded JSON value is a request, a notification, a response or garbage.
// Everything above this file works with these types, never with raw "jsonrpc"/"id" keys.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace kopt::mcp::rpc {

using json = nlohmann::json;

enum class ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ResourceNotFound = -32002,  // MCP resources spec
};

// A request id: a string or an integer, never null (MCP forbids null ids).
class RequestId {
 public:
  RequestId() = default;
  RequestId(std::int64_t n) : value_(n) {}
  // Ids above INT64_MAX stay exact (a client may count with unsigned 64-bit ids). A named
  // factory: a constructor would make RequestId(7) ambiguous.
  static RequestId unsignedId(std::uint64_t n) {
    RequestId id;
    id.value_ = n;
    return id;
  }
  RequestId(std::string s) : value_(std::move(s)) {}
  RequestId(const char* s) : value_(std::string(s)) {}

  // nullopt when `id` is not a string or an integer (null, float, bool, object...).
  static std::optional<RequestId> fromJson(const json& id);
  json toJson() const;
  // A string unique per id and kind ("i:7" vs "s:7"; "u:" above INT64_MAX), for map keys and logs.
  std::string key() const;

  bool operator==(const RequestId& other) const { return value_ == other.value_; }
  bool operator!=(const RequestId& other) const { return !(*this == other); }
  bool operator<(const RequestId& other) const { return value_ < other.value_; }

 private:
  std::variant<std::int64_t, std::string, std::uint64_t> value_{std::int64_t{0}};
};

struct Error {
  int code = static_cast<int>(ErrorCode::InternalError);
  std::string message;
  std::optional<json> data;

  Error() = default;
  Error(ErrorCode c, std::string m, std::optional<json> d = std::nullopt)
      : code(static_cast<int>(c)), message(std::move(m)), data(std::move(d)) {}
  Error(int c, std::string m, std::optional<json> d = std::nullopt)
      : code(c), message(std::move(m)), data(std::move(d)) {}
  json toJson() const;
};

struct Request {
  RequestId id;
  std::string method;
  json params = json::object();  // always an object (absent params decode to {})
};

struct Notification {
  std::string method;
  json params = json::object();
};

struct Response {
  RequestId id;
  std::optional<json> result;  // exactly one of result / error
  std::optional<Error> error;
};

using Message = std::variant<Request, Notification, Response>;

// Why a value is not a valid message, and the id to answer with when one could be read.
struct Invalid {
  Error error;
  std::optional<RequestId> id;
  bool isNotification = false;  // a broken notification is dropped, never answered
};

// How deep arrays and objects may nest in one message (util/json_text.h). No MCP message needs
// more than a few dozen levels; 150,000 nested arrays (a 300 KB line) overflowed the stack and
// killed the server, over stdio and over HTTP before authentication mattered.
using util::jsonNestingDepth;
using util::kMaxJsonDepth;

// Decodes the text of one framed message (a stdio line, an HTTP body). Invalid JSON, invalid
// UTF-8 or nesting deeper than kMaxJsonDepth gives a -32700 error; `error` is filled and nullopt
// returned.
std::optional<json> parseJson(std::string_view text, Error* error);

// Classifies one decoded message (not an array: batches are split by the caller).
std::variant<Message, Invalid> classify(const json& message);

// Wire forms.
json toJson(const Request& request);
json toJson(const Notification& notification);
json toJson(const Response& response);
json resultResponse(const RequestId& id, json result);
// `id` absent: the request's id could not be read (parse error), so the response carries null.
json errorResponse(const std::optional<RequestId>& id, const Error& error);

// Compact one-line JSON; invalid UTF-8 in any string is replaced by U+FFFD instead of throwing,
// because tool output (process logs, file bytes) is not guaranteed to be UTF-8.
std::string serialize(const json& message);

}  // namespace kopt::mcp::rpc
