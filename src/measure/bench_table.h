#pragma once
// The frozen-schema benchmark table a harness writes with --summary-csv (loop-contract section 4,
// shared/spec formats). Parsed once at the edge into typed rows; nothing downstream touches CSV
// text again. The parser is lenient about a BOM and CRLF line ends (it records them in the Schema)
// so that frozen_schema.h can name them as drift instead of failing with an obscure column error.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kopt::measure {

// The correctness column. ERROR is what the full benchmark emits when the harness itself broke
// on a shape; the gate treats FAIL and ERROR alike (not PASS), reports keep them apart.
enum class Check { Pass, Fail, Error };

// The turbo helper's aliases, case-insensitive, surrounding spaces ignored:
// pass/ok/true/✓ -> Pass, fail/false/✗ -> Fail, error/err -> Error. Anything else: nullopt.
std::optional<Check> parseCheck(std::string_view cell);
const char* toString(Check check);  // "PASS" | "FAIL" | "ERROR"

enum class SchemaKind {
  Gemm,         // the 15 columns of loop-contract section 4, verbatim
  MemoryBound,  // label,B,M,N,Check,Forward GB/s,... (formats.md)
  Custom,       // declared in the manifest (CustomSchema)
};
const char* toString(SchemaKind kind);

// A manifest-declared schema for ops that are neither GEMM nor the memory-bound default.
struct CustomSchema {
  std::vector<std::string> columns;        // exact header, in order
  std::string labelColumn = "label";
  std::string checkColumn = "Check";       // the one correctness column (PASS/FAIL/ERROR)
  std::vector<std::string> shapeColumns;   // integer columns among B/M/N/K (others: numeric)
  std::vector<std::string> metricColumns;  // throughput metrics (higher is better)
  std::vector<std::string> textColumns;    // kept verbatim, not parsed as numbers (e.g. dtype)
};

// The columns in force and the exact bytes of the header line, as frozen at BASELINE.
struct Schema {
  SchemaKind kind = SchemaKind::Gemm;
  std::vector<std::string> columns;  // split header cells, verbatim (no trimming)
  std::string headerBytes;           // file bytes up to and including the first '\n' (BOM included)
  bool hasBom = false;
  bool crlf = false;                 // the header line ends with "\r\n"
  std::size_t labelIndex = 0;
  std::size_t checkIndex = 0;
  std::vector<std::string> metricColumns;  // throughput metrics of this kind, e.g. "Forward TFLOPS"
  std::vector<bool> isText;                // per column: label/check/text columns (not numeric)

  // Index of a column by exact name; nullopt when absent.
  std::optional<std::size_t> indexOf(std::string_view column) const;
};

// The canonical headers (no line terminator).
const std::vector<std::string>& gemmColumns();
const std::vector<std::string>& memoryBoundColumns();

// The shape part of a row. B is the group count of grouped ops (empty cell -> nullopt; scoring
// treats a missing B as 1).
struct ShapeDims {
  std::optional<std::int64_t> B, M, N, K;
};

struct BenchRow {
  std::string label;
  ShapeDims shape;
  Check check = Check::Fail;
  // One value per Schema::columns entry; NaN for text columns and for empty / "nan" cells,
  // +-inf kept (an SNR of inf means "exact"). Look values up through BenchTable::value.
  std::vector<double> values;
  // Per column: verbatim text for text columns, "" for the others; empty (size 0) when the schema
  // has no text column besides label and Check (the GEMM and memory-bound schemas).
  std::vector<std::string> text;
  std::size_t line = 0;           // 1-based line in the file
};

struct BenchTable {
  Schema schema;
  std::vector<BenchRow> rows;  // file order

  // The numeric value of `column` in row `row`; nullopt when the column is unknown or textual.
  std::optional<double> value(const BenchRow& row, std::string_view column) const;
  // `<column>_stddev` (absolute, in the metric's unit) when the schema has it.
  std::optional<double> stddev(const BenchRow& row, std::string_view column) const;
  // 100 * stddev / value; nullopt when either is missing or value is 0 / not finite.
  std::optional<double> stddevPercent(const BenchRow& row, std::string_view column) const;
  const BenchRow* find(std::string_view label) const;
  std::vector<std::string> labels() const;
  bool allPass() const;
};

// What went wrong, where, and what to do about it. line/column are 1-based; 0 means "not tied to
// one line/column" (e.g. an empty file).
struct TableError {
  std::size_t line = 0;
  std::size_t column = 0;
  std::string columnName;
  std::string message;
  std::string fix;
  std::string toString() const;  // "line 4, column 6 'Check': ... Fix: ..."
};

using TableResult = std::variant<BenchTable, TableError>;

// Detects the schema from the header: GEMM or memory-bound when the (BOM/CRLF-stripped) header
// matches one verbatim, otherwise a generic custom schema (needs `label` and `Check`; every other
// column numeric, `*TFLOPS`/`*GB/s` columns are metrics).
TableResult parseBenchCsv(std::string_view text);
// Parses against a declared schema kind; the header must match it column for column.
TableResult parseBenchCsv(std::string_view text, SchemaKind kind);
TableResult parseBenchCsv(std::string_view text, const CustomSchema& custom);

}  // namespace kopt::measure
