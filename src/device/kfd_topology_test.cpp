#include "device/kfd_topology.h"

#include <unistd.h>

#include <fstream>

#include <doctest/doctest.h>

using namespace kopt::device;
namespace fs = std::filesystem;

TEST_CASE("gfx target versions become arch names") {
  CHECK(gfxArchFromTargetVersion(90402) == "gfx942");
  CHECK(gfxArchFromTargetVersion(90500) == "gfx950");
  CHECK(gfxArchFromTargetVersion(90010) == "gfx90a");
  CHECK(gfxArchFromTargetVersion(110000) == "gfx1100");
  CHECK(gfxArchFromTargetVersion(100300) == "gfx1030");
  CHECK(gfxArchFromTargetVersion(0) == "");
  CHECK(gfxArchFromTargetVersion(91700) == "");  // minor 17 has no hex digit
}

TEST_CASE("PCI bus ids become KFD location ids") {
  CHECK(kfdLocationIdFromPciBusId("0000:c1:00.0") == 0xc100);
  CHECK(kfdLocationIdFromPciBusId("0000:05:02.1") == ((5 << 8) | (2 << 3) | 1));
  CHECK_FALSE(kfdLocationIdFromPciBusId("not a bus id"));
}

TEST_CASE("properties text parses into numbers and skips junk") {
  auto props = parseKfdProperties("simd_count 1216\nsimd_per_cu 4\ngarbage\nname_without_value\n gfx_target_version 90402\n");
  CHECK(props.at("simd_count") == 1216);
  CHECK(props.at("gfx_target_version") == 90402);
  CHECK(props.count("garbage") == 0);
}

namespace {
void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}
}  // namespace

TEST_CASE("a topology tree yields the GPU nodes in order, skipping CPU nodes") {
  const fs::path root = fs::temp_directory_path() / ("kopt_kfd_test_" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "nodes/0/properties", "cpu_cores_count 96\nsimd_count 0\n");
  write(root / "nodes/2/properties",
        "simd_count 1216\nsimd_per_cu 4\ngfx_target_version 90402\nmax_engine_clk_fcompute 2100\nlocation_id 49408\n");
  write(root / "nodes/2/mem_banks/0/properties", "heap_type 1\nsize_in_bytes 206158430208\nwidth 8192\nmem_clk_max 1300\n");
  write(root / "nodes/10/properties", "simd_count 1024\nsimd_per_cu 4\ngfx_target_version 90500\n");
  auto nodes = readKfdGpuNodes(root);
  fs::remove_all(root);
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].arch == "gfx942");
  CHECK(nodes[0].computeUnits == 304);
  CHECK(nodes[0].engineClockMHz == 2100);
  CHECK(nodes[0].memoryBusBits == 8192);
  CHECK(nodes[0].memoryClockMHz == 1300);
  CHECK(nodes[0].locationId == 0xc100);
  CHECK(nodes[1].arch == "gfx950");  // node 10 sorts after node 2 numerically
  CHECK(nodes[1].computeUnits == 256);
  CHECK_FALSE(nodes[1].memoryBusBits);
}

TEST_CASE("a missing topology gives no nodes") {
  CHECK(readKfdGpuNodes("/nonexistent/kfd/topology").empty());
}
