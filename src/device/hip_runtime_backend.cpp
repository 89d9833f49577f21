// AMD backend: the HIP runtime (libamdhip64) and hipBLAS, loaded at run time, with the chip's
// facts (arch, compute units, clocks, bus width) read from the KFD topology (kfd_topology.h).
// Only functions whose signatures have not changed across ROCm 5-7 are called.
// Not yet exercised on AMD hardware by this project: the first run on an MI300X/MI355X must be
// recorded in docs/gpu-validation.md before its numbers are trusted.
#include <cstdlib>
#include <string>
#include <vector>

#include "device/device_runtime.h"
#include "device/kfd_topology.h"
#include "device/shared_library.h"
#include "device/timing_math.h"

namespace kopt::device {

namespace {

using hipError_t = int;
using hipEvent_t = void*;
using hipStream_t = void*;
constexpr hipError_t kHipSuccess = 0;
constexpr int kHipMemcpyHostToDevice = 1;
constexpr int kHipMemcpyDeviceToDevice = 3;

using hipblasHandle_t = void*;
constexpr int kHipblasSuccess = 0;
constexpr int kHipblasOpN = 111;
constexpr int kHipblasOpT = 112;
constexpr int kHipR16BF = 14;          // hipDataType
constexpr int kHipblasCompute32F = 2;  // hipblasComputeType_t
constexpr int kHipblasGemmDefault = 160;

struct HipApi {
  SharedLibrary lib;
  hipError_t (*hipGetDeviceCount)(int*) = nullptr;
  hipError_t (*hipDeviceGetName)(char*, int, int) = nullptr;
  hipError_t (*hipDeviceTotalMem)(size_t*, int) = nullptr;
  hipError_t (*hipDeviceGetPCIBusId)(char*, int, int) = nullptr;
  hipError_t (*hipDriverGetVersion)(int*) = nullptr;
  const char* (*hipGetErrorString)(hipError_t) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipMemGetInfo)(size_t*, size_t*) = nullptr;
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  hipError_t (*hipFree)(void*) = nullptr;
  hipError_t (*hipMemset)(void*, int, size_t) = nullptr;
  hipError_t (*hipMemcpy)(void*, const void*, size_t, int) = nullptr;
  hipError_t (*hipMemcpyAsync)(void*, const void*, size_t, int, hipStream_t) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  hipError_t (*hipEventCreate)(hipEvent_t*) = nullptr;
  hipError_t (*hipEventDestroy)(hipEvent_t) = nullptr;
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*hipEventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*hipEventElapsedTime)(float*, hipEvent_t, hipEvent_t) = nullptr;
  std::string missing;

  template <typename Fn>
  void bind(Fn& slot, const char* name) {
    slot = lib.symbol<Fn>(name);
    if (!slot && missing.empty()) missing = name;
  }
  std::string errorName(hipError_t rc) const {
    const char* text = hipGetErrorString ? hipGetErrorString(rc) : nullptr;
    return text ? std::string(text) : "hipError_t " + std::to_string(rc);
  }
};

std::vector<std::string> rocmLibCandidates(const char* stem, std::initializer_list<const char*> versions) {
  std::vector<std::string> out{std::string(stem) + ".so"};
  for (const char* v : versions) out.push_back(std::string(stem) + ".so." + v);
  std::vector<std::string> roots;
  if (const char* rocm = std::getenv("ROCM_PATH")) roots.emplace_back(rocm);
  roots.emplace_back("/opt/rocm");
  for (const auto& root : roots) out.push_back(root + "/lib/" + stem + ".so");
  return out;
}

