#include "measure/frozen_schema.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "measure/csv_line.h"

namespace kopt::measure {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::string singleQuoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

enum class Ending { None, Lf, Crlf };

struct HeaderParts {
  bool bom = false;
  Ending ending = Ending::None;
  std::vector<std::string> cells;
};

HeaderParts partsOf(std::string_view line) {
  HeaderParts p;
  if (line.substr(0, kBom.size()) == kBom) {
    p.bom = true;
    line.remove_prefix(kBom.size());
  }
  if (!line.empty() && line.back() == '\n') {
    line.remove_suffix(1);
    p.ending = Ending::Lf;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
      p.ending = Ending::Crlf;
    }
  } else if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
    p.ending = Ending::Crlf;
  }
  std::vector<std::string_view> views;
  std::string scratch;
  if (!splitCsvLine(line, views, scratch, nullptr)) {
    // A broken quote: compare the raw comma-separated pieces; the byte difference is still named.
    views.clear();
    std::size_t start = 0;
    while (true) {
      std::size_t comma = line.find(',', start);
      views.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  p.cells.assign(views.begin(), views.end());
  return p;
}

const char* endingName(Ending e) {
  switch (e) {
    case Ending::None: return "no line end";
    case Ending::Lf: return "LF";
    case Ending::Crlf: return "CRLF";
  }
  return "LF";
}

std::string joinQuoted(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + singleQuoted(names[i]);
  return out;
}

}  // namespace

std::string_view headerLineOf(std::string_view fileText) {
  std::size_t nl = fileText.find('\n');
  return nl == std::string_view::npos ? fileText : fileText.substr(0, nl + 1);
}

std::vector<HeaderDrift> compareFrozenHeader(std::string_view frozen, std::string_view current) {
  std::vector<HeaderDrift> drifts;
  frozen = headerLineOf(frozen);
  current = headerLineOf(current);
  if (frozen == current) return drifts;

  HeaderParts was = partsOf(frozen);
  HeaderParts now = partsOf(current);
  if (was.bom != now.bom)
    drifts.push_back({HeaderDriftKind::Bom, 0,
                      now.bom ? "file starts with a UTF-8 BOM (the frozen header has none)"
                              : "the UTF-8 BOM of the frozen header is gone"});
  if (was.ending != now.ending)
    drifts.push_back({HeaderDriftKind::LineEnding, 0,
                      now.ending == Ending::Crlf
                          ? std::string("line ends are CRLF (frozen: ") + endingName(was.ending) + ")"
                          : std::string("line ends are ") + endingName(now.ending) + " (frozen: " +
                                endingName(was.ending) + ")"});

  std::vector<std::string>& a = was.cells;
  std::vector<std::string>& b = now.cells;
  // A trailing delimiter shows as one extra, empty last cell; name it and compare the rest.
  if (b.size() == a.size() + 1 && b.back().empty() && (a.empty() || !a.back().empty())) {
    drifts.push_back({HeaderDriftKind::TrailingDelimiter, b.size(), "the header ends with a trailing ','"});
    b.pop_back();
  } else if (a.size() == b.size() + 1 && a.back().empty()) {
    drifts.push_back({HeaderDriftKind::TrailingDelimiter, a.size(), "the frozen header's trailing ',' is gone"});
    a.pop_back();
  }

  if (a.size() != b.size()) {
    std::unordered_set<std::string> inA(a.begin(), a.end()), inB(b.begin(), b.end());
    std::vector<std::string> removed, added;
    for (const auto& c : a)
      if (!inB.count(c)) removed.push_back(c);
    for (const auto& c : b)
      if (!inA.count(c)) added.push_back(c);
    std::string msg = "the header has " + std::to_string(b.size()) + " columns, the frozen one " + std::to_string(a.size());
    if (!removed.empty()) msg += "; removed: " + joinQuoted(removed);
    if (!added.empty()) msg += "; added: " + joinQuoted(added);
    drifts.push_back({HeaderDriftKind::ColumnCount, 0, msg});
    // Order among the common columns still matters.
    std::vector<std::string> commonA, commonB;
    for (const auto& c : a)
      if (inB.count(c)) commonA.push_back(c);
    for (const auto& c : b)
      if (inA.count(c)) commonB.push_back(c);
    if (commonA != commonB)
      drifts.push_back({HeaderDriftKind::ColumnsReordered, 0, "the remaining columns are in another order"});
  } else {
    std::multiset<std::string> setA(a.begin(), a.end()), setB(b.begin(), b.end());
    bool reorder = setA == setB && a != b;
    std::size_t named = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      std::string msg = "column " + std::to_string(i + 1) + " was " + singleQuoted(a[i]) + " and is now " + singleQuoted(b[i]);
      if (!reorder && trimmed(a[i]) == trimmed(b[i])) msg += " (whitespace differs)";
      if (named++ < 8 || !reorder)
        drifts.push_back({reorder ? HeaderDriftKind::ColumnsReordered : HeaderDriftKind::ColumnRenamed, i + 1, msg});
    }
  }
  if (drifts.empty())  // same cells, same framing: the bytes differ only in quoting
    drifts.push_back({HeaderDriftKind::ColumnRenamed, 0,
                      "the header bytes differ from the frozen header (quoting): '" + std::string(current) + "'"});
  return drifts;
}

std::string describe(const std::vector<HeaderDrift>& drifts) {
  std::string out;
  for (std::size_t i = 0; i < drifts.size(); ++i) out += (i ? "; " : "") + drifts[i].message;
  return out;
}

std::string ShapeSetCheck::describe() const {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (!missing.empty()) add("missing shapes: " + joinQuoted(missing));
  if (!extra.empty()) add("extra shapes: " + joinQuoted(extra));
  if (!duplicated.empty()) add("shapes listed more than once: " + joinQuoted(duplicated));
  if (reordered) add("shapes reordered (first out of place: " + singleQuoted(firstOutOfOrder) + ")");
  return out;
}

ShapeSetCheck compareShapeSet(const std::vector<std::string>& expected, const std::vector<std::string>& actual) {
  ShapeSetCheck check;
  if (expected == actual) {
    // The usual answer; only a list with a repeated label needs the full pass below.
    std::vector<std::string_view> sorted(actual.begin(), actual.end());
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) return check;
  }
  std::unordered_set<std::string> inExpected(expected.begin(), expected.end());
  std::unordered_map<std::string, int> seen;
  for (const auto& label : actual) {
    if (++seen[label] == 2) check.duplicated.push_back(label);
    if (!inExpected.count(label) && seen[label] == 1) check.extra.push_back(label);
  }
  for (const auto& label : expected)
    if (!seen.count(label)) check.missing.push_back(label);
  // Order among the labels both lists share (first occurrence only).
  std::vector<std::string> a, b;
  std::unordered_set<std::string> taken;
  for (const auto& label : expected)
    if (seen.count(label)) a.push_back(label);
  for (const auto& label : actual)
    if (inExpected.count(label) && taken.insert(label).second) b.push_back(label);
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) {
      check.reordered = true;
      check.firstOutOfOrder = b[i];
      break;
    }
  }
  return check;
}

}  // namespace kopt::measure
