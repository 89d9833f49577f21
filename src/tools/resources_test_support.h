#pragma once
// A throwaway workspace with a campaign laid out as the engine writes it, for the resource tests.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace kopt::tools::testing {

struct TempWorkspace {
  std::filesystem::path root;
  TempWorkspace() {
    std::string templ = (std::filesystem::temp_directory_path() / "kopt-res-XXXXXX").string();
    root = std::filesystem::canonical(::mkdtemp(templ.data()));
  }
  ~TempWorkspace() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  static void write(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
  // <root>/<repo>/.kopt/campaigns/<name> with a manifest, state, trend, two rounds and artifacts.
  std::filesystem::path campaign(const std::string& name, const std::string& repo = "repo") const {
    auto dir = (repo.empty() ? root : root / repo) / ".kopt" / "campaigns" / name;
    write(dir / "manifest.yaml", "target_op: gemm\ntarget_backend: CPU\n");
    write(dir / "state.json", "{\"phase\": \"ANALYZE\", \"last_round\": 2}");
    write(dir / "logs" / "performance_trend.md", "| Round | Status |\n|---|---|\n| 1 | BASELINE |\n");
    write(dir / "rounds" / "round-1" / "summary.md", "# Round 1\nbaseline\n");
    write(dir / "rounds" / "round-1" / "decision.json", "{\"decision\": \"BASELINE\"}");
    write(dir / "rounds" / "round-1" / "artifacts" / "benchmark.csv", "label,Check\nM1,PASS\n");
    write(dir / "rounds" / "round-1" / "artifacts" / "runs" / "pair-1.csv", "label,Check\nM1,PASS\n");
    write(dir / "rounds" / "round-2" / "summary.md", "# Round 2\n");
    return dir;
  }
};

}  // namespace kopt::tools::testing
