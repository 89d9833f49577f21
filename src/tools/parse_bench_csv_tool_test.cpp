#include "tools/parse_bench_csv_tool.h"

#include <unistd.h>

#include <fstream>

#include <doctest/doctest.h>

#include "mcp/schema_validation.h"

using namespace kopt;
using mcp::json;
namespace fs = std::filesystem;

namespace {

class NullContext : public mcp::RequestContext {
 public:
  CancellationToken token;
  mcp::ClientInfo info;
  void progress(double, std::optional<double>, std::string) override {}
  void log(mcp::LogLevel, const std::string&, const json&) override {}
  const CancellationToken& cancellation() const override { return token; }
  const mcp::ClientInfo& client() const override { return info; }
  std::optional<json> requestClient(const std::string&, const json&, std::chrono::milliseconds, std::string* error) override {
    if (error) *error = "not supported in tests";
    return std::nullopt;
  }
};

const std::string kHeader =
    "label,B,M,N,K,Check,Forward TFLOPS,Forward TFLOPS_stddev,Backward TFLOPS,Backward TFLOPS_stddev,"
    "Forward Time (ms),Backward Time (ms),out_snr,da_snr,db_snr\n";

struct Workspace {
  static inline int n = 0;
  fs::path root = fs::temp_directory_path() / ("kopt_parsecsv_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  Workspace() {
    fs::remove_all(root);
    fs::create_directories(root / "camp" / "rounds");
  }
  ~Workspace() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root / rel, std::ios::binary) << text;
  }
  mcp::ToolSpec tool(bool withCampaign = false) {
    tools::ParseBenchCsvOptions o;
    o.workspaceRoot = root;
    if (withCampaign) {
      fs::path dir = root / "camp";
      o.findCampaign = [dir](const std::string& name) -> std::optional<tools::CampaignSchemaInfo> {
        if (name != "camp") return std::nullopt;
        return tools::CampaignSchemaInfo{kHeader, {"a", "b"}, "Combined Step TFLOPS", dir};
      };
    }
    return tools::makeParseBenchCsvTool(o);
  }
};

mcp::ToolResult call(const mcp::ToolSpec& tool, const json& args) {
  NullContext ctx;
  auto violation = mcp::validateAgainstSchema(args, tool.inputSchema);
  if (violation) FAIL("test arguments violate the input schema: " << violation->message);
  mcp::ToolResult r = tool.handler(args, ctx);
  if (!r.isError) {
    REQUIRE(r.structuredContent);
    auto v = mcp::validateAgainstSchema(*r.structuredContent, *tool.outputSchema);
    if (v) FAIL("result violates the output schema at '" << v->path << "': " << v->message);
  }
  return r;
}

std::string text(const mcp::ToolResult& r) { return r.content.at(0).at("text").get<std::string>(); }

const std::string kRows =
    "a,1,4096,4096,4096,PASS,320,3.2,160,1.6,0.429496,1.718,inf,40,40\n"
    "b,1,4096,4096,4096,FAIL,nan,nan,nan,nan,nan,nan,nan,nan,nan\n";

}  // namespace

