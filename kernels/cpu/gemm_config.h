// The optimisation knobs of the CPU GEMM, one #define each, so that an optimisation round can be
// exactly one edit of one line. The values below are the deliberately plain starting point: correct,
// but leaving real speedups on the table. See README.md for what each knob does and measured effects.
#ifndef KOPT_CPU_GEMM_CONFIG_H
#define KOPT_CPU_GEMM_CONFIG_H

// Loop order inside a tile. 0 = i-j-k (dot products: walks a column of B with stride N);
//                           1 = i-k-j (streams rows of B and C: unit stride, vectorisable).
#define GEMM_LOOP_ORDER 0

// Cache tile sizes (elements). Any positive value is correct; they only change the blocking.
#define GEMM_TILE_M 64
#define GEMM_TILE_N 64
#define GEMM_TILE_K 64

// 1 = copy each B tile into a contiguous scratch buffer before it is used by all rows of A.
#define GEMM_PACK_B 0

// Columns of C updated together in the inner loop (1, 4, 8 or 16). A constant-width chunk lets the
// compiler keep the chunk in vector registers; 1 is plain scalar code.
#define GEMM_UNROLL 1

// Depth steps of K consumed per pass over a row of C (1, 2, 4 or 8).
#define GEMM_K_UNROLL 4

// 1 = finish the K % GEMM_K_UNROLL remainder of each K tile. 0 skips it: faster, and wrong on any
// shape whose reduction length is not a multiple of GEMM_K_UNROLL.
#define GEMM_K_TAIL_FIX 1

#endif  // KOPT_CPU_GEMM_CONFIG_H
