#include "measure/bench_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>
#include <utility>

#include "measure/csv_line.h"

namespace kopt::measure {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// The common case, digits[.digits][e[+-]digits] with at most 15 significant digits and a small
// exponent, computed exactly: the mantissa is an integer below 2^53 and the power of ten is exact
// up to 1e22, so one multiplication or division is correctly rounded (Clinger's fast path, the
// same result from_chars gives). Anything else returns false and goes to from_chars.
bool parseSimpleDecimal(std::string_view s, double& out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = s.data();
  const char* end = p + s.size();
  std::uint64_t mantissa = 0;
  int digits = 0, scale = 0;
  bool any = false;
  for (; p != end && *p >= '0' && *p <= '9'; ++p, any = true) {
    if (mantissa == 0 && *p == '0') continue;  // leading zeros do not count as significant
    if (++digits > 15) return false;
    mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  if (p != end && *p == '.') {
    ++p;
    for (; p != end && *p >= '0' && *p <= '9'; ++p, any = true) {
      if (mantissa == 0 && *p == '0') {
        --scale;
        continue;
      }
      if (++digits > 15) return false;
      mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
      --scale;
    }
  }
  if (!any) return false;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negExp = false;
    if (p != end && (*p == '+' || *p == '-')) negExp = *p++ == '-';
    if (p == end) return false;
    int e = 0;
    for (; p != end && *p >= '0' && *p <= '9'; ++p) {
      if (e > 1000) return false;
      e = e * 10 + (*p - '0');
    }
    scale += negExp ? -e : e;
  }
  if (p != end) return false;
  if (mantissa == 0) {
    out = 0.0;
    return true;
  }
  if (scale < -22 || scale > 22) return false;
  const double m = static_cast<double>(mantissa);
  out = scale >= 0 ? m * kPow10[scale] : m / kPow10[-scale];
  return true;
}

// Numbers as harnesses print them: %g output, "nan"/"-nan"/"NaN", "inf"/"-inf"/"Infinity", or an
// empty cell (no value). Returns false for anything else.
bool parseNumber(std::string_view cell, double& out) {
  cell = trimSpaces(cell);
  if (cell.empty()) {
    out = kNaN;
    return true;
  }
  bool negative = false;
  std::string_view body = cell;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (equalsIgnoreCase(body, "nan")) {
    out = kNaN;
    return true;
  }
  if (equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity")) {
    out = negative ? -kInf : kInf;
    return true;
  }
  if (body.empty() || body.front() == '+' || body.front() == '-') return false;  // "--1", "-"
  if (parseSimpleDecimal(body, out)) {
    if (negative) out = -out;
    return true;
  }
  // from_chars rejects a leading '+'; the sign was consumed above, so parse the body.
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), out);
  if (ec != std::errc() || end != body.data() + body.size()) {
    // Out-of-range values (1e999) are a printing bug, not a number we should silently clamp.
    return false;
  }
  if (negative) out = -out;
  return true;
}

// Shape dimensions: a non-negative integer, or an empty cell. "1024.0" is accepted because some
// harnesses print every number with %g-like float formatting.
enum class IntParse { Ok, Empty, Bad };
IntParse parseDim(std::string_view cell, std::optional<std::int64_t>& out) {
  cell = trimSpaces(cell);
  if (cell.empty()) {
    out.reset();
    return IntParse::Empty;
  }
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec == std::errc() && end == cell.data() + cell.size() && v >= 0) {
    out = v;
    return IntParse::Ok;
  }
  double d = 0;
  if (parseNumber(cell, d) && std::isfinite(d) && d >= 0 && d == std::floor(d) && d < 9.0e15) {
    out = static_cast<std::int64_t>(d);
    return IntParse::Ok;
  }
  return IntParse::Bad;
}

bool isShapeName(std::string_view name) { return name == "B" || name == "M" || name == "N" || name == "K"; }

bool looksLikeMetric(std::string_view name) {
  if (endsWith(name, "_stddev") || endsWith(name, "_stddev_pct") || endsWith(name, "_std") ||
      endsWith(name, "_std_pct"))
    return false;
  return contains(name, "TFLOPS") || contains(name, "GB/s") || contains(name, "TOPS");
}

std::string quoteName(std::string_view s) { return "'" + std::string(s) + "'"; }