TEST_CASE("parse_bench_csv: turbo's fields plus kopt's checks") {
  Workspace w;
  w.write("bench.csv", kHeader + kRows);
  mcp::ToolSpec tool = w.tool();
  CHECK(tool.name == "parse_bench_csv");
  CHECK(tool.annotations.readOnlyHint == true);
  auto r = call(tool, {{"csv_path", "bench.csv"}, {"primary_metric", "Forward TFLOPS, Backward TFLOPS"}});
  REQUIRE_FALSE(r.isError);
  const json& out = *r.structuredContent;
  CHECK(out["schema_kind"] == "gemm");
  CHECK(out["primary_metric"] == json::array({"Forward TFLOPS", "Backward TFLOPS"}));
  CHECK(out["all_pass"] == false);
  CHECK(out["pass_count"] == 1);
  CHECK(out["aggregate"]["Forward TFLOPS"].get<double>() == doctest::Approx(320.0));
  CHECK(out["aggregate"]["Backward TFLOPS"].get<double>() == doctest::Approx(160.0));
  const json& a = out["rows"][0];
  CHECK(a["label"] == "a");
  CHECK(a["shape"] == json{{"label", "a"}, {"B", 1}, {"M", 4096}, {"N", 4096}, {"K", 4096}});
  CHECK(a["check"] == "PASS");
  CHECK(a["metrics"]["Forward TFLOPS"] == 320.0);
  CHECK(a["metrics"]["out_snr"] == "inf");
  CHECK(a["metrics_stddev_pct"]["Forward TFLOPS"].get<double>() == doctest::Approx(1.0));
  CHECK(a["repeats"] == 1);
  const json& b = out["rows"][1];
  CHECK(b["metrics"]["Forward TFLOPS"].is_null());
  CHECK(b["counts_as_pass"] == false);
  CHECK(out["schema_check"]["checked"] == false);
  CHECK(out["shape_check"]["checked"] == false);
  CHECK(out["note"].get<std::string>().find("informational") == 0);
  CHECK(out["rows_omitted"] == 0);

  // A long table: rows are capped, the summary still covers every row.
  auto capped = call(tool, {{"csv_path", "bench.csv"}, {"primary_metric", "Forward TFLOPS"}, {"max_rows", 1}});
  REQUIRE_FALSE(capped.isError);
  CHECK((*capped.structuredContent)["rows"].size() == 1);
  CHECK((*capped.structuredContent)["rows_omitted"] == 1);
  CHECK((*capped.structuredContent)["all_pass"] == false);  // the FAIL row is the omitted one
  CHECK((*capped.structuredContent)["pass_count"] == 1);
}

TEST_CASE("parse_bench_csv: the default metric of a GEMM table is the combined step") {
  Workspace w;
  w.write("bench.csv", kHeader + kRows);
  auto r = call(w.tool(), {{"csv_path", w.root.string() + "/bench.csv"}});
  REQUIRE_FALSE(r.isError);
  const json& out = *r.structuredContent;
  CHECK(out["primary_metric"] == json::array({"Combined Step TFLOPS"}));
  CHECK(out["rows"][0]["metrics"]["Combined Step TFLOPS"].get<double>() == doctest::Approx(192.0).epsilon(1e-3));
}

TEST_CASE("parse_bench_csv: frozen header and shape set checks name the drift") {
  Workspace w;
  std::string drifted = kHeader;
  drifted.replace(drifted.find("Forward TFLOPS,"), 15, "Forward TFLOPS ,");
  w.write("bench.csv", drifted + "b,1,1,1,1,PASS,1,0,1,0,1,1,1,1,1\nc,1,1,1,1,PASS,1,0,1,0,1,1,1,1,1\n");
  auto r = call(w.tool(), {{"csv_path", "bench.csv"},
                           {"primary_metric", "Backward TFLOPS"},
                           {"frozen_header", kHeader},
                           {"expected_shapes", {"a", "b"}}});
  REQUIRE_FALSE(r.isError);
  const json& sc = (*r.structuredContent)["schema_check"];
  CHECK(sc["checked"] == true);
  CHECK(sc["ok"] == false);
  CHECK(sc["source"] == "argument");
  CHECK(sc["drifts"][0]["kind"] == "column_renamed");
  CHECK(sc["message"] == "column 7 was 'Forward TFLOPS' and is now 'Forward TFLOPS ' (whitespace differs)");
  const json& sh = (*r.structuredContent)["shape_check"];
  CHECK(sh["ok"] == false);
  CHECK(sh["missing"] == json::array({"a"}));
  CHECK(sh["extra"] == json::array({"c"}));
}

TEST_CASE("parse_bench_csv: a campaign supplies header, shapes, metric and the base directory") {
  Workspace w;
  w.write("camp/rounds/bench.csv", kHeader + kRows);
  auto r = call(w.tool(true), {{"csv_path", "rounds/bench.csv"}, {"campaign", "camp"}});
  REQUIRE_FALSE(r.isError);
  const json& out = *r.structuredContent;
  CHECK(out["schema_check"]["ok"] == true);
  CHECK(out["schema_check"]["source"] == "campaign");
  CHECK(out["shape_check"]["ok"] == true);
  CHECK(out["primary_metric"] == json::array({"Combined Step TFLOPS"}));
  CHECK(call(w.tool(true), {{"csv_path", "x.csv"}, {"campaign", "nope"}}).isError);
  auto noCampaigns = call(w.tool(false), {{"csv_path", "x.csv"}, {"campaign", "camp"}});
  CHECK(noCampaigns.isError);
  CHECK(text(noCampaigns).find("argument 'campaign'") == 0);
}

