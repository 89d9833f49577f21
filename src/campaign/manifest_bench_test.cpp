// The manifest's `bench:` block: which protocol the bench command speaks, and its batch size.
#include <doctest/doctest.h>

#include <string>

#include "campaign/manifest.h"

using namespace kopt::campaign;

namespace {

const std::string kBase = R"(target_op: gemm_fp32
target_backend: CPU
target_gpu: cpu
primary_metric: Combined Step TFLOPS
kernel_source: gemm.cpp
test_command: sh test.sh
benchmark_command: ./bench
quick_command: ./bench
created: "2026-12-01 09:00"
)";

std::vector<std::string> errorFields(const std::string& yaml) {
  auto r = parseManifest(yaml);
  std::vector<std::string> out;
  if (auto* errs = std::get_if<std::vector<FieldError>>(&r)) {
    for (const auto& e : *errs) out.push_back(e.field);
  }
  return out;
}

}  // namespace

TEST_CASE("bench: csv by default; worker with a batch size round-trips through toYaml") {
  auto plain = parseManifest(kBase);
  REQUIRE(std::holds_alternative<Manifest>(plain));
  CHECK((std::get<Manifest>(plain).bench.protocol == BenchProtocol::Csv));
  auto r = parseManifest(kBase + "bench:\n  protocol: worker\n  batch_ms: 20\n");
  REQUIRE(std::holds_alternative<Manifest>(r));
  const Manifest m = std::get<Manifest>(r);
  CHECK((m.bench.protocol == BenchProtocol::Worker));
  CHECK(m.bench.batchMs == 20.0);
  auto again = parseManifest(toYaml(m));
  REQUIRE(std::holds_alternative<Manifest>(again));
  CHECK((std::get<Manifest>(again).bench.protocol == BenchProtocol::Worker));
  CHECK(std::get<Manifest>(again).bench.batchMs == 20.0);
}

TEST_CASE("bench: a wrong protocol, batch size or key is refused by its field") {
  CHECK(errorFields(kBase + "bench:\n  protocol: pipes\n") == std::vector<std::string>{"bench.protocol"});
  CHECK(errorFields(kBase + "bench:\n  protocol: worker\n  batch_ms: 0.1\n") == std::vector<std::string>{"bench.batch_ms"});
  CHECK(errorFields(kBase + "bench:\n  batch_ms: 5ms\n") == std::vector<std::string>{"bench.batch_ms"});
  CHECK(errorFields(kBase + "bench:\n  blocks: 8\n") == std::vector<std::string>{"bench.blocks"});
  CHECK(errorFields(kBase + "bench: worker\n") == std::vector<std::string>{"bench"});
}

TEST_CASE("bench: the worker protocol needs the local executor, one device and a time-based metric") {
  CHECK(errorFields(kBase + "bench: {protocol: worker}\nexecutor: {kind: slurm, partition: gpu}\n") ==
        std::vector<std::string>{"bench.protocol"});
  CHECK(errorFields(kBase + "bench: {protocol: worker}\nexecutor: {devices: ['0', '1']}\n") ==
        std::vector<std::string>{"bench.protocol"});
  // The same settings with the csv protocol are fine.
  CHECK(errorFields(kBase + "executor: {devices: ['0', '1']}\n").empty());
}