TableError error(std::size_t line, std::size_t column, std::string columnName, std::string message, std::string fix) {
  TableError e;
  e.line = line;
  e.column = column;
  e.columnName = std::move(columnName);
  e.message = std::move(message);
  e.fix = std::move(fix);
  return e;
}

// Which role each column plays, decided once from the header.
enum class Role : unsigned char { Label, Check, Shape, Number, Text };

struct Plan {
  Schema schema;
  std::vector<Role> roles;
  bool inferTextColumns = false;  // generic schema: a non-numeric column becomes text
};

struct Split {
  std::string_view header;  // header line without BOM and line terminator
  std::size_t bodyStart = 0;
  bool hasBom = false;
  bool crlf = false;
  std::string headerBytes;
};

Split splitHeader(std::string_view text) {
  Split s;
  std::size_t nl = text.find('\n');
  s.headerBytes = std::string(nl == std::string_view::npos ? text : text.substr(0, nl + 1));
  std::string_view line = nl == std::string_view::npos ? text : text.substr(0, nl);
  s.bodyStart = nl == std::string_view::npos ? text.size() : nl + 1;
  if (line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") {
    s.hasBom = true;
    line.remove_prefix(3);
  }
  if (!line.empty() && line.back() == '\r') {
    s.crlf = true;
    line.remove_suffix(1);
  }
  s.header = line;
  return s;
}

std::optional<TableError> validateHeaderCells(const std::vector<std::string>& columns) {
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].empty()) {
      bool last = i + 1 == columns.size();
      return error(1, i + 1, "", "column " + std::to_string(i + 1) + " of the header has an empty name" +
                                     (last ? " (a trailing ',')" : ""),
                   last ? "remove the trailing delimiter from the header and every row" : "name every column");
    }
    auto [it, inserted] = seen.emplace(columns[i], i);
    if (!inserted)
      return error(1, i + 1, columns[i],
                   "column " + std::to_string(i + 1) + " " + quoteName(columns[i]) + " repeats column " +
                       std::to_string(it->second + 1),
                   "give every column a distinct name");
  }
  return std::nullopt;
}

std::string firstColumnDifference(const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  std::size_t n = std::min(expected.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i)
    if (expected[i] != actual[i])
      return "column " + std::to_string(i + 1) + " should be " + quoteName(expected[i]) + " and is " +
             quoteName(actual[i]);
  if (actual.size() < expected.size())
    return "the header has " + std::to_string(actual.size()) + " columns, missing " +
           quoteName(expected[actual.size()]) + " and after (" + std::to_string(expected.size()) + " expected)";
  return "the header has " + std::to_string(actual.size()) + " columns, " + std::to_string(expected.size()) +
         " expected; first extra column " + quoteName(actual[expected.size()]);
}

std::string joinColumns(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ',';
    out += columns[i];
  }
  return out;
}

Plan planBuiltin(SchemaKind kind, std::vector<std::string> columns) {
  Plan p;
  p.schema.kind = kind;
  p.schema.columns = std::move(columns);
  p.roles.assign(p.schema.columns.size(), Role::Number);
  for (std::size_t i = 0; i < p.schema.columns.size(); ++i) {
    const std::string& c = p.schema.columns[i];
    if (c == "label") {
      p.roles[i] = Role::Label;
      p.schema.labelIndex = i;
    } else if (c == "Check") {
      p.roles[i] = Role::Check;
      p.schema.checkIndex = i;
    } else if (isShapeName(c)) {
      p.roles[i] = Role::Shape;
    }
  }
  p.schema.metricColumns = kind == SchemaKind::Gemm
                               ? std::vector<std::string>{"Forward TFLOPS", "Backward TFLOPS"}
                               : std::vector<std::string>{"Forward GB/s", "Backward GB/s"};
  return p;
}

