#include "measure/frozen_schema.h"

#include <doctest/doctest.h>

#include "measure/bench_table.h"

using namespace kopt::measure;

namespace {

std::string joined(const std::vector<std::string>& cols) {
  std::string out;
  for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  return out;
}

const std::string kFrozen = joined(gemmColumns()) + "\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("identical headers have no drift, also when passed as whole files") {
  CHECK(compareFrozenHeader(kFrozen, kFrozen).empty());
  CHECK(compareFrozenHeader(kFrozen, kFrozen + "s1,1,2,2,2,PASS,1,0,1,0,1,1,1,1,1\n").empty());
  CHECK(headerLineOf("a,b\nc,d\n") == "a,b\n");
  CHECK(headerLineOf("a,b") == "a,b");
  CHECK(describe({}).empty());
}

TEST_CASE("a trailing space in a column name is named exactly") {
  auto d = compareFrozenHeader(kFrozen, replaced(kFrozen, "Forward TFLOPS,", "Forward TFLOPS ,"));
  REQUIRE(d.size() == 1);
  CHECK((d[0].kind == HeaderDriftKind::ColumnRenamed));
  CHECK(d[0].column == 7);
  CHECK(d[0].message == "column 7 was 'Forward TFLOPS' and is now 'Forward TFLOPS ' (whitespace differs)");
}

TEST_CASE("a renamed column") {
  auto d = compareFrozenHeader(kFrozen, replaced(kFrozen, "out_snr", "snr_out"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "column 13 was 'out_snr' and is now 'snr_out'");
}

TEST_CASE("a BOM") {
  auto d = compareFrozenHeader(kFrozen, "\xEF\xBB\xBF" + kFrozen);
  REQUIRE(d.size() == 1);
  CHECK((d[0].kind == HeaderDriftKind::Bom));
  CHECK(d[0].message.find("file starts with a UTF-8 BOM") == 0);
  CHECK(compareFrozenHeader("\xEF\xBB\xBF" + kFrozen, kFrozen)[0].message.find("BOM") != std::string::npos);
}

TEST_CASE("CRLF line ends") {
  auto d = compareFrozenHeader(kFrozen, replaced(kFrozen, "\n", "\r\n"));
  REQUIRE(d.size() == 1);
  CHECK((d[0].kind == HeaderDriftKind::LineEnding));
  CHECK(d[0].message == "line ends are CRLF (frozen: LF)");
  // A header with no line end at all (a file holding only the header).
  CHECK(compareFrozenHeader(kFrozen, joined(gemmColumns()))[0].message == "line ends are no line end (frozen: LF)");
}

TEST_CASE("a trailing delimiter") {
  auto d = compareFrozenHeader(kFrozen, replaced(kFrozen, "\n", ",\n"));
  REQUIRE(d.size() == 1);
  CHECK((d[0].kind == HeaderDriftKind::TrailingDelimiter));
  CHECK(d[0].message == "the header ends with a trailing ','");
}

TEST_CASE("reordered columns") {
  auto d = compareFrozenHeader(kFrozen, replaced(kFrozen, "M,N", "N,M"));
  REQUIRE(d.size() == 2);
  CHECK((d[0].kind == HeaderDriftKind::ColumnsReordered));
  CHECK(d[0].message == "column 3 was 'M' and is now 'N'");
  CHECK(d[1].message == "column 4 was 'N' and is now 'M'");
}

TEST_CASE("added and removed columns are named, not reported as a cascade of renames") {
  auto removed = compareFrozenHeader(kFrozen, replaced(kFrozen, ",da_snr", ""));
  REQUIRE(removed.size() == 1);
  CHECK((removed[0].kind == HeaderDriftKind::ColumnCount));
  CHECK(removed[0].message == "the header has 14 columns, the frozen one 15; removed: 'da_snr'");
  auto added = compareFrozenHeader(kFrozen, replaced(kFrozen, "label,", "label,repeats,"));
  REQUIRE(added.size() == 1);
  CHECK(added[0].message == "the header has 16 columns, the frozen one 15; added: 'repeats'");
  auto addedAndMoved = compareFrozenHeader("a,b,c\n", "c,b,a,d\n");
  REQUIRE(addedAndMoved.size() == 2);
  CHECK((addedAndMoved[1].kind == HeaderDriftKind::ColumnsReordered));
}

TEST_CASE("several drifts at once are all listed") {
  std::string current = "\xEF\xBB\xBF" + replaced(replaced(kFrozen, "\n", "\r\n"), "K,", "k,");
  auto d = compareFrozenHeader(kFrozen, current);
  REQUIRE(d.size() == 3);
  CHECK(describe(d) == "file starts with a UTF-8 BOM (the frozen header has none); line ends are CRLF (frozen: LF); "
                       "column 5 was 'K' and is now 'k'");
}

TEST_CASE("quoting alone still counts as drift") {
  auto d = compareFrozenHeader("label,Check\n", "\"label\",Check\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("quoting") != std::string::npos);
}

TEST_CASE("shape set: missing, extra, duplicated, reordered") {
  std::vector<std::string> expected = {"a", "b", "c", "d"};
  CHECK(compareShapeSet(expected, expected).ok());
  CHECK(compareShapeSet(expected, expected).describe().empty());

  auto missing = compareShapeSet(expected, {"a", "b", "d"});
  CHECK(missing.missing == std::vector<std::string>{"c"});
  CHECK_FALSE(missing.reordered);
  CHECK(missing.describe() == "missing shapes: 'c'");

  auto extra = compareShapeSet(expected, {"a", "b", "c", "d", "e"});
  CHECK(extra.extra == std::vector<std::string>{"e"});

  auto dup = compareShapeSet(expected, {"a", "b", "b", "c", "d"});
  CHECK(dup.duplicated == std::vector<std::string>{"b"});
  CHECK_FALSE(dup.reordered);

  auto moved = compareShapeSet(expected, {"a", "c", "b", "d"});
  CHECK(moved.reordered);
  CHECK(moved.firstOutOfOrder == "c");
  CHECK(moved.describe() == "shapes reordered (first out of place: 'c')");

  auto all = compareShapeSet(expected, {"d", "x", "a"});
  CHECK(all.missing == std::vector<std::string>{"b", "c"});
  CHECK(all.extra == std::vector<std::string>{"x"});
  CHECK(all.reordered);
  CHECK_FALSE(all.ok());
}
