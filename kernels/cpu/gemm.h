// The CPU GEMM under optimisation: fp32 in, fp32 out, row-major, single-threaded.
// The bench harness (bench.cpp) calls only these two functions.
#ifndef KOPT_CPU_GEMM_H
#define KOPT_CPU_GEMM_H

namespace cpu_gemm {

// C[M x N] = A[M x K] * B[K x N]. C is fully overwritten (its previous contents are garbage).
void forward(const float* A, const float* B, float* C, int M, int N, int K);

// dA[M x K] = dC[M x N] * B^T and dB[K x N] = A^T * dC. dA and dB are fully overwritten.
void backward(const float* dC, const float* A, const float* B, float* dA, float* dB, int M, int N,
              int K);

// One line naming the knob values this build was compiled with (for logs).
const char* config_string();

}  // namespace cpu_gemm

#endif  // KOPT_CPU_GEMM_H