std::variant<Plan, TableError> planGeneric(std::vector<std::string> columns) {
  Plan p;
  p.schema.kind = SchemaKind::Custom;
  p.schema.columns = std::move(columns);
  p.roles.assign(p.schema.columns.size(), Role::Number);
  p.inferTextColumns = true;
  std::optional<std::size_t> label, check;
  for (std::size_t i = 0; i < p.schema.columns.size(); ++i) {
    const std::string& c = p.schema.columns[i];
    if (!label && equalsIgnoreCase(c, "label")) {
      label = i;
      p.roles[i] = Role::Label;
    } else if (!check && (equalsIgnoreCase(c, "check") || equalsIgnoreCase(c, "correct"))) {
      check = i;
      p.roles[i] = Role::Check;
    } else if (isShapeName(c)) {
      p.roles[i] = Role::Shape;
    } else if (looksLikeMetric(c)) {
      p.schema.metricColumns.push_back(c);
    }
  }
  const std::string fix =
      "write the GEMM header (" + joinColumns(gemmColumns()) +
      "), the memory-bound header, or declare a custom schema in the manifest (columns, label column, check "
      "column, metric columns)";
  if (!label) return error(1, 0, "label", "the header has no 'label' column", fix);
  if (!check) return error(1, 0, "Check", "the header has no 'Check' column", fix);
  p.schema.labelIndex = *label;
  p.schema.checkIndex = *check;
  return p;
}

std::variant<Plan, TableError> planCustom(const CustomSchema& custom, std::vector<std::string> columns) {
  const std::string manifestFix = "fix the custom schema in the manifest";
  if (auto e = validateHeaderCells(custom.columns)) {
    e->line = 0;
    e->message = "the declared custom schema: " + e->message;
    e->fix = manifestFix;
    return *e;
  }
  auto indexIn = [&](const std::string& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < custom.columns.size(); ++i)
      if (custom.columns[i] == name) return i;
    return std::nullopt;
  };
  auto missing = [&](const std::string& what, const std::string& name) {
    return error(0, 0, name, "the declared custom schema's " + what + " " + quoteName(name) + " is not one of its columns",
                 manifestFix);
  };
  auto label = indexIn(custom.labelColumn);
  if (!label) return missing("label column", custom.labelColumn);
  auto check = indexIn(custom.checkColumn);
  if (!check) return missing("check column", custom.checkColumn);
  if (columns != custom.columns)
    return error(1, 0, "", "the header does not match the declared custom schema: " +
                               firstColumnDifference(custom.columns, columns),
                 "write exactly: " + joinColumns(custom.columns));
  Plan p;
  p.schema.kind = SchemaKind::Custom;
  p.schema.columns = std::move(columns);
  p.roles.assign(p.schema.columns.size(), Role::Number);
  p.schema.labelIndex = *label;
  p.schema.checkIndex = *check;
  p.roles[*label] = Role::Label;
  p.roles[*check] = Role::Check;
  for (const auto& s : custom.shapeColumns) {
    auto i = indexIn(s);
    if (!i) return missing("shape column", s);
    if (!isShapeName(s))
      return error(0, 0, s, "shape column " + quoteName(s) + " is not one of B, M, N, K", manifestFix);
    p.roles[*i] = Role::Shape;
  }
  for (const auto& t : custom.textColumns) {
    auto i = indexIn(t);
    if (!i) return missing("text column", t);
    p.roles[*i] = Role::Text;
  }
  for (const auto& m : custom.metricColumns) {
    auto i = indexIn(m);
    if (!i) return missing("metric column", m);
    if (p.roles[*i] != Role::Number)
      return error(0, 0, m, "metric column " + quoteName(m) + " is also the label, check, shape or a text column",
                   manifestFix);
    p.schema.metricColumns.push_back(m);
  }
  if (p.schema.metricColumns.empty())
    return error(0, 0, "", "the declared custom schema names no metric column", manifestFix);
  return p;
}

// The earliest repeated label (by the line of its repetition) as (first row, repeating row). An
// open-addressing table of row indices keyed by the label hash: one flat allocation instead of a
// node per label, which a hash map of 100k labels costs.
std::optional<std::pair<std::size_t, std::size_t>> findDuplicateLabel(const std::vector<BenchRow>& rows) {
  constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::size_t capacity = 16;
  while (capacity < rows.size() * 2) capacity <<= 1;
  std::vector<std::uint32_t> slots(capacity, kEmpty);
  std::vector<std::size_t> hashes(rows.size());
  const std::size_t mask = capacity - 1;
  std::hash<std::string_view> hash;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t h = hashes[i] = hash(rows[i].label);
    for (std::size_t pos = h & mask;; pos = (pos + 1) & mask) {
      const std::uint32_t other = slots[pos];
      if (other == kEmpty) {
        slots[pos] = static_cast<std::uint32_t>(i);
        break;
      }
      if (hashes[other] == h && rows[other].label == rows[i].label) return std::make_pair<std::size_t, std::size_t>(other, std::size_t(i));
    }
  }
  return std::nullopt;
}

