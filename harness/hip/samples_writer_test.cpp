#include "harness/hip/samples_writer.h"

#include <doctest/doctest.h>

using namespace kopt::hipbench;

TEST_CASE("the samples file: a header line, then one line per series") {
  SampleSeries fwd;
  fwd.label = "m8_n8_k8";
  fwd.timesMs = {0.5, 0.25};
  fwd.flops = 1024;
  fwd.stop = StopReason::Rsd;
  SampleSeries bwd = fwd;
  bwd.forward = false;
  bwd.flops.reset();
  bwd.bytes = 4096;
  bwd.stop = StopReason::TimeCap;
  const std::string text = samplesFileText("hip_gemm_bf16", "NVIDIA \"H200\"", 7, {fwd, bwd});
  CHECK(text ==
        "{\"kopt_samples\":1,\"harness\":\"hip_gemm_bf16\",\"device\":\"NVIDIA \\\"H200\\\"\",\"seed\":7}\n"
        "{\"label\":\"m8_n8_k8\",\"direction\":\"forward\",\"unit\":\"ms\",\"times\":[0.5,0.25],\"flops\":1024,"
        "\"bytes\":null,\"stop\":\"rsd\"}\n"
        "{\"label\":\"m8_n8_k8\",\"direction\":\"backward\",\"unit\":\"ms\",\"times\":[0.5,0.25],\"flops\":null,"
        "\"bytes\":4096,\"stop\":\"time_cap\"}\n");
}

TEST_CASE("control characters are escaped") {
  CHECK(jsonEscape("a\nb\tc\\d\x01") == "a\\nb\\tc\\\\d\\u0001");
}
