#include "tools/field_visitor.h"

namespace kopt::tools {

namespace {

// An optional narrower integer, visited as an optional long long.
template <class Narrow>
void visitWide(FieldVisitor& v, const Field& f, std::optional<Narrow>& value) {
  std::optional<long long> wide;
  if (value) wide = static_cast<long long>(*value);
  v.field(f, wide);
  value = wide ? std::optional<Narrow>(static_cast<Narrow>(*wide)) : std::nullopt;
}

}  // namespace

void FieldVisitor::field(const Field& f, int& value) {
  long long wide = value;
  field(f, wide);
  value = static_cast<int>(wide);
}

void FieldVisitor::field(const Field& f, std::optional<int>& value) { visitWide(*this, f, value); }

void FieldVisitor::field(const Field& f, std::uint64_t& value) {
  long long wide = static_cast<long long>(value);
  field(f, wide);
  value = static_cast<std::uint64_t>(wide);
}

void FieldVisitor::field(const Field& f, std::optional<std::uint64_t>& value) { visitWide(*this, f, value); }

}  // namespace kopt::tools