bool loadHip(HipApi& api, std::string* error) {
  std::string why;
  api.lib = SharedLibrary::openFirst(rocmLibCandidates("libamdhip64", {"7", "6", "5"}), &why);
  if (!api.lib.loaded()) {
    *error = "HIP runtime library: " + why;
    return false;
  }
  api.bind(api.hipGetDeviceCount, "hipGetDeviceCount");
  api.bind(api.hipDeviceGetName, "hipDeviceGetName");
  api.bind(api.hipDeviceTotalMem, "hipDeviceTotalMem");
  api.bind(api.hipDeviceGetPCIBusId, "hipDeviceGetPCIBusId");
  api.bind(api.hipDriverGetVersion, "hipDriverGetVersion");
  api.bind(api.hipGetErrorString, "hipGetErrorString");
  api.bind(api.hipSetDevice, "hipSetDevice");
  api.bind(api.hipMemGetInfo, "hipMemGetInfo");
  api.bind(api.hipMalloc, "hipMalloc");
  api.bind(api.hipFree, "hipFree");
  api.bind(api.hipMemset, "hipMemset");
  api.bind(api.hipMemcpy, "hipMemcpy");
  api.bind(api.hipMemcpyAsync, "hipMemcpyAsync");
  api.bind(api.hipDeviceSynchronize, "hipDeviceSynchronize");
  api.bind(api.hipEventCreate, "hipEventCreate");
  api.bind(api.hipEventDestroy, "hipEventDestroy");
  api.bind(api.hipEventRecord, "hipEventRecord");
  api.bind(api.hipEventSynchronize, "hipEventSynchronize");
  api.bind(api.hipEventElapsedTime, "hipEventElapsedTime");
  if (!api.missing.empty()) {
    *error = api.lib.path() + " lacks " + api.missing;
    return false;
  }
  return true;
}

Measurement failure(std::string error) {
  Measurement m;
  m.error = std::move(error);
  return m;
}

class HipMemory {
 public:
  explicit HipMemory(const HipApi& api) : api_(api) {}
  ~HipMemory() {
    if (ptr_) api_.hipFree(ptr_);
  }
  HipMemory(const HipMemory&) = delete;
  HipMemory& operator=(const HipMemory&) = delete;
  hipError_t allocate(size_t bytes) { return api_.hipMalloc(&ptr_, bytes); }
  void* get() const { return ptr_; }

 private:
  const HipApi& api_;
  void* ptr_ = nullptr;
};

class HipEvents {
 public:
  explicit HipEvents(const HipApi& api) : api_(api) {
    ok_ = api_.hipEventCreate(&start_) == kHipSuccess && api_.hipEventCreate(&stop_) == kHipSuccess;
  }
  ~HipEvents() {
    if (start_) api_.hipEventDestroy(start_);
    if (stop_) api_.hipEventDestroy(stop_);
  }
  HipEvents(const HipEvents&) = delete;
  HipEvents& operator=(const HipEvents&) = delete;
  bool ok() const { return ok_; }
  template <typename Work>
  std::optional<double> timeMs(Work&& work) {
    if (api_.hipEventRecord(start_, nullptr) != kHipSuccess) return std::nullopt;
    if (!work()) return std::nullopt;
    if (api_.hipEventRecord(stop_, nullptr) != kHipSuccess) return std::nullopt;
    if (api_.hipEventSynchronize(stop_) != kHipSuccess) return std::nullopt;
    float ms = 0;
    if (api_.hipEventElapsedTime(&ms, start_, stop_) != kHipSuccess) return std::nullopt;
    return static_cast<double>(ms);
  }

 private:
  const HipApi& api_;
  hipEvent_t start_ = nullptr;
  hipEvent_t stop_ = nullptr;
  bool ok_ = false;
};

template <typename Work>
std::optional<std::vector<double>> timeMany(HipEvents& events, const MeasureOptions& options, Work&& work) {
  for (int i = 0; i < options.warmup; ++i) {
    if (!events.timeMs(work)) return std::nullopt;
  }
  std::vector<double> times;
  for (int i = 0; i < options.iterations; ++i) {
    auto ms = events.timeMs(work);
    if (!ms) return std::nullopt;
    times.push_back(*ms);
  }
  return times;
}

