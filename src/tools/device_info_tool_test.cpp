#include "tools/device_info_tool.h"

#include <unistd.h>

#include <cstdlib>

#include <doctest/doctest.h>

#include "device/fake_runtime_test_support.h"
#include "mcp/schema_validation.h"

using namespace kopt;
using kopt::device::testing::FakeRuntime;
using mcp::json;
namespace fs = std::filesystem;

namespace {

class RecordingContext : public mcp::RequestContext {
 public:
  std::vector<std::pair<double, std::string>> progressCalls;
  CancellationToken token;
  mcp::ClientInfo info;
  void progress(double p, std::optional<double>, std::string message) override { progressCalls.emplace_back(p, message); }
  void log(mcp::LogLevel, const std::string&, const json&) override {}
  const CancellationToken& cancellation() const override { return token; }
  const mcp::ClientInfo& client() const override { return info; }
  std::optional<json> requestClient(const std::string&, const json&, std::chrono::milliseconds, std::string* error) override {
    if (error) *error = "not supported in tests";
    return std::nullopt;
  }
};

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("kopt_devtool_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  std::shared_ptr<FakeRuntime> fake = std::make_shared<FakeRuntime>(FakeRuntime::withH200());
  static inline int n = 0;
  Fixture() { fs::remove_all(dir); }
  ~Fixture() { fs::remove_all(dir); }

  mcp::ToolSpec tool() {
    tools::DeviceInfoToolOptions options;
    options.cacheFile = dir / "ceilings.json";
    auto shared = fake;
    // Each call gets a runtime that forwards to the shared fake, so the test can count calls.
    struct Forwarding : device::DeviceRuntime {
      std::shared_ptr<FakeRuntime> target;
      device::DeviceSnapshot snapshot() override { return target->snapshot(); }
      device::Measurement measureCopyGBps(int d, const device::MeasureOptions& o) override { return target->measureCopyGBps(d, o); }
      device::Measurement measureMatmulTflops(int d, const device::MeasureOptions& o) override { return target->measureMatmulTflops(d, o); }
    };
    options.makeRuntime = [shared] {
      auto r = std::make_unique<Forwarding>();
      r->target = shared;
      return r;
    };
    return tools::makeDeviceInfoTool(options);
  }
};

void checkConformsToOutputSchema(const mcp::ToolSpec& tool, const mcp::ToolResult& result) {
  REQUIRE(tool.outputSchema);
  REQUIRE(result.structuredContent);
  auto violation = mcp::validateAgainstSchema(*result.structuredContent, *tool.outputSchema);
  if (violation) FAIL("structuredContent violates outputSchema at '" << violation->path << "': " << violation->message);
}

}  // namespace

TEST_CASE("device_info declares a valid shape and a snake_case name") {
  auto tool = tools::makeDeviceInfoTool();
  CHECK(tool.name == "device_info");
  CHECK(tool.inputSchema["type"] == "object");
  CHECK(tool.inputSchema["additionalProperties"] == false);
  REQUIRE(tool.outputSchema);
  CHECK(tool.annotations.destructiveHint == false);
}

TEST_CASE("no GPU: present false with the reason, conforming to the output schema") {
  Fixture f;
  *f.fake = FakeRuntime::withoutGpu("no GPU found: CUDA driver library: not found (tried libcuda.so.1)");
  auto tool = f.tool();
  RecordingContext ctx;
  auto result = tool.handler(json::object(), ctx);
  CHECK_FALSE(result.isError);
  REQUIRE(result.structuredContent);
  const json& out = *result.structuredContent;
  CHECK(out["present"] == false);
  CHECK(out["reason"].get<std::string>().rfind("no GPU found: ", 0) == 0);
  CHECK(out["devices"].empty());
  checkConformsToOutputSchema(tool, result);
  // The text block mirrors the structured content for clients that only read text.
  REQUIRE_FALSE(result.content.empty());
  CHECK(result.content[0]["text"].get<std::string>().find("no GPU found") != std::string::npos);
}

TEST_CASE("the real system runtime with KOPT_DEVICE_BACKEND=none says no GPU") {
  setenv("KOPT_DEVICE_BACKEND", "none", 1);
  tools::DeviceInfoToolOptions options;
  options.cacheFile = fs::temp_directory_path() / ("kopt_devtool_none_" + std::to_string(::getpid())) / "c.json";
  auto tool = tools::makeDeviceInfoTool(options);
  RecordingContext ctx;
  auto result = tool.handler(json::object(), ctx);
  unsetenv("KOPT_DEVICE_BACKEND");
  REQUIRE(result.structuredContent);
  CHECK((*result.structuredContent)["reason"] == "no GPU found: disabled by KOPT_DEVICE_BACKEND=none");
  checkConformsToOutputSchema(tool, result);
}

