#pragma once
// rounds/round-N/hypothesis.json and decision.json.
#include <filesystem>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "campaign/records/record_types.h"

namespace kopt::campaign::records {

// {statement, change, expected_effect: {metric, direction, size_pct}, rule11_bucket, files,
//  config_only, bottleneck, risk}
nlohmann::json toJson(const Hypothesis& h);
// Error names the field: "expected_effect.direction: 'up' is not one of increase, decrease".
std::variant<Hypothesis, std::string> hypothesisFromJson(const nlohmann::json& j);

nlohmann::json toJson(const ShapeResult& s);
nlohmann::json toJson(const Aggregate& a);
nlohmann::json toJson(const RollbackAnalysis& r);
nlohmann::json toJson(const TransferCheck& t);

// {round, status, reason, gate_verdict, flags, validation, aggregate, shapes: [...], commit,
//  lineage_head, attribution, next_direction, rollback_analysis?, transfer_check?}
nlohmann::json decisionJson(const RoundRecord& r);

void writeHypothesisJson(const std::filesystem::path& path, const Hypothesis& h, int round);
void writeDecisionJson(const std::filesystem::path& path, const RoundRecord& r);

}  // namespace kopt::campaign::records
