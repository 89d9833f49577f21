#pragma once
// The knobs of the plain RMSNorm (rmsnorm_kernel.hip). One knob per round; each can also be set
// from the compiler command line (-DKOPT_RMS_THREADS=512).

// Threads per block of the forward kernel (one block per row) and the fewest threads of the
// backward kernel (it uses more when a row would need more than MAX_COLS_PER_THREAD per thread).
#ifndef KOPT_RMS_THREADS
#define KOPT_RMS_THREADS 256
#endif

// bf16 elements per global load (1, 2, 4 or 8 = 2..16 bytes); used when the row length and the
// pointers are aligned to it, else single elements.
#ifndef KOPT_RMS_VEC
#define KOPT_RMS_VEC 8
#endif

// Backward: resident blocks per compute unit. Each block walks rows r, r + grid, ... and keeps a
// partial dw for its columns in registers; more blocks = more parallelism but more partial rows to
// reduce at the end.
#ifndef KOPT_RMS_BWD_BLOCKS_PER_CU
#define KOPT_RMS_BWD_BLOCKS_PER_CU 4
#endif

// Backward: most dw columns one thread accumulates in registers (caps registers per thread).
#ifndef KOPT_RMS_MAX_COLS_PER_THREAD
#define KOPT_RMS_MAX_COLS_PER_THREAD 64
#endif

namespace kopt::kernels::rmsnorm_config {
constexpr int kThreads = KOPT_RMS_THREADS;
constexpr int kVec = KOPT_RMS_VEC;
constexpr int kBwdBlocksPerCu = KOPT_RMS_BWD_BLOCKS_PER_CU;
constexpr int kMaxColsPerThread = KOPT_RMS_MAX_COLS_PER_THREAD;
static_assert(kThreads == 64 || kThreads == 128 || kThreads == 256 || kThreads == 512 || kThreads == 1024,
              "KOPT_RMS_THREADS must be a power of two between 64 and 1024");
static_assert(kVec == 1 || kVec == 2 || kVec == 4 || kVec == 8, "KOPT_RMS_VEC must be 1, 2, 4 or 8");
static_assert(kMaxColsPerThread % kVec == 0 && kMaxColsPerThread >= kVec, "MAX_COLS_PER_THREAD must hold whole vectors");
static_assert(kBwdBlocksPerCu >= 1, "KOPT_RMS_BWD_BLOCKS_PER_CU must be at least 1");
}  // namespace kopt::kernels::rmsnorm_config
