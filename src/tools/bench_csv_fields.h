#pragma once
// parse_bench_csv's arguments and result, described once (tools/field_visitor.h): its input
// schema, argument reader, output schema and structuredContent come from here.
#include "tools/bench_csv_report.h"
#include "tools/field_visitor.h"

namespace kopt::tools {

void describe(FieldVisitor& v, ParseBenchCsvRequest& q);
void describe(FieldVisitor& v, BenchShape& s);
void describe(FieldVisitor& v, BenchCsvRow& r);
void describe(FieldVisitor& v, measure::HeaderDrift& d);
void describe(FieldVisitor& v, HeaderCheck& c);
void describe(FieldVisitor& v, ShapeCheck& c);
void describe(FieldVisitor& v, BenchCsvReport& r);

}  // namespace kopt::tools
