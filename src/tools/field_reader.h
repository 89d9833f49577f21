#pragma once
// Reads a tool's JSON arguments into a described type (tools/field_visitor.h). The registry has
// validated the arguments against the input schema before a handler runs, but `kopt call`, the
// tests and future callers may not have, so the reader still checks: a value of the wrong type,
// out of its bounds, or outside a refusing choice is a problem that names the argument and the
// fix. An argument left out (or null) leaves the member as the type's default has it.
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "tools/field_visitor.h"

namespace kopt::tools {

// What is wrong with one argument: which, what, and what to send instead.
struct ArgumentProblem {
  std::string field;
  std::string message;
  std::string fix;
};

// What a tool answers whose every failure is one argument's problem (a path that names no file,
// a device index that names no device): the result, or the problem.
template <class Result>
using Checked = std::variant<Result, ArgumentProblem>;

class ArgumentReader : public FieldVisitor {
 public:
  explicit ArgumentReader(const nlohmann::json& args, std::string pathPrefix = "")
      : args_(args), prefix_(std::move(pathPrefix)) {}
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

  // The first problem met (the reader stops reading after it).
  const std::optional<ArgumentProblem>& problem() const { return problem_; }

 private:
  // The argument's value, or nullptr when it is absent, null, or an earlier one had a problem.
  const nlohmann::json* present(const Field& f) const;
  std::string path(const Field& f) const { return prefix_ + f.name; }
  void wrongType(const Field& f, const nlohmann::json& value, const std::string& expected);
  bool readString(const Field& f, const nlohmann::json& value, std::string& out);
  bool readInteger(const Field& f, const nlohmann::json& value, long long& out);
  bool readStrings(const Field& f, const nlohmann::json& value, std::vector<std::string>& out);
  void checkChoice(const Field& f, const std::string& value);
  std::string nonEmptyFix(const Field& f) const;
  void adopt(const ArgumentReader& inner);

  const nlohmann::json& args_;
  std::string prefix_;
  std::optional<ArgumentProblem> problem_;
};

// Reads `args` into `into` (whose defaults stand for arguments left out); the first problem, if any.
template <class T>
std::optional<ArgumentProblem> readArguments(const nlohmann::json& args, T& into) {
  ArgumentReader reader(args);
  describe(reader, into);
  return reader.problem();
}

}  // namespace kopt::tools
