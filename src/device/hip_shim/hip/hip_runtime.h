#pragma once
// kopt's stand-in for <hip/hip_runtime.h> when nvcc compiles a user's HIP code on an NVIDIA GPU
// (docs/byo-kernel.md): put this folder's parent on the include path (-I .../hip_shim) and the HIP
// names kopt maps (../../hip_portability.h) become CUDA runtime calls. Anything else gets the
// real HIP header.
#if defined(__CUDACC__) && !defined(__HIP_PLATFORM_AMD__)
#include "../../hip_portability.h"
#else
#include_next <hip/hip_runtime.h>
#endif
