#pragma once
// A device allocation that frees itself. Plain hipMalloc (never managed memory: on NVIDIA asking
// for more managed memory than the card has can hang the GPU).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/hip/gpu/hip_check.h"

namespace kopt::hipbench {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { allocate(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), count_(other.count_) {
    other.ptr_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = other.ptr_;
      count_ = other.count_;
      other.ptr_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }

  void allocate(std::size_t count) {
    release();
    if (count == 0) return;
    void* p = nullptr;
    KOPT_HIP_CHECK(hipMalloc(&p, count * sizeof(T)));
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  std::vector<T> toHost() const {
    std::vector<T> host(count_);
    if (count_) KOPT_HIP_CHECK(hipMemcpy(host.data(), ptr_, bytes(), hipMemcpyDeviceToHost));
    return host;
  }
  T elementToHost(std::size_t index) const {
    T value{};
    KOPT_HIP_CHECK(hipMemcpy(&value, ptr_ + index, sizeof(T), hipMemcpyDeviceToHost));
    return value;
  }

 private:
  void release() {
    if (ptr_) hipFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace kopt::hipbench
