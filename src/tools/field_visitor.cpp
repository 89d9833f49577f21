#include "tools/field_visitor.h"

namespace kopt::tools {

void FieldVisitor::field(const Field& f, int& value) {
  long long wide = value;
  field(f, wide);
  value = static_cast<int>(wide);
}

void FieldVisitor::field(const Field& f, std::optional<int>& value) {
  std::optional<long long> wide;
  if (value) wide = *value;
  field(f, wide);
  value = wide ? std::optional<int>(static_cast<int>(*wide)) : std::nullopt;
}

void FieldVisitor::field(const Field& f, std::uint64_t& value) {
  long long wide = static_cast<long long>(value);
  field(f, wide);
  value = static_cast<std::uint64_t>(wide);
}

}  // namespace kopt::tools