TEST_CASE("a GPU: device facts and peak; measuring reports progress and caches") {
  Fixture f;
  auto tool = f.tool();
  RecordingContext ctx;
  auto plain = tool.handler(json::object(), ctx);
  REQUIRE(plain.structuredContent);
  const json& d = (*plain.structuredContent)["devices"][0];
  CHECK(d["name"] == "NVIDIA H200");
  CHECK(d["arch"] == "sm_90");
  CHECK(d["peak"]["product"] == "H200 SXM");
  CHECK(d["peak"]["matched_by"] == "name");
  CHECK(d["peak"]["hbm_gbps"].get<double>() == doctest::Approx(4800));  // not the H100's 3350
  CHECK(d["memory_bytes"].get<std::uint64_t>() == 150'110'000'000ull);
  CHECK(d["identified_as"] == "H200 SXM (by name \"NVIDIA H200\" and 139.8 GiB)");
  CHECK(d["ceilings_status"] == "not_measured");
  checkConformsToOutputSchema(tool, plain);
  CHECK(f.fake->copyCalls == 0);

  auto measured = tool.handler(json{{"measure_ceilings", true}}, ctx);
  REQUIRE(measured.structuredContent);
  CHECK((*measured.structuredContent)["devices"][0]["ceilings_status"] == "measured");
  CHECK((*measured.structuredContent)["devices"][0]["ceilings"]["copy_gbps"].get<double>() == doctest::Approx(4300));
  checkConformsToOutputSchema(tool, measured);
  REQUIRE(ctx.progressCalls.size() == 2);
  CHECK(ctx.progressCalls[0].first < ctx.progressCalls[1].first);

  auto cached = tool.handler(json{{"measure_ceilings", true}}, ctx);
  CHECK((*cached.structuredContent)["devices"][0]["ceilings_status"] == "cached");
  CHECK(f.fake->copyCalls == 1);
}

TEST_CASE("bad arguments name the field and the fix") {
  Fixture f;
  auto tool = f.tool();
  RecordingContext ctx;
  auto badDevice = tool.handler(json{{"device", 5}}, ctx);
  CHECK(badDevice.isError);
  CHECK(badDevice.content[0]["text"].get<std::string>().find("argument 'device'") != std::string::npos);
  CHECK(badDevice.content[0]["text"].get<std::string>().find("does not exist") != std::string::npos);

  auto refreshAlone = tool.handler(json{{"refresh", true}}, ctx);
  CHECK(refreshAlone.isError);
  CHECK(refreshAlone.content[0]["text"].get<std::string>().find("measure_ceilings") != std::string::npos);

  auto notBool = tool.handler(json{{"measure_ceilings", "yes"}}, ctx);
  CHECK(notBool.isError);
}

TEST_CASE("an sm_90 with 141 GB and a name the table lacks is named an H200, by its memory") {
  Fixture f;
  f.fake->snap.devices[0].name = "NVIDIA Graphics Device";
  auto tool = f.tool();
  RecordingContext ctx;
  auto result = tool.handler(json::object(), ctx);
  REQUIRE(result.structuredContent);
  const json& d = (*result.structuredContent)["devices"][0];
  CHECK(d["peak"]["product"] == "H200 SXM");
  CHECK(d["peak"]["matched_by"] == "memory");
  CHECK(d["identified_as"].get<std::string>().rfind("H200 SXM (by sm_90 and 139.8 GiB", 0) == 0);
  checkConformsToOutputSchema(tool, result);

  // An 80 GB sm_90 of the same unknown name is an H100.
  f.fake->snap.devices[0].memoryBytes = 85'520'000'000ull;  // 79.6 GiB
  auto h100 = tool.handler(json::object(), ctx);
  CHECK((*h100.structuredContent)["devices"][0]["peak"]["product"] == "H100 SXM");
  CHECK((*h100.structuredContent)["devices"][0]["peak"]["hbm_gbps"].get<double>() == doctest::Approx(3350));
}

TEST_CASE("device_info's schemas come from its described types, nullable objects with their members") {
  auto tool = tools::makeDeviceInfoTool();
  const json& input = tool.inputSchema["properties"];
  CHECK(input["device"]["minimum"] == 0);
  CHECK(input["measure_ceilings"]["default"] == false);
  CHECK(input["refresh"]["default"] == false);
  REQUIRE(tool.outputSchema);
  const json& item = (*tool.outputSchema)["properties"]["devices"]["items"];
  CHECK(item["required"] == json::array({"index", "vendor", "name", "arch", "compute_units", "memory_bytes", "peak",
                                         "ceilings", "ceilings_status"}));
  CHECK(item["properties"]["vendor"]["enum"] == json::array({"nvidia", "amd", "none"}));
  CHECK(item["properties"]["ceilings_status"]["enum"] ==
        json::array({"not_measured", "cached", "measured", "failed"}));
  const json& peak = item["properties"]["peak"]["anyOf"];
  REQUIRE(peak.size() == 2);
  CHECK(peak[0]["properties"]["matched_by"]["enum"] == json::array({"name", "memory", "arch"}));
  CHECK(peak[1] == json{{"type", "null"}});
  CHECK(item["properties"]["ceilings"]["anyOf"][0]["properties"].contains("copy_gbps"));
  CHECK((*tool.outputSchema)["properties"]["device_count"]["minimum"] == 0);
}

TEST_CASE("device_info's text names each device and its ceilings before the JSON") {
  Fixture f;
  auto tool = f.tool();
  RecordingContext ctx;
  auto result = tool.handler(json::object(), ctx);
  REQUIRE(result.content.size() == 2);
  const std::string text = result.content[0]["text"].get<std::string>();
  CHECK(text.rfind("1 device(s) via ", 0) == 0);
  CHECK(text.find("0: NVIDIA H200 (sm_90") != std::string::npos);
  CHECK(text.find("ceilings not_measured") != std::string::npos);
  CHECK(json::parse(result.content[1]["text"].get<std::string>()) == *result.structuredContent);
}
