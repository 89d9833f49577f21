#include "tools/field_reader.h"

#include <algorithm>

#include "util/text.h"

namespace kopt::tools {

using json = nlohmann::json;

namespace {

std::string kindOf(const json& value) {
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer() || value.is_number_unsigned()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

}  // namespace

const json* ArgumentReader::present(const Field& f) const {
  if (problem_ || !args_.is_object()) return nullptr;
  auto it = args_.find(f.name);
  if (it == args_.end() || it->is_null()) return nullptr;
  return &*it;
}

void ArgumentReader::wrongType(const Field& f, const json& value, const std::string& expected) {
  problem_ = ArgumentProblem{path(f), "argument '" + path(f) + "' is " + kindOf(value) + ", not " + expected,
                             "pass " + path(f) + " as " + expected + " (see the tool's inputSchema)"};
}

void ArgumentReader::checkChoice(const Field& f, const std::string& value) {
  if (f.notChoiceWhat.empty() || problem_) return;
  if (std::find(f.choices.begin(), f.choices.end(), value) != f.choices.end()) return;
  problem_ = ArgumentProblem{path(f), "'" + value + "' is not " + f.notChoiceWhat, f.notChoiceFix};
}

bool ArgumentReader::readString(const Field& f, const json& value, std::string& out) {
  if (!value.is_string()) {
    wrongType(f, value, "a string");
    return false;
  }
  out = value.get<std::string>();
  if (f.refusesEmpty && out.empty()) {
    problem_ = ArgumentProblem{path(f), "argument '" + path(f) + "' is empty", nonEmptyFix(f)};
    return false;
  }
  checkChoice(f, out);
  return !problem_;
}

std::string ArgumentReader::nonEmptyFix(const Field& f) const {
  return "pass " + path(f) + " as a non-empty string (see the tool's inputSchema)";
}

bool ArgumentReader::readInteger(const Field& f, const json& value, long long& out) {
  if (!value.is_number()) {
    wrongType(f, value, "an integer");
    return false;
  }
  // A number with a fraction is truncated, as the arguments always were read.
  const long long n = static_cast<long long>(value.get<double>());
  if (n < f.minimum || n > f.maximum) {
    problem_ = ArgumentProblem{path(f), "argument '" + path(f) + "' is " + std::to_string(n) + ", outside its range",
                               "pass an integer from " + std::to_string(f.minimum) + " to " + std::to_string(f.maximum)};
    return false;
  }
  out = n;
  return true;
}

bool ArgumentReader::readStrings(const Field& f, const json& value, std::vector<std::string>& out) {
  out.clear();
  if (value.is_string()) {
    // Tolerate a comma-separated string from clients that only send primitives.
    for (auto& part : util::split(value.get<std::string>(), ',')) {
      auto t = util::trim(part);
      if (!t.empty()) out.push_back(t);
    }
    return true;
  }
  if (!value.is_array()) {
    wrongType(f, value, "an array of strings");
    return false;
  }
  for (const auto& x : value) {
    if (x.is_string()) out.push_back(x.get<std::string>());
  }
  return true;
}

void ArgumentReader::field(const Field& f, std::string& value) {
  if (const json* v = present(f)) {
    std::string s;
    if (readString(f, *v, s)) value = std::move(s);
  } else if (f.isRequired && f.refusesEmpty && !problem_) {
    problem_ = ArgumentProblem{path(f), "argument '" + path(f) + "' is required", nonEmptyFix(f)};
  } else if (f.isRequired && !problem_) {
    checkChoice(f, "");  // a refusing choice that is required refuses its absence too
  }
}

void ArgumentReader::field(const Field& f, std::optional<std::string>& value) {
  if (const json* v = present(f)) {
    std::string s;
    if (readString(f, *v, s)) value = std::move(s);
  }
}

void ArgumentReader::field(const Field& f, bool& value) {
  if (const json* v = present(f)) {
    if (v->is_boolean()) value = v->get<bool>();
    else wrongType(f, *v, "a boolean");
  }
}

void ArgumentReader::field(const Field& f, std::optional<bool>& value) {
  bool b = false;
  if (present(f)) {
    field(f, b);
    if (!problem_) value = b;
  }
}

void ArgumentReader::field(const Field& f, long long& value) {
  if (const json* v = present(f)) readInteger(f, *v, value);
}

void ArgumentReader::field(const Field& f, std::optional<long long>& value) {
  long long n = 0;
  if (const json* v = present(f)) {
    if (readInteger(f, *v, n)) value = n;
  }
}

void ArgumentReader::field(const Field& f, double& value) {
  if (const json* v = present(f)) {
    if (v->is_number()) value = v->get<double>();
    else wrongType(f, *v, "a number");
  }
}

void ArgumentReader::field(const Field& f, std::optional<double>& value) {
  double d = 0;
  if (present(f)) {
    field(f, d);
    if (!problem_) value = d;
  }
}

void ArgumentReader::field(const Field& f, std::vector<std::string>& value) {
  if (const json* v = present(f)) {
    std::vector<std::string> items;
    if (readStrings(f, *v, items)) value = std::move(items);
  }
}

void ArgumentReader::field(const Field& f, std::optional<std::vector<std::string>>& value) {
  if (const json* v = present(f)) {
    std::vector<std::string> items;
    if (readStrings(f, *v, items)) value = std::move(items);
  }
}

void ArgumentReader::field(const Field& f, std::map<std::string, double>& value) {
  const json* v = present(f);
  if (!v) return;
  if (!v->is_object()) return wrongType(f, *v, "an object of numbers");
  std::map<std::string, double> read;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it->is_number()) return wrongType(f, *it, "an object of numbers");
    read[it.key()] = it->get<double>();
  }
  value = std::move(read);
}

void ArgumentReader::field(const Field& f, std::optional<json>& value) {
  if (const json* v = present(f)) {
    if (v->is_object()) value = *v;
    else wrongType(f, *v, "an object");
  }
}

void ArgumentReader::adopt(const ArgumentReader& inner) {
  if (inner.problem_) problem_ = inner.problem_;
}

void ArgumentReader::object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) {
  const json* v = present(f);
  if (!v) return;
  if (!v->is_object()) return wrongType(f, *v, "an object");
  ArgumentReader inner(*v, path(f) + ".");
  describeMembers(inner);
  adopt(inner);
}

void ArgumentReader::optionalObject(const Field& f, bool& wasGiven,
                                    const std::function<void(FieldVisitor&)>& describeMembers) {
  if (!present(f)) return;
  object(f, describeMembers);
  if (!problem_) wasGiven = true;
}

void ArgumentReader::list(const Field& f, ObjectList& items) {
  const json* v = present(f);
  if (!v) return;
  if (!v->is_array()) return wrongType(f, *v, "an array of objects");
  items.resize(v->size());
  for (std::size_t i = 0; i < v->size() && !problem_; ++i) {
    const json& item = (*v)[i];
    const std::string where = path(f) + "[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      problem_ = ArgumentProblem{where, "'" + where + "' is " + kindOf(item) + ", not an object",
                                 "pass each item of " + path(f) + " as an object"};
      return;
    }
    ArgumentReader inner(item, where + ".");
    items.describeItem(inner, i);
    adopt(inner);
  }
}

}  // namespace kopt::tools
