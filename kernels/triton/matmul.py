"""Triton matmul for kopt campaigns: C = A @ B (bf16/fp16 in, fp32 accumulate), with backward.

forward(a, b)            -> c        a [M, K], b [K, N], any strides
backward(a, b, grad_out) -> (da, db) da = grad_out @ b^T, db = a^T @ grad_out (the same kernel on
                                      transposed views: no copies)
matmul(a, b)             -> c        a torch.autograd.Function for use in models

The knobs below are plain module constants, read at every call: a round changes one of them.
Starting point: a grouped-tile kernel with one fixed configuration and no autotuning, so block
shape, warps and pipeline depth are all there to tune for the target GPU.

A planted slowdown for validating kopt's gate (docs/performance.md):
plant_slowdown((M, N, K), fraction) makes every tile of that problem run about `fraction` more
K-iterations on real data whose result is discarded, so the kernel does that much more work while
the harness keeps reporting the original size. Shapes not planted run the same binary with zero
extra iterations.
"""
import math

import torch
import triton
import triton.language as tl

# ---- knobs -------------------------------------------------------------------------------------
BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 32
GROUP_M = 8  # row tiles per group: consecutive programs share B tiles in L2
NUM_WARPS = 4
NUM_STAGES = 3
# -------------------------------------------------------------------------------------------------

PLANTED = {}  # (M, N, K) -> extra fraction of K-iterations; see plant_slowdown()


@triton.jit
def _matmul_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    extra_k_iters, discard,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # Grouped ordering of the output tiles: GROUP_M row tiles are walked before moving to the next
    # column block, so the programs running together reuse the same B columns from L2.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pids_per_group = GROUP_M * num_pid_n
    group = pid // pids_per_group
    first_m = group * GROUP_M
    rows_in_group = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % pids_per_group) % rows_in_group
    pid_n = (pid % pids_per_group) // rows_in_group

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # Out-of-range rows/columns read a valid row/column (wrap) and are masked at the store.
    rows = offs_m % M
    cols = offs_n % N
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn

    k_iters = tl.cdiv(K, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, k_iters):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # Planted extra work (zero iterations unless planted): real loads and real MMAs into the same
    # accumulator, with A scaled by a runtime zero so the result is exactly unchanged and the
    # compiler cannot drop the work. Same accumulator: no extra registers in the unplanted kernel.
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn
    for k in range(0, extra_k_iters):
        kk = k % k_iters
        k_left = K - kk * BLOCK_K
        a = tl.load(a_ptrs + kk * BLOCK_K * stride_ak, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs + kk * BLOCK_K * stride_bk, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot((a * discard).to(b.dtype), b, acc)

    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _check_2d(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError("matmul: a and b must be 2-D, got %s and %s" % (tuple(a.shape), tuple(b.shape)))
    if a.shape[1] != b.shape[0]:
        raise ValueError("matmul: inner dimensions differ: a %s, b %s" % (tuple(a.shape), tuple(b.shape)))
    if a.dtype != b.dtype:
        raise ValueError("matmul: a is %s but b is %s" % (a.dtype, b.dtype))


def _launch(a, b, extra_fraction=0.0):
    _check_2d(a, b)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    k_iters = triton.cdiv(K, BLOCK_K)
    extra_k_iters = max(1, round(extra_fraction * k_iters)) if extra_fraction > 0 else 0
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    _matmul_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        extra_k_iters, 0.0,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
        num_warps=NUM_WARPS, num_stages=NUM_STAGES,
    )
    return c


def plant_slowdown(dims, fraction):
    """Make problem `dims` = (M, N, K) (forward; its backward GEMMs too) run `fraction` more
    K-iterations. Returns the extra fraction actually planted in the forward GEMM (whole
    iterations: e.g. 4/128 = 3.1% for K=4096 and BLOCK_K=32)."""
    if not (0 < fraction < 1):
        raise ValueError("planted fraction must be in (0, 1), got %r" % fraction)
    M, N, K = (int(x) for x in dims)
    PLANTED[(M, N, K)] = float(fraction)
    k_iters = math.ceil(K / BLOCK_K)
    return max(1, round(fraction * k_iters)) / k_iters


def forward(a, b):
    _check_2d(a, b)
    f = PLANTED.get((a.shape[0], b.shape[1], a.shape[1]), 0.0)
    return _launch(a, b, f)


def backward(a, b, grad_out):
    _check_2d(a, b)
    M, K = a.shape
    N = b.shape[1]
    if tuple(grad_out.shape) != (M, N):
        raise ValueError("matmul backward: grad_out is %s, expected %s" % (tuple(grad_out.shape), (M, N)))
    f = PLANTED.get((M, N, K), 0.0)
    da = _launch(grad_out, b.t(), f)  # [M, N] @ [N, K]
    db = _launch(a.t(), grad_out, f)  # [K, M] @ [M, N]
    return da, db


class _MatmulFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return forward(a, b)

    @staticmethod
    def backward(ctx, grad_out):
        a, b = ctx.saved_tensors
        return backward(a, b, grad_out.contiguous())


def matmul(a, b):
    return _MatmulFn.apply(a, b)
