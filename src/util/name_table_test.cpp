#include "util/name_table.h"

#include <doctest/doctest.h>

namespace {
enum class Colour { Red, Green, Blue };
constexpr kopt::util::EnumName<Colour> kColourNames[] = {{Colour::Red, "RED"}, {Colour::Green, "GREEN"}};
}  // namespace

using kopt::util::nameIn;
using kopt::util::valueNamed;

TEST_CASE("a name table prints and parses through the same entries") {
  CHECK(std::string_view(nameIn(kColourNames, Colour::Green, "?")) == "GREEN");
  CHECK((valueNamed(kColourNames, "RED") == Colour::Red));
  // Every entry reads back as itself.
  for (const auto& entry : kColourNames) CHECK((valueNamed(kColourNames, nameIn(kColourNames, entry.value, "?")) == entry.value));
}

TEST_CASE("a name table answers the fallback for a value it lacks, and nothing for an unknown or differently spelled name") {
  CHECK(std::string_view(nameIn(kColourNames, Colour::Blue, "UNKNOWN")) == "UNKNOWN");
  CHECK_FALSE(valueNamed(kColourNames, "BLUE").has_value());
  CHECK_FALSE(valueNamed(kColourNames, "red").has_value());
  CHECK_FALSE(valueNamed(kColourNames, "").has_value());
}

// Usable at compile time: a wrong table entry can fail the build, not a run.
static_assert(std::string_view(nameIn(kColourNames, Colour::Red, "?")) == "RED");
static_assert(*valueNamed(kColourNames, "GREEN") == Colour::Green);
