#pragma once
// One table per enumeration that both prints and parses it, so the two directions cannot
// disagree (a name added to the printer but not the parser read back as "unknown" before):
//     constexpr util::EnumName<Phase> kPhaseNames[] = {{Phase::Baseline, "BASELINE"}, ...};
//     nameIn(kPhaseNames, phase, "UNKNOWN");   valueNamed(kPhaseNames, "BASELINE");
#include <cstddef>
#include <optional>
#include <string_view>

namespace kopt::util {

template <class Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// The name of `value` in `table`, or `fallback` for a value the table lacks.
template <class Enum, std::size_t N>
constexpr const char* nameIn(const EnumName<Enum> (&table)[N], Enum value, const char* fallback) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return fallback;
}

// The value named exactly `text` in `table` (case and spaces are the caller's to normalise).
template <class Enum, std::size_t N>
constexpr std::optional<Enum> valueNamed(const EnumName<Enum> (&table)[N], std::string_view text) {
  for (const auto& entry : table) {
    if (text == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace kopt::util
