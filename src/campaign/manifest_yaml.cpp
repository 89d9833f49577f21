// Manifest -> YAML, every field in the contract's order, so parseManifest(toYaml(m)) gives m back
// and a human reading manifest.yaml sees what kopt will do (defaults included).
#include <yaml-cpp/yaml.h>

#include "campaign/manifest.h"

namespace kopt::campaign {

namespace {

void str(YAML::Emitter& e, const char* key, const std::string& v) {
  e << YAML::Key << key << YAML::Value;
  if (v.empty()) e << YAML::Null;
  else e << YAML::DoubleQuoted << v;
}

void list(YAML::Emitter& e, const char* key, const std::vector<std::string>& v) {
  e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& s : v) e << YAML::DoubleQuoted << s;
  e << YAML::EndSeq;
}

}  // namespace

std::string toYaml(const Manifest& m) {
  YAML::Emitter e;
  e.SetDoublePrecision(15);  // 0.05 stays "0.05", not 0.050000000000000003
  e << YAML::BeginMap;
  str(e, "target_op", m.targetOp);
  e << YAML::Key << "target_backend" << YAML::Value << toString(m.targetBackend);
  e << YAML::Key << "target_lang" << YAML::Value << YAML::DoubleQuoted << toString(m.targetLang);
  e << YAML::Key << "target_gpu" << YAML::Value << m.targetGpu;
  e << YAML::Key << "execution_mode" << YAML::Value << toString(m.executionMode);
  str(e, "project_skill", m.projectSkill);
  str(e, "performance_target", m.performanceTarget ? m.performanceTarget->text : "");
  str(e, "primary_metric", m.primaryMetric.column);
  if (m.targetShapes.all) {
    e << YAML::Key << "target_shapes" << YAML::Value << "all";
  } else {
    list(e, "target_shapes", m.targetShapes.labels);
  }
  list(e, "kernel_source", m.kernelSource);
  str(e, "test_command", m.testCommand.text);
  str(e, "benchmark_command", m.benchmarkCommand.text);
  str(e, "quick_command", m.quickCommand.text);
  str(e, "build_command", m.buildCommand.text);
  str(e, "profile_command", m.profileCommand.text);
  list(e, "representative_shapes", m.representativeShapes);
  e << YAML::Key << "git_commit" << YAML::Value << m.gitCommit;
  e << YAML::Key << "git_branch" << YAML::Value;
  switch (m.gitBranch.kind) {
    case GitBranch::Kind::Auto: e << "auto"; break;
    case GitBranch::Kind::None: e << "none"; break;
    case GitBranch::Kind::Named: e << YAML::DoubleQuoted << m.gitBranch.name; break;
  }
  str(e, "base_branch", m.baseBranch);
  e << YAML::Key << "max_iterations" << YAML::Value;
  if (m.maxIterations) e << *m.maxIterations;
  else e << YAML::Null;
  str(e, "max_duration", m.maxDuration ? m.maxDuration->text : "");
  str(e, "created", m.created);

  e << YAML::Key << "schema" << YAML::Value;
  if (m.schema.kind == SchemaKind::Custom) {
    e << YAML::BeginMap;
    e << YAML::Key << "kind" << YAML::Value << "custom";
    list(e, "columns", m.schema.columns);
    str(e, "check_column", m.schema.checkColumn);
    list(e, "metric_columns", m.schema.metricColumns);
    e << YAML::EndMap;
  } else {
    e << manifestName(m.schema.kind);
  }

  e << YAML::Key << "gate" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "regression_pct" << YAML::Value << m.gate.regressionPct;
  e << YAML::Key << "near_noise_pct" << YAML::Value << m.gate.nearNoisePct;
  e << YAML::Key << "near_noise_remeasures" << YAML::Value << m.gate.nearNoiseRemeasures;
  e << YAML::Key << "chain_drop_pct" << YAML::Value << m.gate.chainDropPct;
  e << YAML::Key << "pairs" << YAML::Value << m.gate.pairs;
  e << YAML::Key << "max_pairs" << YAML::Value << m.gate.maxPairs;
  e << YAML::Key << "family_alpha" << YAML::Value << m.gate.familyAlpha;
  e << YAML::Key << "margin_pct" << YAML::Value << m.gate.marginPct;
  e << YAML::Key << "target_mde_pct" << YAML::Value << m.gate.targetMdePct;
  e << YAML::Key << "max_looks" << YAML::Value << m.gate.maxLooks;
  e << YAML::Key << "aa_sessions" << YAML::Value << m.gate.aaSessions;
  e << YAML::EndMap;

  e << YAML::Key << "executor" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "kind" << YAML::Value << exec::toString(m.executor.kind);
  str(e, "partition", m.executor.partition);
  str(e, "gres", m.executor.gres);
  str(e, "time", m.executor.time);
  str(e, "account", m.executor.account);
  list(e, "extra_args", m.executor.extraArgs);
  if (m.executor.kind == ExecutorKind::Slurm) {
    e << YAML::Key << "mode" << YAML::Value << exec::toString(m.executor.mode);
  }
  list(e, "devices", m.executor.devices);
  e << YAML::EndMap;

  e << YAML::Key << "timeouts" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "build" << YAML::Value << m.timeouts.buildSeconds;
  e << YAML::Key << "test" << YAML::Value << m.timeouts.testSeconds;
  e << YAML::Key << "bench" << YAML::Value << m.timeouts.benchSeconds;
  e << YAML::Key << "hang" << YAML::Value << m.timeouts.hangSeconds;
  e << YAML::EndMap;

  e << YAML::Key << "bench" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "protocol" << YAML::Value << (m.bench.protocol == BenchProtocol::Worker ? "worker" : "csv");
  e << YAML::Key << "batch_ms" << YAML::Value << m.bench.batchMs;
  e << YAML::EndMap;

  str(e, "tips_root", m.tipsRoot);
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace kopt::campaign
