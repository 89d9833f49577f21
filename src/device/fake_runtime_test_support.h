#pragma once
// A scripted DeviceRuntime for the device-layer tests: answers with fixed devices and
// measurements and counts how often it was asked to measure.
#include "device/device_runtime.h"

namespace kopt::device::testing {

class FakeRuntime : public DeviceRuntime {
 public:
  DeviceSnapshot snap;
  Measurement copy;
  Measurement matmul;
  int copyCalls = 0;
  int matmulCalls = 0;

  DeviceSnapshot snapshot() override { return snap; }
  Measurement measureCopyGBps(int, const MeasureOptions&) override {
    ++copyCalls;
    return copy;
  }
  Measurement measureMatmulTflops(int, const MeasureOptions&) override {
    ++matmulCalls;
    return matmul;
  }

  static FakeRuntime withH200() {
    FakeRuntime fake;
    fake.snap.present = true;
    fake.snap.backend = "fake";
    DeviceInfo info;
    info.index = 0;
    info.vendor = Vendor::Nvidia;
    info.name = "NVIDIA H200";
    info.arch = "sm_90";
    info.computeUnits = 132;
    // The "141 GB" H200 as cuDeviceTotalMem reported it on the real device: 139.8 GiB.
    info.memoryBytes = 150'110'000'000ull;
    info.pciBusId = "0000:00:05.0";
    fake.snap.devices.push_back(info);
    fake.copy.value = 4300.0;
    fake.copy.method = "fake copy";
    fake.matmul.value = 780.0;
    fake.matmul.method = "fake matmul";
    return fake;
  }
  static FakeRuntime withoutGpu(std::string reason) {
    FakeRuntime fake;
    fake.snap.reason = std::move(reason);
    return fake;
  }
};

}  // namespace kopt::device::testing
