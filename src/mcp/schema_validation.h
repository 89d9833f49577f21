#pragma once
// Checks tool arguments (and a tool's own structuredContent) against the JSON Schema the tool
// declared. Covers the subset kopt's flat schemas use: type (also type lists), required, enum,
// const, properties, additionalProperties, items, min/max (length, items, value), allOf/anyOf/
// oneOf. Other keywords are accepted without checking: a schema we cannot fully check must never
// make a valid call fail.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace kopt::mcp {

struct SchemaViolation {
  std::string path;     // "shapes[2]", "options.seed"; empty for the value itself
  std::string message;  // "must be an integer, got string \"abc\""
  std::string fix;      // what a valid value looks like
};

std::optional<SchemaViolation> validateAgainstSchema(const nlohmann::json& value, const nlohmann::json& schema);

// "string", "integer", "object"... as a JSON Schema type name, for messages.
std::string jsonTypeName(const nlohmann::json& value);

}  // namespace kopt::mcp
