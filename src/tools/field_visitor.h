#pragma once
// One description of a tool's request or result type, from which the tools layer derives the
// input schema, the argument reader, the output schema and the result writer (the idea of
// clangd's ObjectMapper and FastMCP's typed tools: the shape is written once, so the copies
// cannot drift). A type is described by a free function
//     void describe(FieldVisitor& v, SomeType& value);
// that names each member once, in the order the schema lists it; the visitor decides whether
// that means "emit its schema", "read it from the arguments" or "write it to the result".
// The campaign layer stays JSON-free: these functions live in src/tools, over its structs.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::tools {

// What the schema says of one member, besides its C++ type.
struct Field {
  // Every string argument is bounded (docs/robustness.md, item 9): unbounded, a 10 MB
  // campaign_dir came back as a 10.5 MB error and a 10 MB hypothesis landed in the ledger.
  static constexpr long long kMaxStringChars = 8192;      // paths, names, prose of one round
  static constexpr long long kMaxDocumentChars = 262144;  // whole documents (manifest_yaml)
  static constexpr long long kMaxListItems = 256;

  std::string name;
  std::string description;  // shown in input schemas only (output schemas stay terse)
  bool isRequired = false;
  long long maxLength = kMaxStringChars;
  // Integer arguments end up in an int (round numbers, pairs, limits): unbounded, round
  // 2147483648 was recorded as round -2147483648, so the default bounds are int's.
  long long minimum = std::numeric_limits<int>::min();
  long long maximum = std::numeric_limits<int>::max();
  std::vector<std::string> choices;  // a string restricted to these names (a schema enum)
  // When set, the argument reader refuses a value outside `choices` (or a missing required
  // one) with "'<value>' is not <notChoiceWhat>" and `notChoiceFix` as the fix.
  std::string notChoiceWhat, notChoiceFix;
  // The result writer leaves an empty string or an absent (or not finite) optional out, and the
  // output schema then says the member is never null.
  bool omitWhenEmpty = false;
  // The argument reader refuses an empty string (and a required one left out); the input schema
  // says minLength 1.
  bool refusesEmpty = false;
  // The input schema shows the prototype's value as the argument's "default".
  bool showsDefault = false;
  // What the output schema says of a map's values. Infinity: they may be infinite and are worth
  // telling apart from missing (an SNR of inf means "exact"), so the writer spells +-infinity
  // "inf"/"-inf" and NaN null.
  enum class MapValues { Unstated, Numbers, NumbersOrInfinity };
  MapValues mapValues = MapValues::Unstated;

  Field& required() { isRequired = true; return *this; }
  Field& document() { maxLength = kMaxDocumentChars; return *this; }
  Field& range(long long low, long long high) { minimum = low; maximum = high; return *this; }
  Field& atLeast(long long low) { minimum = low; return *this; }
  Field& oneOf(std::vector<std::string> names) { choices = std::move(names); return *this; }
  Field& refuseOthers(std::string what, std::string fix) {
    notChoiceWhat = std::move(what);
    notChoiceFix = std::move(fix);
    return *this;
  }
  Field& omittedWhenEmpty() { omitWhenEmpty = true; return *this; }
  Field& nonEmpty() { refusesEmpty = true; return *this; }
  Field& defaultShown() { showsDefault = true; return *this; }
  Field& numberValues() { mapValues = MapValues::Numbers; return *this; }
  Field& infinitySpelled() { mapValues = MapValues::NumbersOrInfinity; return *this; }
};

// An argument of a tool: its name and the sentence the agent reads about it.
inline Field arg(std::string name, std::string description) {
  Field f;
  f.name = std::move(name);
  f.description = std::move(description);
  return f;
}
// A member of a tool's result.
inline Field out(std::string name) { return arg(std::move(name), ""); }

class FieldVisitor;

// A std::vector of described objects, seen without its element type.
class ObjectList {
 public:
  virtual ~ObjectList() = default;
  virtual std::size_t size() const = 0;
  virtual void resize(std::size_t n) = 0;
  virtual void describeItem(FieldVisitor& v, std::size_t index) = 0;
  // A default-constructed element, for visitors that want the shape and not the values.
  virtual void describeExample(FieldVisitor& v) const = 0;
};

