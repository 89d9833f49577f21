#include "common/capi.h"

#include <cstdint>

#include "gemm/gemm.h"
#include "rmsnorm/rmsnorm.h"

namespace {
const std::uint16_t* in(const void* p) { return static_cast<const std::uint16_t*>(p); }
std::uint16_t* out(void* p) { return static_cast<std::uint16_t*>(p); }
hipStream_t streamOf(void* s) { return static_cast<hipStream_t>(s); }
}  // namespace

extern "C" int kopt_gemm_bf16_forward(const void* a, const void* w, void* o, int batch, int m, int n, int k, void* stream) {
  return static_cast<int>(kopt::kernels::gemmForward(in(a), in(w), out(o), batch, m, n, k, streamOf(stream)));
}

extern "C" int kopt_gemm_bf16_backward(const void* g, const void* a, const void* w, void* da, void* dw, int batch, int m,
                                       int n, int k, void* stream) {
  return static_cast<int>(
      kopt::kernels::gemmBackward(in(g), in(a), in(w), out(da), out(dw), batch, m, n, k, streamOf(stream)));
}

extern "C" size_t kopt_rmsnorm_bf16_backward_workspace_bytes(int m, int n) {
  return kopt::kernels::rmsnormBackwardWorkspaceBytes(m, n);
}

extern "C" int kopt_rmsnorm_bf16_forward(const void* x, const void* w, void* y, int m, int n, float eps, void* stream) {
  return static_cast<int>(kopt::kernels::rmsnormForward(in(x), in(w), out(y), m, n, eps, streamOf(stream)));
}

extern "C" int kopt_rmsnorm_bf16_backward(const void* dy, const void* x, const void* w, void* dx, void* dw, void* workspace,
                                          size_t workspace_bytes, int m, int n, float eps, void* stream) {
  return static_cast<int>(kopt::kernels::rmsnormBackward(in(dy), in(x), in(w), out(dx), out(dw),
                                                         static_cast<float*>(workspace), workspace_bytes, m, n, eps,
                                                         streamOf(stream)));
}

extern "C" const char* kopt_hip_error_string(int code) { return hipGetErrorString(static_cast<hipError_t>(code)); }
