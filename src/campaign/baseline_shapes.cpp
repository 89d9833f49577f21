#include "campaign/baseline_shapes.h"

#include <algorithm>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace kopt::campaign {

const measure::BenchTable* firstCandidateTable(const std::vector<PairRun>& runs) {
  for (const auto& p : runs) {
    if (p.candidate.table) return &*p.candidate.table;
  }
  return nullptr;
}

std::vector<std::string> baselineShapeSet(const std::vector<PairRun>& runs, const TargetShapes& wanted) {
  if (!wanted.all && !wanted.labels.empty()) return wanted.labels;
  const measure::BenchTable* table = firstCandidateTable(runs);
  return table ? table->labels() : std::vector<std::string>{};
}

std::vector<std::string> baselineProblems(const AssembledRuns& assembled, const std::vector<std::string>& labels) {
  std::vector<std::string> problems = assembled.problems;
  for (const auto& [label, check] : assembled.candidateChecks) {
    if (check != measure::Check::Pass) problems.push_back(label + " is " + measure::toString(check));
  }
  if (labels.empty()) problems.push_back("the benchmark reported no shapes");
  return problems;
}

namespace {

std::vector<std::string> spreadOverRange(const std::vector<std::string>& labels, const std::vector<ShapeRow>& rows) {
  const std::size_t k = 5;
  if (labels.size() <= k) return labels;
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& r : rows) ranked.emplace_back(r.candidate.value_or(0.0), r.label);
  std::sort(ranked.begin(), ranked.end());
  std::set<std::string> chosen;
  for (std::size_t i = 0; i < k; ++i) chosen.insert(ranked[i * (ranked.size() - 1) / (k - 1)].second);
  std::vector<std::string> out;
  for (const auto& l : labels) {
    if (chosen.count(l)) out.push_back(l);
  }
  return out;
}

}  // namespace

std::variant<std::vector<std::string>, std::string> representativeShapes(const std::vector<std::string>& named,
                                                                          const std::vector<std::string>& labels,
                                                                          const std::vector<ShapeRow>& rows) {
  for (const auto& r : named) {
    if (std::find(labels.begin(), labels.end(), r) == labels.end()) {
      return "representative shape '" + r + "' is not one of the benchmark's shapes: " + util::join(labels, ", ");
    }
  }
  if (!named.empty()) return named;
  return spreadOverRange(labels, rows);
}

std::string withQuickHarnessShapes(const std::string& harness, const measure::BenchTable& table) {
  const std::string empty = "\nSHAPES = []\n";
  if (harness.find(empty) == std::string::npos) return harness;
  auto dim = [](const std::optional<std::int64_t>& v) { return std::to_string(v.value_or(1)); };
  std::string list = "\nSHAPES = [";
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& row = table.rows[i];
    list += (i ? ", (" : "(") + nlohmann::json(row.label).dump() + ", " + dim(row.shape.B) + ", " + dim(row.shape.M) +
            ", " + dim(row.shape.N) + (row.shape.K ? ", " + dim(row.shape.K) : std::string()) + ")";
  }
  list += "]\n";
  return util::replaceAll(harness, empty, list);
}

}  // namespace kopt::campaign