TableResult parseRows(std::string_view text, const Split& split, Plan plan) {
  BenchTable table;
  table.schema = std::move(plan.schema);
  Schema& schema = table.schema;
  schema.headerBytes = split.headerBytes;
  schema.hasBom = split.hasBom;
  schema.crlf = split.crlf;
  const std::size_t ncols = schema.columns.size();
  std::vector<bool> textual(ncols, false);
  bool anyTextColumn = false;
  for (std::size_t i = 0; i < ncols; ++i) {
    textual[i] = plan.roles[i] == Role::Label || plan.roles[i] == Role::Check || plan.roles[i] == Role::Text;
    if (plan.roles[i] == Role::Text) anyTextColumn = true;
  }
  const bool keepText = anyTextColumn || plan.inferTextColumns;

  std::vector<std::string_view> cells;
  cells.reserve(ncols + 1);
  std::string scratch;  // unescaped quoted cells live here for the current line
  std::size_t pos = split.bodyStart;
  std::size_t lineNo = 1;
  std::size_t firstBlankAfterData = 0;
  // One reservation from a cheap estimate (rows are rarely shorter than 32 bytes).
  table.rows.reserve(std::min<std::size_t>((text.size() - std::min(pos, text.size())) / 32 + 1, 1u << 22));

  while (pos < text.size()) {
    ++lineNo;
    std::size_t nl = text.find('\n', pos);
    std::string_view line = nl == std::string_view::npos ? text.substr(pos) : text.substr(pos, nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (!firstBlankAfterData) firstBlankAfterData = lineNo;
      continue;
    }
    if (firstBlankAfterData)
      return error(firstBlankAfterData, 0, "", "blank line " + std::to_string(firstBlankAfterData) + " inside the table",
                   "remove blank lines between rows");

    std::string splitError;
    if (!splitCsvLine(line, cells, scratch, &splitError))
      return error(lineNo, 0, "", "line " + std::to_string(lineNo) + ": " + splitError,
                   "quote a cell with '\"' on both ends and double any '\"' inside it");
    if (cells.size() != ncols) {
      std::string msg = "line " + std::to_string(lineNo) + " has " + std::to_string(cells.size()) + " cells, the header has " +
                        std::to_string(ncols);
      if (cells.size() == ncols + 1 && cells.back().empty()) msg += " (a trailing ',')";
      return error(lineNo, std::min(cells.size(), ncols) + (cells.size() > ncols ? 1 : 0), "", msg,
                   "write exactly one cell per header column on every row");
    }

    BenchRow row;
    row.line = lineNo;
    row.values.assign(ncols, kNaN);
    if (keepText) row.text.assign(ncols, std::string());
    for (std::size_t c = 0; c < ncols; ++c) {
      std::string_view cell = cells[c];
      if (keepText && (textual[c] || plan.inferTextColumns)) row.text[c] = std::string(cell);
      switch (plan.roles[c]) {
        case Role::Label: {
          std::string_view label = trimSpaces(cell);
          if (label.empty())
            return error(lineNo, c + 1, schema.columns[c], "line " + std::to_string(lineNo) + " has an empty label",
                         "give every row a unique, non-empty label");
          row.label = std::string(label);
          break;
        }
        case Role::Check: {
          auto check = parseCheck(cell);
          if (!check)
            return error(lineNo, c + 1, schema.columns[c],
                         "line " + std::to_string(lineNo) + " (" + std::string(trimSpaces(cells[schema.labelIndex])) +
                             "), column " + std::to_string(c + 1) + " " + quoteName(schema.columns[c]) + ": " +
                             quoteName(cell) + " is not a check value",
                         "write PASS, FAIL or ERROR (aliases: ok/true/\xE2\x9C\x93, false/\xE2\x9C\x97, err)");
          row.check = *check;
          break;
        }
        case Role::Shape: {
          std::optional<std::int64_t> dim;
          if (parseDim(cell, dim) == IntParse::Bad)
            return error(lineNo, c + 1, schema.columns[c],
                         "line " + std::to_string(lineNo) + ", column " + std::to_string(c + 1) + " " +
                             quoteName(schema.columns[c]) + ": " + quoteName(cell) + " is not a non-negative integer",
                         "write the dimension as an integer, or leave the cell empty");
          switch (schema.columns[c][0]) {  // a shape column is exactly one of B, M, N, K
            case 'B': row.shape.B = dim; break;
            case 'M': row.shape.M = dim; break;
            case 'N': row.shape.N = dim; break;
            default: row.shape.K = dim; break;
          }
          if (dim) row.values[c] = static_cast<double>(*dim);
          break;
        }
        case Role::Number: {
          double v = 0;
          if (!parseNumber(cell, v)) {
            if (plan.inferTextColumns) {
              plan.roles[c] = Role::Text;  // a generic table's descriptive column (dtype, GPU, ...)
              textual[c] = true;
              // Earlier rows parsed this column as numbers; give them back their text view.
              for (auto& prev : table.rows) prev.values[c] = kNaN;
              break;
            }
            return error(lineNo, c + 1, schema.columns[c],
                         "line " + std::to_string(lineNo) + ", column " + std::to_string(c + 1) + " " +
                             quoteName(schema.columns[c]) + ": " + quoteName(cell) + " is not a number",
                         "print numbers with %g (nan and inf are allowed), or leave the cell empty");
          }
          row.values[c] = v;
          break;
        }
        case Role::Text:
          row.values[c] = kNaN;
          break;
      }
    }
    table.rows.push_back(std::move(row));
  }

  if (auto dup = findDuplicateLabel(table.rows)) {
    const BenchRow& first = table.rows[dup->first];
    const BenchRow& again = table.rows[dup->second];
    return error(again.line, schema.labelIndex + 1, schema.columns[schema.labelIndex],
                 "label " + quoteName(again.label) + " on line " + std::to_string(again.line) + " repeats line " +
                     std::to_string(first.line),
                 "give every shape one row with a unique label");
  }
  if (table.rows.empty())
    return error(2, 0, "", "the table has a header and no rows", "write one row per shape after the header");

  schema.isText = textual;
  if (plan.inferTextColumns) {
    // Metrics guessed from names must have stayed numeric.
    std::vector<std::string> metrics;
    for (const auto& m : schema.metricColumns) {
      auto i = schema.indexOf(m);
      if (i && !textual[*i]) metrics.push_back(m);
    }
    schema.metricColumns = std::move(metrics);
    // Keep text only for textual columns so numeric cells are not stored twice.
    for (auto& row : table.rows)
      for (std::size_t c = 0; c < ncols; ++c)
        if (!textual[c]) row.text[c].clear();
  }
  return table;
}

