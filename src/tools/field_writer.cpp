#include "tools/field_writer.h"

#include <cmath>

namespace kopt::tools {

using json = nlohmann::json;

namespace {

template <class T>
json orNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// JSON has no infinity: +-inf as the strings "inf"/"-inf", NaN as null (Field::MapValues).
json spelled(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

template <class T>
void ResultWriter::writeOptional(const Field& f, const std::optional<T>& value) {
  if (f.omitWhenEmpty && !value) return;
  out_[f.name] = orNull(value);
}

void ResultWriter::field(const Field& f, std::string& value) {
  if (f.omitWhenEmpty && value.empty()) return;
  out_[f.name] = value;
}
void ResultWriter::field(const Field& f, std::optional<std::string>& value) { writeOptional(f, value); }
void ResultWriter::field(const Field& f, bool& value) { out_[f.name] = value; }
void ResultWriter::field(const Field& f, std::optional<bool>& value) { writeOptional(f, value); }
void ResultWriter::field(const Field& f, long long& value) { out_[f.name] = value; }
void ResultWriter::field(const Field& f, std::optional<long long>& value) { writeOptional(f, value); }
void ResultWriter::field(const Field& f, double& value) { out_[f.name] = value; }
void ResultWriter::field(const Field& f, std::optional<double>& value) {
  // NaN and infinity have no JSON spelling: an unmeasurable number is null (or left out).
  writeOptional(f, value && std::isfinite(*value) ? value : std::nullopt);
}
void ResultWriter::field(const Field& f, std::vector<std::string>& value) { out_[f.name] = value; }
void ResultWriter::field(const Field& f, std::optional<std::vector<std::string>>& value) { writeOptional(f, value); }
void ResultWriter::field(const Field& f, std::map<std::string, double>& value) {
  json object = json::object();
  const bool spellInfinity = f.mapValues == Field::MapValues::NumbersOrInfinity;
  for (const auto& [k, v] : value) object[k] = spellInfinity ? spelled(v) : json(v);
  out_[f.name] = object;
}

void ResultWriter::field(const Field& f, std::optional<json>& value) { writeOptional(f, value); }

void ResultWriter::object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) {
  ResultWriter members;
  describeMembers(members);
  out_[f.name] = std::move(members.out_);
}

void ResultWriter::optionalObject(const Field& f, bool& present,
                                  const std::function<void(FieldVisitor&)>& describeMembers) {
  if (present) object(f, describeMembers);
  else out_[f.name] = nullptr;
}

void ResultWriter::list(const Field& f, ObjectList& items) {
  json array = json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    ResultWriter item;
    items.describeItem(item, i);
    array.push_back(std::move(item.out_));
  }
  out_[f.name] = std::move(array);
}

}  // namespace kopt::tools
