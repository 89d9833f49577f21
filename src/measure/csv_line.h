#pragma once
// Splitting one CSV line into cells (RFC 4180 quoting, no embedded newlines). Unquoted lines, the
// common case, are split into views of the line without copying; quoted cells are unescaped into
// `scratch`, which must outlive the views.
#include <string>
#include <string_view>
#include <vector>

namespace kopt::measure {

// Cells are returned verbatim (no trimming). Returns false with `error` set on an unterminated
// quote or text after a closing quote.
bool splitCsvLine(std::string_view line, std::vector<std::string_view>& cells, std::string& scratch, std::string* error);

}  // namespace kopt::measure