TableResult parseWithPlanner(std::string_view text,
                             const std::function<std::variant<Plan, TableError>(std::vector<std::string>)>& planner) {
  if (text.empty()) return error(0, 0, "", "the file is empty", "write the header line and one row per shape");
  Split split = splitHeader(text);
  std::vector<std::string_view> cells;
  std::string scratch;
  std::string splitError;
  if (!splitCsvLine(split.header, cells, scratch, &splitError))
    return error(1, 0, "", "the header: " + splitError, "write the header as plain comma-separated names");
  std::vector<std::string> columns(cells.begin(), cells.end());
  if (columns.size() == 1 && columns[0].empty())
    return error(1, 0, "", "the header line is empty", "write the header line first");
  if (auto e = validateHeaderCells(columns)) return *e;
  auto planned = planner(std::move(columns));
  if (auto* e = std::get_if<TableError>(&planned)) return *e;
  return parseRows(text, split, std::move(std::get<Plan>(planned)));
}

}  // namespace

std::optional<Check> parseCheck(std::string_view cell) {
  std::string_view s = trimSpaces(cell);
  if (equalsIgnoreCase(s, "pass") || equalsIgnoreCase(s, "ok") || equalsIgnoreCase(s, "true") ||
      s == "\xE2\x9C\x93" /* ✓ */ || s == "\xE2\x9C\x94" /* ✔ */)
    return Check::Pass;
  if (equalsIgnoreCase(s, "fail") || equalsIgnoreCase(s, "false") || s == "\xE2\x9C\x97" /* ✗ */ ||
      s == "\xE2\x9C\x98" /* ✘ */)
    return Check::Fail;
  if (equalsIgnoreCase(s, "error") || equalsIgnoreCase(s, "err")) return Check::Error;
  return std::nullopt;
}

const char* toString(Check check) {
  switch (check) {
    case Check::Pass: return "PASS";
    case Check::Fail: return "FAIL";
    case Check::Error: return "ERROR";
  }
  return "ERROR";
}

