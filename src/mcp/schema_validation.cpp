#include "mcp/schema_validation.h"

#include <cmath>

namespace kopt::mcp {

using json = nlohmann::json;

namespace {

std::string brief(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

bool hasType(const json& value, const std::string& type) {
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    // 3.0 is an integer in JSON Schema; clients in JS cannot tell the difference anyway.
    return value.is_number_float() && std::isfinite(value.get<double>()) &&
           std::floor(value.get<double>()) == value.get<double>();
  }
  if (type == "number") return value.is_number();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "null") return value.is_null();
  return true;  // an unknown type name is the schema's problem, not the caller's
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

size_t codePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::optional<SchemaViolation> check(const json& value, const json& schema, const std::string& path);

std::optional<SchemaViolation> checkType(const json& value, const json& schema, const std::string& path) {
  auto type = schema.find("type");
  if (type == schema.end()) return std::nullopt;
  std::vector<std::string> allowed;
  if (type->is_string()) allowed.push_back(type->get<std::string>());
  if (type->is_array()) {
    for (const auto& t : *type) {
      if (t.is_string()) allowed.push_back(t.get<std::string>());
    }
  }
  if (allowed.empty()) return std::nullopt;
  for (const auto& t : allowed) {
    if (hasType(value, t)) return std::nullopt;
  }
  std::string expected;
  for (size_t i = 0; i < allowed.size(); ++i) expected += (i ? " or " : "") + allowed[i];
  const std::string article = (expected[0] == 'a' || expected[0] == 'i' || expected[0] == 'o') ? "an " : "a ";
  return SchemaViolation{path, "must be " + article + expected + ", got " + jsonTypeName(value) + " " + brief(value),
                         "pass " + article + expected};
}

std::optional<SchemaViolation> checkObject(const json& value, const json& schema, const std::string& path) {
  const json empty = json::object();
  const json& properties = schema.contains("properties") && schema["properties"].is_object() ? schema["properties"] : empty;
  if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
    for (const auto& name : *required) {
      if (name.is_string() && !value.contains(name.get<std::string>())) {
        std::string fix = "add \"" + name.get<std::string>() + "\"";
        if (auto p = properties.find(name.get<std::string>()); p != properties.end() && p->contains("description")) {
          fix += ": " + (*p)["description"].get<std::string>();
        }
        return SchemaViolation{child(path, name.get<std::string>()), "is required but missing", fix};
      }
    }
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (auto p = properties.find(it.key()); p != properties.end()) {
      if (auto v = check(it.value(), *p, child(path, it.key()))) return v;
      continue;
    }
    auto additional = schema.find("additionalProperties");
    if (additional == schema.end()) continue;
    if (additional->is_boolean() && !additional->get<bool>()) {
      std::string known;
      for (auto p = properties.begin(); p != properties.end(); ++p) known += (known.empty() ? "" : ", ") + p.key();
      return SchemaViolation{child(path, it.key()), "is not a known argument",
                             known.empty() ? "pass no arguments" : "use only: " + known};
    }
    if (additional->is_object()) {
      if (auto v = check(it.value(), *additional, child(path, it.key()))) return v;
    }
  }
  return std::nullopt;
}

std::optional<SchemaViolation> checkArray(const json& value, const json& schema, const std::string& path) {
  if (auto min = schema.find("minItems"); min != schema.end() && min->is_number() && value.size() < min->get<double>()) {
    return SchemaViolation{path, "needs at least " + brief(*min) + " items, got " + std::to_string(value.size()),
                           "pass more items"};
  }
  if (auto max = schema.find("maxItems"); max != schema.end() && max->is_number() && value.size() > max->get<double>()) {
    return SchemaViolation{path, "takes at most " + brief(*max) + " items, got " + std::to_string(value.size()),
                           "pass fewer items"};
  }
  if (auto items = schema.find("items"); items != schema.end() && items->is_object()) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (auto v = check(value[i], *items, index(path, i))) return v;
    }
  }
  return std::nullopt;
}

