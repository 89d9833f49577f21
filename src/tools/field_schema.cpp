#include "tools/field_schema.h"

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

json SchemaVisitor::maybeAbsent(json schema, const char* type) const {
  return side_ == SchemaSide::Input ? schema : nullable(type);
}

json SchemaVisitor::stringSchema(const Field& f) const {
  json s = typed(f, "string");
  if (side_ == SchemaSide::Input) s["maxLength"] = f.maxLength;
  if (!f.choices.empty()) s["enum"] = f.choices;
  return s;
}

json SchemaVisitor::integerSchema(const Field& f) const {
  json s = typed(f, "integer");
  if (side_ == SchemaSide::Input) {
    s["minimum"] = f.minimum;
    s["maximum"] = f.maximum;
  }
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
  add(f, maybeAbsent(stringSchema(f), "string"));
}
void SchemaVisitor::field(const Field& f, bool&) { add(f, typed(f, "boolean")); }
void SchemaVisitor::field(const Field& f, std::optional<bool>&) {
  add(f, maybeAbsent(typed(f, "boolean"), "boolean"));
}
void SchemaVisitor::field(const Field& f, long long&) { add(f, integerSchema(f)); }
void SchemaVisitor::field(const Field& f, std::optional<long long>&) {
  add(f, maybeAbsent(integerSchema(f), "integer"));
}
void SchemaVisitor::field(const Field& f, double&) { add(f, typed(f, "number")); }
void SchemaVisitor::field(const Field& f, std::optional<double>&) { add(f, maybeAbsent(typed(f, "number"), "number")); }
void SchemaVisitor::field(const Field& f, std::vector<std::string>&) { add(f, stringsSchema(f)); }
void SchemaVisitor::field(const Field& f, std::optional<std::vector<std::string>>&) {
  add(f, maybeAbsent(stringsSchema(f), "array"));
}
void SchemaVisitor::field(const Field& f, std::map<std::string, double>&) { add(f, typed(f, "object")); }

void SchemaVisitor::field(const Field& f, std::optional<json>&) {
  add(f, maybeAbsent(typed(f, "object"), "object"));
}

void SchemaVisitor::object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) {
  SchemaVisitor members(side_);
  describeMembers(members);
  add(f, members.build());
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
