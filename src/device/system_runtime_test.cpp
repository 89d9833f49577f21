#include <cstdlib>

#include <doctest/doctest.h>

#include "device/device_runtime.h"
#include "device/fake_runtime_test_support.h"

using namespace kopt::device;
using kopt::device::testing::FakeRuntime;

namespace {
struct EnvGuard {
  std::string name;
  std::optional<std::string> old;
  EnvGuard(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    if (value) setenv(name.c_str(), value, 1); else unsetenv(name.c_str());
  }
  ~EnvGuard() {
    if (old) setenv(name.c_str(), old->c_str(), 1); else unsetenv(name.c_str());
  }
};
}  // namespace

TEST_CASE("the composite runtime joins every backend's reason") {
  std::vector<std::unique_ptr<DeviceRuntime>> backends;
  backends.push_back(std::make_unique<FakeRuntime>(FakeRuntime::withoutGpu("HIP runtime library not loadable (x)")));
  backends.push_back(std::make_unique<FakeRuntime>(FakeRuntime::withoutGpu("CUDA driver library not loadable (y)")));
  auto runtime = makeCompositeRuntime(std::move(backends));
  auto snap = runtime->snapshot();
  CHECK_FALSE(snap.present);
  CHECK(snap.reason == "no GPU found: HIP runtime library not loadable (x); CUDA driver library not loadable (y)");
  CHECK(runtime->measureCopyGBps(0, {}).error == "no GPU found");
}

TEST_CASE("the composite runtime measures with the backend that saw the device") {
  std::vector<std::unique_ptr<DeviceRuntime>> backends;
  backends.push_back(std::make_unique<FakeRuntime>(FakeRuntime::withoutGpu("no hip")));
  auto nvidia = std::make_unique<FakeRuntime>(FakeRuntime::withH200());
  FakeRuntime* nvidiaRaw = nvidia.get();
  backends.push_back(std::move(nvidia));
  auto runtime = makeCompositeRuntime(std::move(backends));
  CHECK(runtime->snapshot().present);
  auto copy = runtime->measureCopyGBps(0, {});
  REQUIRE(copy.value);
  CHECK(*copy.value == doctest::Approx(4300.0));
  CHECK(nvidiaRaw->copyCalls == 1);
}

TEST_CASE("KOPT_DEVICE_BACKEND=none reports no GPU without touching a runtime") {
  EnvGuard env("KOPT_DEVICE_BACKEND", "none");
  auto snap = makeSystemRuntime()->snapshot();
  CHECK_FALSE(snap.present);
  CHECK(snap.reason == "no GPU found: disabled by KOPT_DEVICE_BACKEND=none");
}

TEST_CASE("an unknown KOPT_DEVICE_BACKEND is named in the reason") {
  EnvGuard env("KOPT_DEVICE_BACKEND", "opencl");
  auto snap = makeSystemRuntime()->snapshot();
  CHECK_FALSE(snap.present);
  CHECK(snap.reason.find("'opencl' is not one of auto, hip, cuda, none") != std::string::npos);
}

TEST_CASE("the real system runtime answers consistently on any machine") {
  EnvGuard env("KOPT_DEVICE_BACKEND", nullptr);
  auto snap = makeSystemRuntime()->snapshot();
  if (snap.present) {
    CHECK_FALSE(snap.devices.empty());
    for (const auto& d : snap.devices) CHECK(d.vendor != Vendor::None);
  } else {
    MESSAGE("no GPU here: " << snap.reason);
    CHECK(snap.devices.empty());
    CHECK(snap.reason.rfind("no GPU found: ", 0) == 0);
    // Both backends were asked and each said why.
    CHECK(snap.reason.find("HIP") != std::string::npos);
    CHECK(snap.reason.find("CUDA") != std::string::npos);
  }
}
