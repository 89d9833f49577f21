// NVIDIA backend: the CUDA driver API (libcuda.so.1) and cuBLAS, both loaded at run time.
// The few types and constants used are declared here with the values of the CUDA headers; the
// driver API keeps them stable across releases (see device_runtime.h for why not libcudart).
#include <cstdlib>
#include <string>
#include <vector>

#include "device/device_runtime.h"
#include "device/shared_library.h"
#include "device/timing_math.h"

namespace kopt::device {

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUevent = void*;
using CUstream = void*;
using CUdeviceptr = unsigned long long;

constexpr CUresult kCudaSuccess = 0;
// CUdevice_attribute values (cuda.h).
constexpr int kAttrClockRate = 13;            // kHz
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrMemoryClockRate = 36;      // kHz
constexpr int kAttrGlobalMemoryBusWidth = 37; // bits
constexpr int kAttrL2CacheSize = 38;          // bytes
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

// cuBLAS values (cublas_api.h, library_types.h).
using cublasHandle_t = void*;
constexpr int kCublasSuccess = 0;
constexpr int kCublasOpN = 0;
constexpr int kCublasOpT = 1;
constexpr int kCudaR16BF = 14;
constexpr int kCublasCompute32F = 68;
constexpr int kCublasGemmDefault = -1;

struct DriverApi {
  SharedLibrary lib;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice) = nullptr;
  CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemGetInfo)(size_t*, size_t*) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  std::string missing;  // the first symbol that was not found

  template <typename Fn>
  void bind(Fn& slot, const char* name) {
    slot = lib.symbol<Fn>(name);
    if (!slot && missing.empty()) missing = name;
  }

  std::string errorName(CUresult rc) const {
    const char* name = nullptr;
    if (cuGetErrorName && cuGetErrorName(rc, &name) == kCudaSuccess && name) return name;
    return "CUresult " + std::to_string(rc);
  }
};