class HipRuntime final : public DeviceRuntime {
 public:
  DeviceSnapshot snapshot() override {
    DeviceSnapshot snap;
    std::string error;
    if (!ready(&error)) {
      snap.reason = error;
      return snap;
    }
    snap.backend = "hip (" + api_.lib.path() + ")";
    int count = 0;
    if (hipError_t rc = api_.hipGetDeviceCount(&count); rc != kHipSuccess) {
      snap.reason = "hipGetDeviceCount failed: " + api_.errorName(rc);
      return snap;
    }
    if (count == 0) {
      snap.reason = "the HIP runtime sees no device";
      return snap;
    }
    int driverVersion = 0;
    std::string driver;
    if (api_.hipDriverGetVersion(&driverVersion) == kHipSuccess) driver = std::to_string(driverVersion);
    const auto nodes = readKfdGpuNodes("/sys/class/kfd/kfd/topology");
    for (int i = 0; i < count; ++i) {
      DeviceInfo info;
      info.index = i;
      info.vendor = Vendor::Amd;
      char name[256] = {};
      if (api_.hipDeviceGetName(name, sizeof name - 1, i) == kHipSuccess) info.name = name;
      size_t total = 0;
      if (api_.hipDeviceTotalMem(&total, i) == kHipSuccess) info.memoryBytes = total;
      char bus[64] = {};
      if (api_.hipDeviceGetPCIBusId(bus, sizeof bus - 1, i) == kHipSuccess) info.pciBusId = bus;
      info.driverVersion = driver;
      // Match the KFD node by PCI location; HIP_VISIBLE_DEVICES can reorder or hide nodes.
      const KfdGpuNode* node = nullptr;
      if (auto location = kfdLocationIdFromPciBusId(info.pciBusId)) {
        for (const auto& n : nodes) {
          if (n.locationId == *location) node = &n;
        }
      }
      if (!node && static_cast<size_t>(i) < nodes.size() && nodes.size() == static_cast<size_t>(count)) node = &nodes[i];
      if (node) {
        info.arch = node->arch;
        info.computeUnits = node->computeUnits;
        info.smClockMHz = node->engineClockMHz;
        info.memoryClockMHz = node->memoryClockMHz;
        info.memoryBusBits = node->memoryBusBits;
        // KFD's mem_clk_max does not map to a data rate in the same way on every HBM generation:
        // no theoretical bandwidth here; the datasheet and the measured copy stand in.
      }
      snap.devices.push_back(std::move(info));
    }
    snap.present = true;
    return snap;
  }

  Measurement measureCopyGBps(int device, const MeasureOptions& options) override {
    std::string error;
    if (!ready(&error)) return failure(error);
    if (hipError_t rc = api_.hipSetDevice(device); rc != kHipSuccess) return failure("hipSetDevice: " + api_.errorName(rc));
    size_t freeBytes = 0, totalBytes = 0;
    if (hipError_t rc = api_.hipMemGetInfo(&freeBytes, &totalBytes); rc != kHipSuccess) return failure("hipMemGetInfo: " + api_.errorName(rc));
    size_t bytes = static_cast<size_t>(options.copyBytes);
    if (bytes > freeBytes / 4) bytes = freeBytes / 4;
    bytes &= ~static_cast<size_t>(0xfff);
    if (bytes < (1u << 20)) return failure("too little free device memory for a copy test");
    HipMemory src(api_), dst(api_);
    if (hipError_t rc = src.allocate(bytes); rc != kHipSuccess) return failure("hipMalloc: " + api_.errorName(rc));
    if (hipError_t rc = dst.allocate(bytes); rc != kHipSuccess) return failure("hipMalloc: " + api_.errorName(rc));
    api_.hipMemset(src.get(), 0x5a, bytes);
    api_.hipMemset(dst.get(), 0xa5, bytes);
    api_.hipDeviceSynchronize();
    HipEvents events(api_);
    if (!events.ok()) return failure("hipEventCreate failed");
    auto copy = [&] {
      return api_.hipMemcpyAsync(dst.get(), src.get(), bytes, kHipMemcpyDeviceToDevice, nullptr) == kHipSuccess;
    };
    auto times = timeMany(events, options, copy);
    if (!times) return failure("device copy failed");
    const auto mid = median(*times);
    if (!mid || *mid <= 0) return failure("device copy timing gave no positive sample");
    Measurement m;
    m.value = 2.0 * static_cast<double>(bytes) / (*mid * 1e-3) / 1e9;
    m.method = "hipMemcpyAsync device-to-device of " + std::to_string(bytes >> 20) +
               " MiB, bytes read + written, median of " + std::to_string(times->size()) + " event-timed copies";
    return m;
  }

