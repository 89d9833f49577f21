#pragma once
// A C entry point to the sample kernels for callers outside C++ (tools/gpu/check_against_torch.py
// loads libkopt_hip_kernels.so with ctypes and passes torch tensors' device pointers and the
// current stream). Tensors are raw bf16 bits, row-major, contiguous. Each function returns the
// HIP/CUDA error code (0 = success) of the launch; kopt_hip_error_string() names it.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int kopt_gemm_bf16_forward(const void* a, const void* w, void* out, int batch, int m, int n, int k, void* stream);
int kopt_gemm_bf16_backward(const void* g, const void* a, const void* w, void* da, void* dw, int batch, int m, int n,
                            int k, void* stream);

size_t kopt_rmsnorm_bf16_backward_workspace_bytes(int m, int n);
int kopt_rmsnorm_bf16_forward(const void* x, const void* w, void* y, int m, int n, float eps, void* stream);
int kopt_rmsnorm_bf16_backward(const void* dy, const void* x, const void* w, void* dx, void* dw, void* workspace,
                               size_t workspace_bytes, int m, int n, float eps, void* stream);

const char* kopt_hip_error_string(int code);

#ifdef __cplusplus
}
#endif