std::optional<SchemaViolation> checkString(const json& value, const json& schema, const std::string& path) {
  const size_t length = codePoints(value.get<std::string>());
  if (auto min = schema.find("minLength"); min != schema.end() && min->is_number() && length < min->get<double>()) {
    return SchemaViolation{path, "must be at least " + brief(*min) + " characters long", "pass a longer string"};
  }
  if (auto max = schema.find("maxLength"); max != schema.end() && max->is_number() && length > max->get<double>()) {
    return SchemaViolation{path, "must be at most " + brief(*max) + " characters long, got " + std::to_string(length),
                           "pass a shorter string"};
  }
  return std::nullopt;
}

std::optional<SchemaViolation> checkNumber(const json& value, const json& schema, const std::string& path) {
  const double x = value.get<double>();
  auto bound = [&](const char* key, auto outside, const char* words) -> std::optional<SchemaViolation> {
    auto b = schema.find(key);
    if (b == schema.end() || !b->is_number() || !outside(x, b->get<double>())) return std::nullopt;
    return SchemaViolation{path, std::string("must be ") + words + " " + brief(*b) + ", got " + brief(value),
                           std::string("pass a value ") + words + " " + brief(*b)};
  };
  if (auto v = bound("minimum", [](double a, double b) { return a < b; }, ">=")) return v;
  if (auto v = bound("maximum", [](double a, double b) { return a > b; }, "<=")) return v;
  if (auto v = bound("exclusiveMinimum", [](double a, double b) { return a <= b; }, ">")) return v;
  if (auto v = bound("exclusiveMaximum", [](double a, double b) { return a >= b; }, "<")) return v;
  return std::nullopt;
}

std::optional<SchemaViolation> checkCombinators(const json& value, const json& schema, const std::string& path) {
  if (auto all = schema.find("allOf"); all != schema.end() && all->is_array()) {
    for (const auto& s : *all) {
      if (auto v = check(value, s, path)) return v;
    }
  }
  if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array() && !any->empty()) {
    std::optional<SchemaViolation> first;
    bool ok = false;
    for (const auto& s : *any) {
      auto v = check(value, s, path);
      if (!v) { ok = true; break; }
      if (!first) first = v;
    }
    if (!ok) return first;
  }
  if (auto one = schema.find("oneOf"); one != schema.end() && one->is_array() && !one->empty()) {
    size_t matches = 0;
    std::optional<SchemaViolation> first;
    for (const auto& s : *one) {
      auto v = check(value, s, path);
      if (!v) ++matches;
      else if (!first) first = v;
    }
    if (matches == 0) return first;
    if (matches > 1) return SchemaViolation{path, "matches more than one allowed form", "make the value unambiguous"};
  }
  return std::nullopt;
}

std::optional<SchemaViolation> check(const json& value, const json& schema, const std::string& path) {
  if (schema.is_boolean()) {
    if (schema.get<bool>()) return std::nullopt;
    return SchemaViolation{path, "is not allowed", "remove it"};
  }
  if (!schema.is_object()) return std::nullopt;
  if (auto v = checkType(value, schema, path)) return v;
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const auto& allowed : *e) found = found || allowed == value;
    if (!found) return SchemaViolation{path, "must be one of " + brief(*e) + ", got " + brief(value), "pick one of " + brief(*e)};
  }
  if (auto c = schema.find("const"); c != schema.end() && *c != value) {
    return SchemaViolation{path, "must be " + brief(*c) + ", got " + brief(value), "pass " + brief(*c)};
  }
  if (value.is_object()) {
    if (auto v = checkObject(value, schema, path)) return v;
  } else if (value.is_array()) {
    if (auto v = checkArray(value, schema, path)) return v;
  } else if (value.is_string()) {
    if (auto v = checkString(value, schema, path)) return v;
  } else if (value.is_number()) {
    if (auto v = checkNumber(value, schema, path)) return v;
  }
  return checkCombinators(value, schema, path);
}

}  // namespace

std::string jsonTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "value";
  }
}

std::optional<SchemaViolation> validateAgainstSchema(const json& value, const json& schema) {
  return check(value, schema, "");
}

}  // namespace kopt::mcp
