#pragma once
// KOPT_HD marks small helpers that run on the host and on the GPU (the input generator and the
// bf16 bit conversions), so both sides compute bit-identical values.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KOPT_HD __host__ __device__
#else
#define KOPT_HD
#endif