  Measurement measureMatmulTflops(int device, const MeasureOptions& options) override {
    std::string error;
    if (!ready(&error)) return failure(error);
    std::string why;
    std::vector<std::string> candidates;
    if (const char* explicitPath = std::getenv("KOPT_HIPBLAS_LIB")) candidates.emplace_back(explicitPath);
    for (auto& c : rocmLibCandidates("libhipblas", {"3", "2"})) candidates.push_back(c);
    SharedLibrary hipblas = SharedLibrary::openFirst(candidates, &why);
    if (!hipblas.loaded()) return failure("hipBLAS: " + why + "; set KOPT_HIPBLAS_LIB to its path");
    using CreateFn = int (*)(hipblasHandle_t*);
    using DestroyFn = int (*)(hipblasHandle_t);
    using GemmExFn = int (*)(hipblasHandle_t, int, int, int, int, int, const void*, const void*, int, int, const void*,
                             int, int, const void*, void*, int, int, int, int);
    auto create = hipblas.symbol<CreateFn>("hipblasCreate");
    auto destroy = hipblas.symbol<DestroyFn>("hipblasDestroy");
    // ROCm 6 exports the hipDataType/hipblasComputeType_t form as hipblasGemmEx_v2; ROCm 7 renamed
    // it to hipblasGemmEx. ROCm 5's hipblasGemmEx takes other enums and answers with an error status.
    auto gemmEx = hipblas.symbol<GemmExFn>("hipblasGemmEx_v2");
    const char* gemmName = "hipblasGemmEx_v2";
    if (!gemmEx) {
      gemmEx = hipblas.symbol<GemmExFn>("hipblasGemmEx");
      gemmName = "hipblasGemmEx";
    }
    if (!create || !destroy || !gemmEx) return failure(hipblas.path() + " lacks hipblasCreate/hipblasGemmEx");
    if (hipError_t rc = api_.hipSetDevice(device); rc != kHipSuccess) return failure("hipSetDevice: " + api_.errorName(rc));
    const int n = options.matmulSize;
    if (n <= 0) return failure("matmul size must be positive");
    const size_t elems = static_cast<size_t>(n) * static_cast<size_t>(n);
    const size_t bytes = elems * 2;
    HipMemory a(api_), b(api_), c(api_);
    for (HipMemory* buf : {&a, &b, &c}) {
      if (hipError_t rc = buf->allocate(bytes); rc != kHipSuccess) return failure("hipMalloc: " + api_.errorName(rc));
    }
    const auto hostA = randomBf16(elems, 1);
    const auto hostB = randomBf16(elems, 2);
    if (api_.hipMemcpy(a.get(), hostA.data(), bytes, kHipMemcpyHostToDevice) != kHipSuccess ||
        api_.hipMemcpy(b.get(), hostB.data(), bytes, kHipMemcpyHostToDevice) != kHipSuccess) {
      return failure("hipMemcpy host-to-device failed");
    }
    hipblasHandle_t handle = nullptr;
    if (int st = create(&handle); st != kHipblasSuccess) return failure("hipblasCreate returned " + std::to_string(st));
    struct HandleGuard {
      DestroyFn destroy;
      hipblasHandle_t handle;
      ~HandleGuard() { destroy(handle); }
    } guard{destroy, handle};
    const float alpha = 1.0f, beta = 0.0f;
    int status = kHipblasSuccess;
    auto gemm = [&] {
      status = gemmEx(handle, kHipblasOpT, kHipblasOpN, n, n, n, &alpha, a.get(), kHipR16BF, n, b.get(), kHipR16BF, n,
                      &beta, c.get(), kHipR16BF, n, kHipblasCompute32F, kHipblasGemmDefault);
      return status == kHipblasSuccess;
    };
    HipEvents events(api_);
    if (!events.ok()) return failure("hipEventCreate failed");
    auto times = timeMany(events, options, gemm);
    if (!times) return failure(std::string(gemmName) + " failed (status " + std::to_string(status) + ")");
    const auto mid = median(*times);
    if (!mid || *mid <= 0) return failure("matmul timing gave no positive sample");
    Measurement m;
    m.value = 2.0 * static_cast<double>(n) * n * n / (*mid * 1e-3) / 1e12;
    m.method = std::string(gemmName) + " bf16 TN " + std::to_string(n) + "^3, fp32 accumulate, random inputs, median of " +
               std::to_string(times->size()) + " event-timed calls (" + hipblas.path() + ")";
    return m;
  }

 private:
  bool ready(std::string* error) {
    if (!attempted_) {
      attempted_ = true;
      loadHip(api_, &loadError_);
    }
    if (!loadError_.empty()) {
      *error = loadError_;
      return false;
    }
    return true;
  }

  HipApi api_;
  bool attempted_ = false;
  std::string loadError_;
};

}  // namespace

std::unique_ptr<DeviceRuntime> makeHipRuntime() { return std::make_unique<HipRuntime>(); }

}  // namespace kopt::device
