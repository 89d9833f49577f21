// The parse_bench_csv tool end to end on a 100,000-row file: read, parse, score, frozen-header and
// shape-set checks, and the JSON result an agent receives (serialised, as the transport would).
//   kopt_bench_parse_bench_csv_tool [rows=100000] [repetitions=5]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "bench_csv_generator.h"
#include "tools/parse_bench_csv_tool.h"

using namespace kopt;
using Clock = std::chrono::steady_clock;

// Thread CPU time next to wall time: the build machine is shared and often overloaded.
double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}
namespace fs = std::filesystem;

namespace {

class NullContext : public mcp::RequestContext {
 public:
  CancellationToken token;
  mcp::ClientInfo info;
  void progress(double, std::optional<double>, std::string) override {}
  void log(mcp::LogLevel, const std::string&, const mcp::json&) override {}
  const CancellationToken& cancellation() const override { return token; }
  const mcp::ClientInfo& client() const override { return info; }
  std::optional<mcp::json> requestClient(const std::string&, const mcp::json&, std::chrono::milliseconds,
                                         std::string*) override {
    return std::nullopt;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  fs::path dir = fs::temp_directory_path() / ("kopt_bench_csv_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string csv = bench::generateGemmCsv(rows);
  std::ofstream(dir / "bench.csv", std::ios::binary) << csv;
  mcp::json labels = mcp::json::array();
  for (std::size_t i = 0; i < rows; ++i) {
    char l[32];
    std::snprintf(l, sizeof l, "shape_%07zu", i);
    labels.push_back(l);
  }

  tools::ParseBenchCsvOptions options;
  options.workspaceRoot = dir;
  mcp::ToolSpec tool = tools::makeParseBenchCsvTool(options);
  const mcp::json args = {{"csv_path", "bench.csv"},
                          {"frozen_header", csv.substr(0, csv.find('\n') + 1)},
                          {"expected_shapes", labels}};
  NullContext ctx;
  std::vector<double> handler, handlerCpu, serialise;
  std::size_t bytes = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    const double c0 = cpuMs();
    mcp::ToolResult result = tool.handler(args, ctx);
    const double c1 = cpuMs();
    auto t1 = Clock::now();
    handlerCpu.push_back(c1 - c0);
    if (result.isError) {
      std::fprintf(stderr, "%s\n", result.content.at(0).dump().c_str());
      return 1;
    }
    bytes = result.structuredContent->dump().size();
    auto t2 = Clock::now();
    handler.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    serialise.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  std::sort(handler.begin(), handler.end());
  std::sort(handlerCpu.begin(), handlerCpu.end());
  std::sort(serialise.begin(), serialise.end());
  std::printf("rows=%zu file_bytes=%zu result_json_bytes=%zu\n", rows, csv.size(), bytes);
  std::printf("median of %d: handler (read+parse+score+frozen-header+shape-set checks+JSON of the first 1000 rows) "
              "%.1f ms CPU, %.1f ms wall; result serialisation %.1f ms wall\n",
              reps, handlerCpu[handlerCpu.size() / 2], handler[handler.size() / 2], serialise[serialise.size() / 2]);
  fs::remove_all(dir);
  return 0;
}
