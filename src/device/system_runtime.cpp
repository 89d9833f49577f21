// The runtime kopt uses by default: asks each vendor backend in turn and keeps the first that sees
// a device. Measurements go to the backend that answered the snapshot.
#include <cstdlib>
#include <string>

#include "device/device_runtime.h"

namespace kopt::device {

namespace {

class CompositeRuntime final : public DeviceRuntime {
 public:
  explicit CompositeRuntime(std::vector<std::unique_ptr<DeviceRuntime>> backends, std::string noneReason = {})
      : backends_(std::move(backends)), noneReason_(std::move(noneReason)) {}

  DeviceSnapshot snapshot() override {
    std::string reasons = noneReason_;
    for (auto& backend : backends_) {
      DeviceSnapshot snap = backend->snapshot();
      if (snap.present) {
        chosen_ = backend.get();
        return snap;
      }
      if (!reasons.empty()) reasons += "; ";
      reasons += snap.reason.empty() ? "a backend gave no reason" : snap.reason;
    }
    DeviceSnapshot none;
    none.reason = "no GPU found: " + (reasons.empty() ? std::string("no backend available") : reasons);
    return none;
  }

  Measurement measureCopyGBps(int device, const MeasureOptions& options) override {
    if (DeviceRuntime* backend = chosen()) return backend->measureCopyGBps(device, options);
    return noDevice();
  }

  Measurement measureMatmulTflops(int device, const MeasureOptions& options) override {
    if (DeviceRuntime* backend = chosen()) return backend->measureMatmulTflops(device, options);
    return noDevice();
  }

 private:
  DeviceRuntime* chosen() {
    if (!chosen_) snapshot();
    return chosen_;
  }
  static Measurement noDevice() {
    Measurement m;
    m.error = "no GPU found";
    return m;
  }

  std::vector<std::unique_ptr<DeviceRuntime>> backends_;
  std::string noneReason_;
  DeviceRuntime* chosen_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceRuntime> makeCompositeRuntime(std::vector<std::unique_ptr<DeviceRuntime>> backends) {
  return std::make_unique<CompositeRuntime>(std::move(backends));
}

std::unique_ptr<DeviceRuntime> makeSystemRuntime() {
  const char* env = std::getenv("KOPT_DEVICE_BACKEND");
  const std::string choice = env ? env : "auto";
  std::vector<std::unique_ptr<DeviceRuntime>> backends;
  if (choice == "none") {
    return std::make_unique<CompositeRuntime>(std::move(backends), "disabled by KOPT_DEVICE_BACKEND=none");
  }
  if (choice == "hip") {
    backends.push_back(makeHipRuntime());
  } else if (choice == "cuda") {
    backends.push_back(makeCudaDriverRuntime());
  } else if (choice == "auto" || choice.empty()) {
    backends.push_back(makeHipRuntime());
    backends.push_back(makeCudaDriverRuntime());
  } else {
    return std::make_unique<CompositeRuntime>(
        std::move(backends), "KOPT_DEVICE_BACKEND='" + choice + "' is not one of auto, hip, cuda, none");
  }
  return makeCompositeRuntime(std::move(backends));
}

}  // namespace kopt::device
