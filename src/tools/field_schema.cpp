#include "tools/field_schema.h"

#include <limits>

namespace kopt::tools {

using json = nlohmann::json;

json nullable(const std::string& type) {
  return json{{"anyOf", json::array({json{{"type", type}}, json{{"type", "null"}}})}};
}

json SchemaVisitor::typed(const Field& f, const char* type) const {
  json s{{"type", type}};
  if (side_ == SchemaSide::Input) s["description"] = f.description;
  return s;
}

json SchemaVisitor::maybeAbsent(const Field& f, json schema, const char* type) const {
  // A result member the writer leaves out when it has no value is never null.
  if (side_ == SchemaSide::Input || f.omitWhenEmpty) return schema;
  return nullable(type);
}

json SchemaVisitor::withDefault(const Field& f, json schema, const json& value) const {
  if (side_ == SchemaSide::Input && f.showsDefault) schema["default"] = value;
  return schema;
}

json SchemaVisitor::stringSchema(const Field& f) const {
  json s = typed(f, "string");
  if (side_ == SchemaSide::Input) s["maxLength"] = f.maxLength;
  if (side_ == SchemaSide::Input && f.refusesEmpty) s["minLength"] = 1;
  if (!f.choices.empty()) s["enum"] = f.choices;
  return s;
}

json SchemaVisitor::integerSchema(const Field& f) const {
  json s = typed(f, "integer");
  // An output schema names a bound only where the description set one (a count is never negative).
  const bool input = side_ == SchemaSide::Input;
  if (input || f.minimum != std::numeric_limits<int>::min()) s["minimum"] = f.minimum;
  if (input || f.maximum != std::numeric_limits<int>::max()) s["maximum"] = f.maximum;
  return s;
}

json SchemaVisitor::stringsSchema(const Field& f) const {
  if (side_ == SchemaSide::Output) return json{{"type", "array"}, {"items", {{"type", "string"}}}};
  return json{{"type", "array"},
              {"items", {{"type", "string"}, {"maxLength", f.maxLength}}},
              {"maxItems", Field::kMaxListItems},
              {"description", f.description}};
}

void SchemaVisitor::add(const Field& f, json schema) {
  properties_[f.name] = std::move(schema);
  if (f.isRequired) required_.push_back(f.name);
}

void SchemaVisitor::field(const Field& f, std::string&) { add(f, stringSchema(f)); }
void SchemaVisitor::field(const Field& f, std::optional<std::string>&) {
  add(f, maybeAbsent(f, stringSchema(f), "string"));
}
void SchemaVisitor::field(const Field& f, bool& value) { add(f, withDefault(f, typed(f, "boolean"), value)); }
void SchemaVisitor::field(const Field& f, std::optional<bool>&) {
  add(f, maybeAbsent(f, typed(f, "boolean"), "boolean"));
}
void SchemaVisitor::field(const Field& f, long long& value) { add(f, withDefault(f, integerSchema(f), value)); }
void SchemaVisitor::field(const Field& f, std::optional<long long>&) {
  add(f, maybeAbsent(f, integerSchema(f), "integer"));
}
void SchemaVisitor::field(const Field& f, double&) { add(f, typed(f, "number")); }
void SchemaVisitor::field(const Field& f, std::optional<double>&) { add(f, maybeAbsent(f, typed(f, "number"), "number")); }
void SchemaVisitor::field(const Field& f, std::vector<std::string>&) { add(f, stringsSchema(f)); }
void SchemaVisitor::field(const Field& f, std::optional<std::vector<std::string>>&) {
  add(f, maybeAbsent(f, stringsSchema(f), "array"));
}
void SchemaVisitor::field(const Field& f, std::map<std::string, double>&) {
  json s = typed(f, "object");
  if (side_ == SchemaSide::Output && f.mapValues == Field::MapValues::Numbers) {
    s["additionalProperties"] = json{{"type", "number"}};
  } else if (side_ == SchemaSide::Output && f.mapValues == Field::MapValues::NumbersOrInfinity) {
    s["additionalProperties"] = json{
        {"anyOf", json::array({json{{"type", "number"}}, json{{"type", "string"}},
                               json{{"type", "null"}}})}};
  }
  add(f, s);
}

void SchemaVisitor::field(const Field& f, std::optional<json>&) {
  add(f, maybeAbsent(f, typed(f, "object"), "object"));
}

void SchemaVisitor::object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) {
  SchemaVisitor members(side_);
  describeMembers(members);
  add(f, members.build());
}

void SchemaVisitor::optionalObject(const Field& f, bool&, const std::function<void(FieldVisitor&)>& describeMembers) {
  SchemaVisitor members(side_);
  describeMembers(members);
  json s = members.build();
  if (side_ == SchemaSide::Output) s = json{{"anyOf", json::array({s, json{{"type", "null"}}})}};
  add(f, s);
}

void SchemaVisitor::list(const Field& f, ObjectList& items) {
  SchemaVisitor item(side_);
  items.describeExample(item);
  add(f, json{{"type", "array"}, {"items", item.build()}});
}

json SchemaVisitor::build() const {
  json s{{"type", "object"}, {"properties", properties_}};
  if (side_ == SchemaSide::Input) s["additionalProperties"] = false;
  if (!required_.empty()) s["required"] = required_;
  return s;
}

}  // namespace kopt::tools
