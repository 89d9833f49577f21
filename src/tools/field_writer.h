#pragma once
// Writes a described type (tools/field_visitor.h) as the JSON object a tool returns as its
// structuredContent: every member under its name, std::nullopt and non-finite numbers as null,
// empty strings and absent values left out where the field says so.
#include <nlohmann/json.hpp>

#include "tools/field_visitor.h"

namespace kopt::tools {

class ResultWriter : public FieldVisitor {
 public:
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

  nlohmann::json& written() { return out_; }

 private:
  // The value, null when absent, or nothing where the field is omitted when empty.
  template <class T>
  void writeOptional(const Field& f, const std::optional<T>& value);

  nlohmann::json out_ = nlohmann::json::object();
};

// The value as JSON. describe() takes its argument by reference (one function serves reading
// too), so the writer describes a copy: the value itself is never touched.
template <class T>
nlohmann::json resultJson(const T& value) {
  T copy = value;
  ResultWriter writer;
  describe(writer, copy);
  return std::move(writer.written());
}

}  // namespace kopt::tools