const char* toString(SchemaKind kind) {
  switch (kind) {
    case SchemaKind::Gemm: return "gemm";
    case SchemaKind::MemoryBound: return "memory_bound";
    case SchemaKind::Custom: return "custom";
  }
  return "custom";
}

const std::vector<std::string>& gemmColumns() {
  static const std::vector<std::string> columns = {
      "label", "B", "M", "N", "K", "Check", "Forward TFLOPS", "Forward TFLOPS_stddev", "Backward TFLOPS",
      "Backward TFLOPS_stddev", "Forward Time (ms)", "Backward Time (ms)", "out_snr", "da_snr", "db_snr"};
  return columns;
}

const std::vector<std::string>& memoryBoundColumns() {
  static const std::vector<std::string> columns = {
      "label", "B", "M", "N", "Check", "Forward GB/s", "Forward GB/s_stddev", "Backward GB/s", "Backward GB/s_stddev",
      "Forward Time (ms)", "Backward Time (ms)", "max_abs_err"};
  return columns;
}

std::optional<std::size_t> Schema::indexOf(std::string_view column) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == column) return i;
  return std::nullopt;
}

std::optional<double> BenchTable::value(const BenchRow& row, std::string_view column) const {
  auto i = schema.indexOf(column);
  if (!i || *i >= row.values.size()) return std::nullopt;
  if (*i < schema.isText.size() && schema.isText[*i]) return std::nullopt;
  return row.values[*i];
}

std::optional<double> BenchTable::stddev(const BenchRow& row, std::string_view column) const {
  return value(row, std::string(column) + "_stddev");
}

std::optional<double> BenchTable::stddevPercent(const BenchRow& row, std::string_view column) const {
  // The turbo helper's companion columns: percent as written, or absolute converted by the mean.
  for (const char* suffix : {"_stddev_pct", "_std_pct"}) {
    auto pct = value(row, std::string(column) + suffix);
    if (pct && std::isfinite(*pct)) return pct;
  }
  auto mean = value(row, column);
  if (!mean || !std::isfinite(*mean) || *mean == 0.0) return std::nullopt;
  for (const char* suffix : {"_stddev", "_std"}) {
    auto sd = value(row, std::string(column) + suffix);
    if (sd && std::isfinite(*sd)) return 100.0 * *sd / std::fabs(*mean);
  }
  return std::nullopt;
}

const BenchRow* BenchTable::find(std::string_view label) const {
  for (const auto& row : rows)
    if (row.label == label) return &row;
  return nullptr;
}

std::vector<std::string> BenchTable::labels() const {
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row.label);
  return out;
}

bool BenchTable::allPass() const {
  return std::all_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.check == Check::Pass; });
}

std::string TableError::toString() const {
  std::string out;
  if (line) out += "line " + std::to_string(line);
  if (column) out += std::string(out.empty() ? "" : ", ") + "column " + std::to_string(column);
  if (!columnName.empty()) out += std::string(out.empty() ? "column " : " ") + quoteName(columnName);
  if (!out.empty()) out += ": ";
  out += message;
  if (!fix.empty()) out += ". Fix: " + fix;
  return out;
}

TableResult parseBenchCsv(std::string_view text) {
  return parseWithPlanner(text, [](std::vector<std::string> columns) -> std::variant<Plan, TableError> {
    if (columns == gemmColumns()) return planBuiltin(SchemaKind::Gemm, std::move(columns));
    if (columns == memoryBoundColumns()) return planBuiltin(SchemaKind::MemoryBound, std::move(columns));
    return planGeneric(std::move(columns));
  });
}

TableResult parseBenchCsv(std::string_view text, SchemaKind kind) {
  if (kind == SchemaKind::Custom) return parseBenchCsv(text);
  return parseWithPlanner(text, [kind](std::vector<std::string> columns) -> std::variant<Plan, TableError> {
    const auto& expected = kind == SchemaKind::Gemm ? gemmColumns() : memoryBoundColumns();
    if (columns != expected)
      return error(1, 0, "", std::string("the header is not the ") + toString(kind) +
                                 " schema: " + firstColumnDifference(expected, columns),
                   "write exactly: " + joinColumns(expected));
    return planBuiltin(kind, std::move(columns));
  });
}

TableResult parseBenchCsv(std::string_view text, const CustomSchema& custom) {
  return parseWithPlanner(text, [&custom](std::vector<std::string> columns) { return planCustom(custom, std::move(columns)); });
}

}  // namespace kopt::measure
