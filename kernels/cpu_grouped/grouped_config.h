// The optimisation knobs of the grouped CPU GEMM, one #define each, so that an optimisation round
// can be exactly one edit of one line. The values below are the deliberately plain starting point:
// correct for every group-size distribution, but leaving real speedups on the table (README.md).
#ifndef KOPT_CPU_GROUPED_CONFIG_H
#define KOPT_CPU_GROUPED_CONFIG_H

// Columns of C accumulated together for one row (1, 4, 8 or 16). A constant-width chunk lets the
// compiler keep it in vector registers and stream rows of B; 1 is a scalar dot product walking a
// column of B with stride N.
#define GG_N_CHUNK 1

// Rows of C (inside one group) that share each load of B (1, 2 or 4). Rows left over at the end of
// a group (its size need not be a multiple) run one at a time.
#define GG_ROW_BLOCK 1

#endif  // KOPT_CPU_GROUPED_CONFIG_H
