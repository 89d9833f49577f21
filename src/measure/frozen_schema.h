#pragma once
// The header frozen at BASELINE must stay byte-identical: any drift silently disables the
// per-shape gate (a renamed column scores as missing), so drift is a hard error that names exactly
// what changed. The same goes for the shape set: missing, extra and reordered labels are named.
#include <string>
#include <string_view>
#include <vector>

namespace kopt::measure {

enum class HeaderDriftKind {
  Bom,                // one side starts with a UTF-8 BOM, the other not
  LineEnding,         // CRLF vs LF (or a missing final newline)
  TrailingDelimiter,  // a trailing ',' (an empty last column)
  ColumnCount,        // columns added or removed
  ColumnRenamed,      // same position, different bytes (whitespace included)
  ColumnsReordered,   // same names, different order
};

struct HeaderDrift {
  HeaderDriftKind kind;
  std::size_t column = 0;  // 1-based, 0 when not about one column
  std::string message;     // e.g. "column 7 was 'Forward TFLOPS' and is now 'Forward TFLOPS '"
};

// The raw header line of a CSV file: the bytes up to and including the first '\n' (all of it if
// there is none). Pass whole file contents or just a frozen header.
std::string_view headerLineOf(std::string_view fileText);

// Empty when `current` is byte-identical to `frozen`. Both are header lines (or whole files; only
// the first line is compared). Every difference found is listed, most specific first.
std::vector<HeaderDrift> compareFrozenHeader(std::string_view frozen, std::string_view current);
// All drifts joined into one sentence for an error message; "" when none.
std::string describe(const std::vector<HeaderDrift>& drifts);

struct ShapeSetCheck {
  std::vector<std::string> missing;     // expected, not present
  std::vector<std::string> extra;       // present, not expected
  std::vector<std::string> duplicated;  // present more than once
  bool reordered = false;               // same set, different order
  std::string firstOutOfOrder;          // the first label found at another position
  bool ok() const { return missing.empty() && extra.empty() && duplicated.empty() && !reordered; }
  std::string describe() const;  // "" when ok
};

ShapeSetCheck compareShapeSet(const std::vector<std::string>& expected, const std::vector<std::string>& actual);

}  // namespace kopt::measure
