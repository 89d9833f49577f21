#pragma once
// The knobs of the plain bf16 GEMM (gemm_kernel.hip). One knob per round: each line says what it
// trades. Every value can also be overridden from the compiler command line (-DKOPT_GEMM_BLOCK_M=64)
// for a config sweep, which the iteration rules count as one change.

// Output tile of one thread block (rows x columns of C). Larger tiles reuse each loaded element
// more (fewer global loads per FLOP) but need more shared memory and registers, and leave fewer
// blocks to fill the chip on small shapes.
#ifndef KOPT_GEMM_BLOCK_M
#define KOPT_GEMM_BLOCK_M 128
#endif
#ifndef KOPT_GEMM_BLOCK_N
#define KOPT_GEMM_BLOCK_N 128
#endif

// Depth of the K slice staged in shared memory per iteration: deeper means fewer barriers per FLOP
// and more shared memory.
#ifndef KOPT_GEMM_BLOCK_K
#define KOPT_GEMM_BLOCK_K 16
#endif

// Outputs computed by one thread (register blocking): THREAD_M x THREAD_N fp32 accumulators.
// Threads per block = (BLOCK_M / THREAD_M) * (BLOCK_N / THREAD_N).
#ifndef KOPT_GEMM_THREAD_M
#define KOPT_GEMM_THREAD_M 8
#endif
#ifndef KOPT_GEMM_THREAD_N
#define KOPT_GEMM_THREAD_N 8
#endif

// Elements per global load along the contiguous dimension (1, 2, 4 or 8 bf16 = 2..16 bytes). Used
// only where the leading dimension and the pointers are aligned; other loads are scalar.
#ifndef KOPT_GEMM_VEC
#define KOPT_GEMM_VEC 8
#endif

// Padding (in floats) added to each shared-memory row to move accesses off the same bank.
#ifndef KOPT_GEMM_SMEM_PAD
#define KOPT_GEMM_SMEM_PAD 4
#endif

namespace kopt::kernels::gemm_config {
constexpr int kBlockM = KOPT_GEMM_BLOCK_M;
constexpr int kBlockN = KOPT_GEMM_BLOCK_N;
constexpr int kBlockK = KOPT_GEMM_BLOCK_K;
constexpr int kThreadM = KOPT_GEMM_THREAD_M;
constexpr int kThreadN = KOPT_GEMM_THREAD_N;
constexpr int kVec = KOPT_GEMM_VEC;
constexpr int kSmemPad = KOPT_GEMM_SMEM_PAD;
constexpr int kThreads = (kBlockM / kThreadM) * (kBlockN / kThreadN);

static_assert(kBlockM % kThreadM == 0 && kBlockN % kThreadN == 0, "a block tile must split evenly into thread tiles");
static_assert(kThreads >= 32 && kThreads <= 1024, "threads per block must be between 32 and 1024");
static_assert(kVec == 1 || kVec == 2 || kVec == 4 || kVec == 8, "KOPT_GEMM_VEC must be 1, 2, 4 or 8");
static_assert(kBlockK % kVec == 0 && kBlockM % kVec == 0 && kBlockN % kVec == 0, "tiles must hold whole vectors");
static_assert((kBlockM + kSmemPad) * kBlockK * 4 + (kBlockN + kSmemPad) * kBlockK * 4 <= 48 * 1024,
              "the two shared-memory tiles must fit in 48 KiB (static shared memory)");
}  // namespace kopt::kernels::gemm_config