// The members a type can have. A visitor that only needs the shape (the schema) ignores the
// values; one that reads overwrites them; one that writes only reads them.
class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  virtual void field(const Field& f, std::string& value) = 0;
  virtual void field(const Field& f, std::optional<std::string>& value) = 0;
  virtual void field(const Field& f, bool& value) = 0;
  virtual void field(const Field& f, std::optional<bool>& value) = 0;
  virtual void field(const Field& f, long long& value) = 0;
  virtual void field(const Field& f, std::optional<long long>& value) = 0;
  virtual void field(const Field& f, double& value) = 0;
  virtual void field(const Field& f, std::optional<double>& value) = 0;
  virtual void field(const Field& f, std::vector<std::string>& value) = 0;
  virtual void field(const Field& f, std::optional<std::vector<std::string>>& value) = 0;
  virtual void field(const Field& f, std::map<std::string, double>& value) = 0;
  // An object the tools layer passes through whole (another tool's result), or null.
  virtual void field(const Field& f, std::optional<nlohmann::json>& value) = 0;
  // A nested object whose members `describeMembers` names.
  virtual void object(const Field& f, const std::function<void(FieldVisitor&)>& describeMembers) = 0;
  // A nested object that may be absent (null in a result, left out of the arguments): `present`
  // says whether it is there, and a reader sets it when it reads one.
  virtual void optionalObject(const Field& f, bool& present,
                              const std::function<void(FieldVisitor&)>& describeMembers) = 0;
  // An array of nested objects.
  virtual void list(const Field& f, ObjectList& items) = 0;

  // Narrower integers travel as long long (read back with the same truncation).
  void field(const Field& f, int& value);
  void field(const Field& f, std::optional<int>& value);
  void field(const Field& f, std::uint64_t& value);
  void field(const Field& f, std::optional<std::uint64_t>& value);
};

template <class T, class Describe>
class ObjectListOf : public ObjectList {
 public:
  ObjectListOf(std::vector<T>& items, Describe describe) : items_(items), describe_(std::move(describe)) {}
  std::size_t size() const override { return items_.size(); }
  void resize(std::size_t n) override { items_.resize(n); }
  void describeItem(FieldVisitor& v, std::size_t index) override { describe_(v, items_[index]); }
  void describeExample(FieldVisitor& v) const override {
    T example{};
    describe_(v, example);
  }

 private:
  std::vector<T>& items_;
  Describe describe_;
};

// An array member whose elements `describeItem(FieldVisitor&, T&)` describes.
template <class T, class Describe>
void objects(FieldVisitor& v, const Field& f, std::vector<T>& items, Describe describeItem) {
  ObjectListOf<T, Describe> list(items, std::move(describeItem));
  v.list(f, list);
}

// An array member whose element type has its own describe() overload.
template <class T>
void objects(FieldVisitor& v, const Field& f, std::vector<T>& items) {
  objects(v, f, items, [](FieldVisitor& iv, T& item) { describe(iv, item); });
}

// A nested object member whose type has its own describe() overload.
template <class T>
void object(FieldVisitor& v, const Field& f, T& value) {
  v.object(f, [&value](FieldVisitor& iv) { describe(iv, value); });
}

// A nested object member that may be absent, whose type has its own describe() overload.
template <class T>
void object(FieldVisitor& v, const Field& f, std::optional<T>& value) {
  bool present = value.has_value();
  T members = present ? *value : T{};
  v.optionalObject(f, present, [&members](FieldVisitor& iv) { describe(iv, members); });
  value = present ? std::optional<T>(std::move(members)) : std::nullopt;
}

// An enum member spelled by name: the schema lists the names, the reader maps a name back
// (an unknown one leaves the value as it was, unless the field refuses others), the writer
// writes the name.
template <class E>
using NameTable = std::vector<std::pair<std::string, E>>;

// The names of `values` as `spell` spells them (the layer that owns the enum names it once).
template <class E, class Spell>
NameTable<E> spelledBy(const std::vector<E>& values, Spell spell) {
  NameTable<E> table;
  for (E e : values) table.emplace_back(spell(e), e);
  return table;
}

template <class E>
void choice(FieldVisitor& v, Field f, E& value, const NameTable<E>& names) {
  std::string text;
  f.choices.clear();
  for (const auto& [name, e] : names) {
    f.choices.push_back(name);
    if (e == value) text = name;
  }
  v.field(f, text);
  for (const auto& [name, e] : names) {
    if (name == text) value = e;
  }
}

}  // namespace kopt::tools
