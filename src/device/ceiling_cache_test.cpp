#include "device/ceiling_cache.h"

#include <unistd.h>

#include <fstream>

#include <doctest/doctest.h>

using namespace kopt::device;
namespace fs = std::filesystem;

namespace {
fs::path freshDir(const char* tag) {
  fs::path dir = fs::temp_directory_path() / (std::string("kopt_ceiling_") + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}
Ceilings sample() {
  Ceilings c;
  c.copyGBps = 4312.5;
  c.copyMethod = "copy";
  c.matmulBf16Tflops = 781.25;
  c.matmulMethod = "matmul";
  c.measuredAt = "2026-11-20T10:00:00Z";
  c.deviceName = "NVIDIA H200";
  return c;
}
}  // namespace

TEST_CASE("stored ceilings come back by machine key, in a new directory") {
  const fs::path dir = freshDir("roundtrip");
  CeilingCache cache(dir / "sub" / "ceilings.json");
  CHECK_FALSE(cache.find("host|bus|gpu"));
  std::string error;
  REQUIRE(cache.store("host|bus|gpu", sample(), &error));
  REQUIRE(cache.store("other|bus|gpu", Ceilings{}, &error));
  auto back = cache.find("host|bus|gpu");
  REQUIRE(back);
  CHECK(*back->copyGBps == doctest::Approx(4312.5));
  CHECK(*back->matmulBf16Tflops == doctest::Approx(781.25));
  CHECK(back->deviceName == "NVIDIA H200");
  auto other = cache.find("other|bus|gpu");
  REQUIRE(other);
  CHECK_FALSE(other->copyGBps);
  // No temporary files left behind.
  int files = 0;
  for (auto& entry : fs::directory_iterator(dir / "sub")) files += entry.is_regular_file();
  CHECK(files == 1);
  fs::remove_all(dir);
}

TEST_CASE("a corrupt cache is reported, treated as empty, and replaced on store") {
  const fs::path dir = freshDir("corrupt");
  fs::create_directories(dir);
  std::ofstream(dir / "ceilings.json") << "{not json";
  CeilingCache cache(dir / "ceilings.json");
  std::string error;
  CHECK_FALSE(cache.find("k", &error));
  CHECK(error.find("not a kopt ceilings cache") != std::string::npos);
  REQUIRE(cache.store("k", sample(), &error));
  CHECK(cache.find("k"));
  fs::remove_all(dir);
}

TEST_CASE("a record with a wrong type names the field") {
  std::string error;
  auto bad = ceilingsFromJson({{"copy_gbps", "fast"}}, &error);
  CHECK_FALSE(bad);
  CHECK(error.find("copy_gbps") != std::string::npos);
  CHECK_FALSE(ceilingsFromJson(nlohmann::json::array(), &error));
}

TEST_CASE("machine keys separate hosts and devices") {
  DeviceInfo a;
  a.name = "NVIDIA H200";
  a.pciBusId = "0000:00:05.0";
  DeviceInfo b = a;
  b.pciBusId = "0000:00:06.0";
  CHECK(machineKey(a, "h1") != machineKey(b, "h1"));
  CHECK(machineKey(a, "h1") != machineKey(a, "h2"));
  DeviceInfo noBus;
  noBus.index = 3;
  CHECK(machineKey(noBus, "h").find("device3") != std::string::npos);
}

TEST_CASE("the default cache path honours KOPT_CACHE_DIR") {
  const char* old = std::getenv("KOPT_CACHE_DIR");
  const std::string saved = old ? old : "";
  setenv("KOPT_CACHE_DIR", "/tmp/kopt-cache-test", 1);
  CHECK(defaultCeilingCachePath() == fs::path("/tmp/kopt-cache-test/ceilings.json"));
  if (old) setenv("KOPT_CACHE_DIR", saved.c_str(), 1); else unsetenv("KOPT_CACHE_DIR");
}

TEST_CASE("timestamps are UTC ISO-8601") {
  const std::string ts = utcTimestamp();
  CHECK(ts.size() == 20);
  CHECK(ts[4] == '-');
  CHECK(ts[10] == 'T');
  CHECK(ts.back() == 'Z');
}