// Loads libcuda and binds every symbol; `error` says what failed.
bool loadDriver(DriverApi& api, std::string* error) {
  std::string why;
  api.lib = SharedLibrary::openFirst({"libcuda.so.1", "libcuda.so"}, &why);
  if (!api.lib.loaded()) {
    *error = "CUDA driver library: " + why;
    return false;
  }
  api.bind(api.cuInit, "cuInit");
  api.bind(api.cuDriverGetVersion, "cuDriverGetVersion");
  api.bind(api.cuDeviceGetCount, "cuDeviceGetCount");
  api.bind(api.cuDeviceGet, "cuDeviceGet");
  api.bind(api.cuDeviceGetName, "cuDeviceGetName");
  api.bind(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  api.bind(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  api.bind(api.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
  api.bind(api.cuGetErrorName, "cuGetErrorName");
  api.bind(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  api.bind(api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  api.bind(api.cuCtxSetCurrent, "cuCtxSetCurrent");
  api.bind(api.cuCtxSynchronize, "cuCtxSynchronize");
  api.bind(api.cuMemGetInfo, "cuMemGetInfo_v2");
  api.bind(api.cuMemAlloc, "cuMemAlloc_v2");
  api.bind(api.cuMemFree, "cuMemFree_v2");
  api.bind(api.cuMemsetD8, "cuMemsetD8_v2");
  api.bind(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  api.bind(api.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  api.bind(api.cuEventCreate, "cuEventCreate");
  api.bind(api.cuEventDestroy, "cuEventDestroy_v2");
  api.bind(api.cuEventRecord, "cuEventRecord");
  api.bind(api.cuEventSynchronize, "cuEventSynchronize");
  // The v1 name: CUDA 13's header maps cuEventElapsedTime to _v2, but every driver still exports
  // the v1 symbol with the same signature, and drivers older than 12.8 have only v1.
  api.bind(api.cuEventElapsedTime, "cuEventElapsedTime");
  if (!api.missing.empty()) {
    *error = api.lib.path() + " lacks " + api.missing + " (driver too old?)";
    return false;
  }
  return true;
}

std::optional<int> attribute(const DriverApi& api, int attr, CUdevice dev) {
  int value = 0;
  if (api.cuDeviceGetAttribute(&value, attr, dev) != kCudaSuccess) return std::nullopt;
  return value;
}

// Makes the device's primary context current for the lifetime of the guard (the context cuBLAS
// and the CUDA runtime also use), and releases it afterwards.
class PrimaryContext {
 public:
  PrimaryContext(const DriverApi& api, CUdevice dev) : api_(api), dev_(dev) {
    CUresult rc = api_.cuDevicePrimaryCtxRetain(&ctx_, dev_);
    if (rc != kCudaSuccess) {
      error_ = "cuDevicePrimaryCtxRetain: " + api_.errorName(rc);
      ctx_ = nullptr;
      return;
    }
    rc = api_.cuCtxSetCurrent(ctx_);
    if (rc != kCudaSuccess) error_ = "cuCtxSetCurrent: " + api_.errorName(rc);
  }
  ~PrimaryContext() {
    if (ctx_) api_.cuDevicePrimaryCtxRelease(dev_);
  }
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  const std::string& error() const { return error_; }

 private:
  const DriverApi& api_;
  CUdevice dev_;
  CUcontext ctx_ = nullptr;
  std::string error_;
};

class DeviceMemory {
 public:
  explicit DeviceMemory(const DriverApi& api) : api_(api) {}
  ~DeviceMemory() {
    if (ptr_) api_.cuMemFree(ptr_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  CUresult allocate(size_t bytes) { return api_.cuMemAlloc(&ptr_, bytes); }
  CUdeviceptr get() const { return ptr_; }

 private:
  const DriverApi& api_;
  CUdeviceptr ptr_ = 0;
};

class EventPair {
 public:
  explicit EventPair(const DriverApi& api) : api_(api) {
    ok_ = api_.cuEventCreate(&start_, 0) == kCudaSuccess && api_.cuEventCreate(&stop_, 0) == kCudaSuccess;
  }
  ~EventPair() {
    if (start_) api_.cuEventDestroy(start_);
    if (stop_) api_.cuEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  bool ok() const { return ok_; }

  // Times one call of `work` on the legacy default stream; nullopt when an event call fails.
  template <typename Work>
  std::optional<double> timeMs(Work&& work) {
    if (api_.cuEventRecord(start_, nullptr) != kCudaSuccess) return std::nullopt;
    if (!work()) return std::nullopt;
    if (api_.cuEventRecord(stop_, nullptr) != kCudaSuccess) return std::nullopt;
    if (api_.cuEventSynchronize(stop_) != kCudaSuccess) return std::nullopt;
    float ms = 0;
    if (api_.cuEventElapsedTime(&ms, start_, stop_) != kCudaSuccess) return std::nullopt;
    return static_cast<double>(ms);
  }

 private:
  const DriverApi& api_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
  bool ok_ = false;
};

Measurement failure(std::string error) {
  Measurement m;
  m.error = std::move(error);
  return m;
}

std::vector<std::string> cublasCandidates() {
  std::vector<std::string> out;
  if (const char* explicitPath = std::getenv("KOPT_CUBLAS_LIB")) out.emplace_back(explicitPath);
  out.insert(out.end(), {"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME")) roots.emplace_back(home);
  if (const char* path = std::getenv("CUDA_PATH")) roots.emplace_back(path);
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    for (const char* name : {"libcublas.so.13", "libcublas.so.12"}) {
      out.push_back(root + "/lib64/" + name);
      out.push_back(root + "/targets/x86_64-linux/lib/" + name);
    }
  }
  return out;
}

class CudaDriverRuntime final : public DeviceRuntime {
 public:
  DeviceSnapshot snapshot() override {
    DeviceSnapshot snap;
    std::string error;
    if (!ready(&error)) {
      snap.reason = error;
      return snap;
    }
    snap.backend = "cuda-driver (" + api_.lib.path() + ")";
    int driverVersion = 0;
    std::string driver;
    if (api_.cuDriverGetVersion(&driverVersion) == kCudaSuccess) {
      driver = std::to_string(driverVersion / 1000) + "." + std::to_string((driverVersion % 1000) / 10);
    }
    int count = 0;
    CUresult rc = api_.cuDeviceGetCount(&count);
    if (rc != kCudaSuccess) {
      snap.reason = "cuDeviceGetCount failed: " + api_.errorName(rc);
      return snap;
    }
    if (count == 0) {
      snap.reason = "the CUDA driver sees no device";
      return snap;
    }
    for (int i = 0; i < count; ++i) {
      CUdevice dev = 0;
      if (api_.cuDeviceGet(&dev, i) != kCudaSuccess) continue;
      DeviceInfo info;
      info.index = i;
      info.vendor = Vendor::Nvidia;
      char name[256] = {};
      if (api_.cuDeviceGetName(name, sizeof name - 1, dev) == kCudaSuccess) info.name = name;
      const auto major = attribute(api_, kAttrComputeCapabilityMajor, dev);
      const auto minor = attribute(api_, kAttrComputeCapabilityMinor, dev);
      if (major && minor) info.arch = nvidiaArchFromComputeCapability(*major, *minor);
      info.computeUnits = attribute(api_, kAttrMultiprocessorCount, dev).value_or(0);
      if (auto khz = attribute(api_, kAttrClockRate, dev)) info.smClockMHz = *khz / 1000;
      if (auto khz = attribute(api_, kAttrMemoryClockRate, dev)) info.memoryClockMHz = *khz / 1000;
      info.memoryBusBits = attribute(api_, kAttrGlobalMemoryBusWidth, dev);
      if (auto l2 = attribute(api_, kAttrL2CacheSize, dev)) info.l2Bytes = static_cast<std::uint64_t>(*l2);
      size_t total = 0;
      if (api_.cuDeviceTotalMem(&total, dev) == kCudaSuccess) info.memoryBytes = total;
      char bus[64] = {};
      if (api_.cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev) == kCudaSuccess) info.pciBusId = bus;
      info.theoreticalBandwidthGBps = theoreticalBandwidthGBps(info.memoryClockMHz, info.memoryBusBits);
      info.driverVersion = driver;
      snap.devices.push_back(std::move(info));
    }
    snap.present = !snap.devices.empty();
    if (!snap.present) snap.reason = "the CUDA driver lists devices but none could be opened";
    return snap;
  }

  Measurement measureCopyGBps(int device, const MeasureOptions& options) override {
    std::string error;
    if (!ready(&error)) return failure(error);
    CUdevice dev = 0;
    if (CUresult rc = api_.cuDeviceGet(&dev, device); rc != kCudaSuccess) return failure("cuDeviceGet: " + api_.errorName(rc));
    PrimaryContext ctx(api_, dev);
    if (!ctx.error().empty()) return failure(ctx.error());
    size_t freeBytes = 0, totalBytes = 0;
    if (CUresult rc = api_.cuMemGetInfo(&freeBytes, &totalBytes); rc != kCudaSuccess) return failure("cuMemGetInfo: " + api_.errorName(rc));
    size_t bytes = static_cast<size_t>(options.copyBytes);
    if (bytes > freeBytes / 4) bytes = freeBytes / 4;
    bytes &= ~static_cast<size_t>(0xfff);
    if (bytes < (1u << 20)) return failure("too little free device memory for a copy test");
    DeviceMemory src(api_), dst(api_);
    if (CUresult rc = src.allocate(bytes); rc != kCudaSuccess) return failure("cuMemAlloc: " + api_.errorName(rc));
    if (CUresult rc = dst.allocate(bytes); rc != kCudaSuccess) return failure("cuMemAlloc: " + api_.errorName(rc));
    // Non-zero contents: some memory systems compress zero pages.
    api_.cuMemsetD8(src.get(), 0x5a, bytes);
    api_.cuMemsetD8(dst.get(), 0xa5, bytes);
    api_.cuCtxSynchronize();
    EventPair events(api_);
    if (!events.ok()) return failure("cuEventCreate failed");
    auto copy = [&] { return api_.cuMemcpyDtoDAsync(dst.get(), src.get(), bytes, nullptr) == kCudaSuccess; };
    for (int i = 0; i < options.warmup; ++i) {
      if (!events.timeMs(copy)) return failure("device copy failed during warm-up");
    }
    std::vector<double> times;
    for (int i = 0; i < options.iterations; ++i) {
      auto ms = events.timeMs(copy);
      if (!ms) return failure("device copy failed");
      times.push_back(*ms);
    }
    const auto mid = median(times);
    if (!mid || *mid <= 0) return failure("device copy timing gave no positive sample");
    Measurement m;
    m.value = 2.0 * static_cast<double>(bytes) / (*mid * 1e-3) / 1e9;
    m.method = "cuMemcpyDtoDAsync of " + std::to_string(bytes >> 20) + " MiB, bytes read + written, median of " +
               std::to_string(times.size()) + " event-timed copies";
    return m;
  }

  Measurement measureMatmulTflops(int device, const MeasureOptions& options) override {
    std::string error;
    if (!ready(&error)) return failure(error);
    std::string why;
    SharedLibrary cublas = SharedLibrary::openFirst(cublasCandidates(), &why);
    if (!cublas.loaded()) return failure("cuBLAS: " + why + "; set KOPT_CUBLAS_LIB to its path");
    using CreateFn = int (*)(cublasHandle_t*);
    using DestroyFn = int (*)(cublasHandle_t);
    using GemmExFn = int (*)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int, const void*,
                             int, int, const void*, void*, int, int, int, int);
    auto create = cublas.symbol<CreateFn>("cublasCreate_v2");
    auto destroy = cublas.symbol<DestroyFn>("cublasDestroy_v2");
    auto gemmEx = cublas.symbol<GemmExFn>("cublasGemmEx");
    if (!create || !destroy || !gemmEx) return failure(cublas.path() + " lacks cublasCreate_v2/cublasGemmEx");

    CUdevice dev = 0;
    if (CUresult rc = api_.cuDeviceGet(&dev, device); rc != kCudaSuccess) return failure("cuDeviceGet: " + api_.errorName(rc));
    PrimaryContext ctx(api_, dev);
    if (!ctx.error().empty()) return failure(ctx.error());
    const int n = options.matmulSize;
    if (n <= 0) return failure("matmul size must be positive");
    const size_t elems = static_cast<size_t>(n) * static_cast<size_t>(n);
    const size_t bytes = elems * 2;
    DeviceMemory a(api_), b(api_), c(api_);
    for (DeviceMemory* buf : {&a, &b, &c}) {
      if (CUresult rc = buf->allocate(bytes); rc != kCudaSuccess) return failure("cuMemAlloc: " + api_.errorName(rc));
    }
    const auto hostA = randomBf16(elems, 1);
    const auto hostB = randomBf16(elems, 2);
    if (api_.cuMemcpyHtoD(a.get(), hostA.data(), bytes) != kCudaSuccess ||
        api_.cuMemcpyHtoD(b.get(), hostB.data(), bytes) != kCudaSuccess) {
      return failure("cuMemcpyHtoD failed");
    }
    cublasHandle_t handle = nullptr;
    if (int st = create(&handle); st != kCublasSuccess) return failure("cublasCreate_v2 returned " + std::to_string(st));
    struct HandleGuard {
      DestroyFn destroy;
      cublasHandle_t handle;
      ~HandleGuard() { destroy(handle); }
    } guard{destroy, handle};
    const float alpha = 1.0f, beta = 0.0f;
    int status = kCublasSuccess;
    auto gemm = [&] {
      // "TN": the layout torch uses for a row-major x @ w.T, usually the library's fastest.
      status = gemmEx(handle, kCublasOpT, kCublasOpN, n, n, n, &alpha, reinterpret_cast<const void*>(a.get()),
                      kCudaR16BF, n, reinterpret_cast<const void*>(b.get()), kCudaR16BF, n, &beta,
                      reinterpret_cast<void*>(c.get()), kCudaR16BF, n, kCublasCompute32F, kCublasGemmDefault);
      return status == kCublasSuccess;
    };
    EventPair events(api_);
    if (!events.ok()) return failure("cuEventCreate failed");
    for (int i = 0; i < options.warmup; ++i) {
      if (!events.timeMs(gemm)) return failure("cublasGemmEx failed during warm-up (status " + std::to_string(status) + ")");
    }
    std::vector<double> times;
    for (int i = 0; i < options.iterations; ++i) {
      auto ms = events.timeMs(gemm);
      if (!ms) return failure("cublasGemmEx failed (status " + std::to_string(status) + ")");
      times.push_back(*ms);
    }
    const auto mid = median(times);
    if (!mid || *mid <= 0) return failure("matmul timing gave no positive sample");
    const double flops = 2.0 * static_cast<double>(n) * n * n;
    Measurement m;
    m.value = flops / (*mid * 1e-3) / 1e12;
    m.method = "cublasGemmEx bf16 TN " + std::to_string(n) + "^3, fp32 accumulate, random inputs, median of " +
               std::to_string(times.size()) + " event-timed calls (" + cublas.path() + ")";
    return m;
  }

 private:
  // Loads the driver and runs cuInit once; afterwards answers from the first outcome.
  bool ready(std::string* error) {
    if (!attempted_) {
      attempted_ = true;
      if (loadDriver(api_, &loadError_)) {
        CUresult rc = api_.cuInit(0);
        if (rc != kCudaSuccess) loadError_ = "cuInit failed: " + api_.errorName(rc);
      }
    }
    if (!loadError_.empty()) {
      *error = loadError_;
      return false;
    }
    return true;
  }

  DriverApi api_;
  bool attempted_ = false;
  std::string loadError_;
};

}  // namespace

std::unique_ptr<DeviceRuntime> makeCudaDriverRuntime() { return std::make_unique<CudaDriverRuntime>(); }

}  // namespace kopt::device
