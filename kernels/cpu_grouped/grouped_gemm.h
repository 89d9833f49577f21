// The grouped CPU GEMM under optimisation (MoE-style): fp32, row-major, single-threaded.
// Group g multiplies its m_g rows of A by its own K x N matrix B_g. The rows of all groups are
// concatenated along M (group 0 first), the G matrices B_g are stored one after another, and any
// m_g may be 0. The bench harness (bench.cpp) calls only these two functions.
#ifndef KOPT_CPU_GROUPED_GEMM_H
#define KOPT_CPU_GROUPED_GEMM_H

// cpu_gemm:: so that kernels/cpu/build.sh's symbol audit (which admits only cpu_gemm:: symbols)
// applies to this kernel unchanged.
namespace cpu_gemm {
namespace grouped {

// C[M x N] = concat_g( A_g[m_g x K] * B_g[K x N] ), where A_g is rows [sum_{h<g} m_h, ... + m_g) of
// A[M x K], B_g = B + g*K*N, and sum_g m_g == M (the harness guarantees it). C is fully overwritten
// (its previous contents are garbage). group_m holds `groups` sizes, each >= 0.
void forward(const float* A, const float* B, float* C, const int* group_m, int groups, int M, int N,
             int K);

// One line naming the knob values this build was compiled with (for logs).
const char* config_string();

}  // namespace grouped
}  // namespace cpu_gemm

#endif  // KOPT_CPU_GROUPED_GEMM_H
