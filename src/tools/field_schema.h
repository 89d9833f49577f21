#pragma once
// The JSON Schema a described type stands for (tools/field_visitor.h). An input schema is flat
// and strict (descriptions, bounds, additionalProperties false); an output schema names types
// and what is required, and a bound or a map's value type only where the description asks.
#include <nlohmann/json.hpp>

#include "tools/field_visitor.h"

namespace kopt::tools {

enum class SchemaSide { Input, Output };

class SchemaVisitor : public FieldVisitor {
 public:
  explicit SchemaVisitor(SchemaSide side) : side_(side) {}
  using FieldVisitor::field;
  void field(const Field& f, std::string& value) override;
  void field(const Field& f, std::optional<std::string>& value) override;
  void field(const Field& f, bool& value) override;
  void field(const Field& f, std::optional<bool>& value) override;
  void field(const Field& f, long long& value) override;
  void field(const Field& f, std::optional<long long>& value) override;
  void field(const Field& f, double& value) override;
  void field(const Field& f, std::optional<double>& value) override;
  void field(const Field& f, std::vector<std::string>& value) override;
  void field(const Field& f, std::optional<std::vector<std::string>>& value) override;
  void field(const Field& f, std::map<std::string, double>& value) override;
  void field(const Field& f, std::optional<nlohmann::json>& value) override;
  void object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) override;
  void optionalObject(const Field& f, bool& present,
                      const std::function<void(FieldVisitor&)>& describeMembers) override;
  void list(const Field& f, ObjectList& items) override;

  // {"type": "object", "properties": ..., "required": [...]} (+ additionalProperties false on input).
  nlohmann::json build() const;

 private:
  nlohmann::json stringSchema(const Field& f) const;
  nlohmann::json integerSchema(const Field& f) const;
  nlohmann::json stringsSchema(const Field& f) const;
  nlohmann::json typed(const Field& f, const char* type) const;
  // Output: the value may be null (std::nullopt); input: the argument may be left out.
  nlohmann::json maybeAbsent(const Field& f, nlohmann::json schema, const char* type) const;
  // Input: the prototype's value as "default", where the field shows it.
  nlohmann::json withDefault(const Field& f, nlohmann::json schema, const nlohmann::json& value) const;
  void add(const Field& f, nlohmann::json schema);

  SchemaSide side_;
  nlohmann::json properties_ = nlohmann::json::object();
  std::vector<std::string> required_;
};

// The input schema of `prototype`'s type (the prototype carries what a description may depend
// on, e.g. the noun a paging argument pages through).
template <class T>
nlohmann::json inputSchemaOf(T prototype = T{}) {
  SchemaVisitor v(SchemaSide::Input);
  describe(v, prototype);
  return v.build();
}

template <class T>
nlohmann::json outputSchemaOf() {
  SchemaVisitor v(SchemaSide::Output);
  T example{};
  describe(v, example);
  return v.build();
}

// {"anyOf": [{"type": <type>}, {"type": "null"}]}: a nullable value, spelled without a type list
// (single-type dialects, e.g. the OpenAPI subset some model providers use, reject type lists).
nlohmann::json nullable(const std::string& type);

}  // namespace kopt::tools
