#pragma once
// What run_baseline decides from its A/A runs without touching the campaign: the shape set and
// the schema header every later run must match, whether the runs are clean enough to start from,
// which 3-5 shapes stand for the rest in quick looks, and the shape list a copied quick harness
// is taught. Pure functions, tested beside.
#include <string>
#include <variant>
#include <vector>

#include "campaign/engine_types.h"
#include "campaign/manifest.h"
#include "campaign/measurement.h"
#include "measure/bench_table.h"

namespace kopt::campaign {

// The first candidate run's table, or nullptr when no run wrote one.
const measure::BenchTable* firstCandidateTable(const std::vector<PairRun>& runs);

// The shape set every run must have: the manifest's target shapes, else the first table's.
std::vector<std::string> baselineShapeSet(const std::vector<PairRun>& runs, const TargetShapes& wanted);

// Why the A/A runs cannot be a baseline (failed or drifting runs, a shape not PASS, no shape at
// all); empty when they can.
std::vector<std::string> baselineProblems(const AssembledRuns& assembled, const std::vector<std::string>& labels);

// 3-5 shapes for quick looks: the manifest's when it names them (each must be a benchmark shape,
// else the error), otherwise all shapes when there are at most five, else five spread over the
// metric's range (slowest, fastest, evenly spaced ranks between).
std::variant<std::vector<std::string>, std::string> representativeShapes(const std::vector<std::string>& named,
                                                                          const std::vector<std::string>& labels,
                                                                          const std::vector<ShapeRow>& rows);

// The quick harness template's one `SHAPES = []` line filled with the table's shapes
// (label, B, M, N[, K]); the text unchanged when it has no such line.
std::string withQuickHarnessShapes(const std::string& harness, const measure::BenchTable& table);

}  // namespace kopt::campaign