TEST_CASE("parse_bench_csv: bad input is an error naming the argument and the fix") {
  Workspace w;
  w.write("bad.csv", kHeader + "a,1,2,2,2,MAYBE,1,0,1,0,1,1,1,1,1\n");
  w.write("ok.csv", kHeader + kRows);
  mcp::ToolSpec tool = w.tool();
  auto missing = call(tool, {{"csv_path", "nope.csv"}});
  CHECK(missing.isError);
  CHECK(text(missing).find("argument 'csv_path': no such file") == 0);
  auto bad = call(tool, {{"csv_path", "bad.csv"}});
  CHECK(bad.isError);
  CHECK(text(bad).find("'MAYBE' is not a check value") != std::string::npos);
  CHECK(text(bad).find("fix: write PASS, FAIL or ERROR") != std::string::npos);
  auto metric = call(tool, {{"csv_path", "ok.csv"}, {"primary_metric", "Forward GB/s"}});
  CHECK(metric.isError);
  CHECK(text(metric).find("argument 'primary_metric'") == 0);
  auto unknown = call(tool, {{"csv_path", "ok.csv"}, {"primary_metric", "speed"}});
  CHECK(unknown.isError);
  auto outside = call(tool, {{"csv_path", "../../etc/passwd"}});
  CHECK(outside.isError);
  CHECK(text(outside).find("outside the workspace") != std::string::npos);
  NullContext ctx;
  CHECK(tool.handler(json::object(), ctx).isError);
}

TEST_CASE("parse_bench_csv: the text says what the table holds before the JSON") {
  Workspace w;
  w.write("bench.csv", kHeader + kRows);
  auto r = call(w.tool(), {{"csv_path", "bench.csv"}, {"primary_metric", "Forward TFLOPS"}, {"max_rows", 1}});
  REQUIRE_FALSE(r.isError);
  REQUIRE(r.content.size() == 2);
  const std::string summary = text(r);
  CHECK(summary.find("2 rows, 1 counting as PASS.") != std::string::npos);
  CHECK(summary.find("Forward TFLOPS: geomean 320") != std::string::npos);
  CHECK(summary.find("1 rows left out") != std::string::npos);
  CHECK(json::parse(r.content[1].at("text").get<std::string>()) == *r.structuredContent);
}

TEST_CASE("parse_bench_csv: a missing or empty path and an empty campaign name the argument") {
  Workspace w;
  mcp::ToolSpec tool = w.tool(true);
  NullContext ctx;
  auto missing = tool.handler(json::object(), ctx);
  CHECK(missing.isError);
  CHECK(text(missing).find("argument 'csv_path'") == 0);
  CHECK(text(missing).find("fix: ") != std::string::npos);
  auto empty = tool.handler(json{{"csv_path", ""}}, ctx);
  CHECK(text(empty).find("argument 'csv_path'") == 0);
  auto emptyCampaign = tool.handler(json{{"csv_path", "x.csv"}, {"campaign", ""}}, ctx);
  CHECK(text(emptyCampaign).find("argument 'campaign'") == 0);
  CHECK(tool.inputSchema["properties"]["csv_path"]["minLength"] == 1);
  CHECK(tool.inputSchema["properties"]["max_rows"]["default"] == 1000);
}

TEST_CASE("parse_bench_csv: a campaign's relative path falls back to the workspace; a shape omits what it lacks") {
  Workspace w;
  const std::string memoryHeader = "label,B,M,N,Check,Forward GB/s\n";
  w.write("mem.csv", memoryHeader + "m1,1,1024,1024,PASS,900\n");
  auto r = call(w.tool(true), {{"csv_path", "mem.csv"}, {"campaign", "camp"}, {"primary_metric", "Forward GB/s"}});
  REQUIRE_FALSE(r.isError);
  const json& out = *r.structuredContent;
  CHECK(out["path"] == (w.root / "mem.csv").string());
  CHECK(out["rows"][0]["shape"] == json{{"label", "m1"}, {"B", 1}, {"M", 1024}, {"N", 1024}});
  CHECK(out["schema_check"]["ok"] == false);  // the campaign's frozen header is the GEMM one
  CHECK(out["shape_check"]["missing"] == json::array({"a", "b"}));
}
