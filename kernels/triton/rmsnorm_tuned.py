"""An autotuned Triton RMSNorm for kopt campaigns (memory-bound), built with the traits that kernels
users bring tend to have: y = x / sqrt(mean(x^2) + eps) * w over the last dimension, bf16 (or
fp16/fp32) in, fp32 math, forward and backward.

forward(x, w)               -> y             x [rows, N], w [N]; one program per row
backward(x, w, grad_out)    -> (dx, dw)      an @triton.autotune'd kernel (key: rows, N) that runs
                                             a fixed number of grid-stride programs
rmsnorm(x, w)               -> y             a torch.autograd.Function for use in models
make_inputs / reference_forward / reference_backward / bytes_moved: the quick harness's hooks
(KIND = "memory"; see harness/python/quick_test_bench.py).

The backward recomputes rstd from x: one more reduction per row and no bytes. (A module can have
the harness hand its backward what its forward saved, FORWARD_SAVES in harness/CONTRACT.md; this
one keeps the plain signature that rmsnorm.py has.) The module stands alone, as a user's kernel
package would: its hooks and autograd wrapper repeat rmsnorm.py's on purpose, so a campaign on it
reads no other kernel file.

Backward: PROGRAMS_PER_SM x the SM count (torch.cuda.get_device_properties) programs, program p
taking row tiles p, p + programs, p + 2 programs, ... (`range(pid * ROWS, rows, programs * ROWS)`),
each tile ROWS whole rows in registers (BLOCK_N = next power of two of N), and each program writing
one partial dw row that torch sums. The autotuner picks num_warps, num_stages and TILE (elements per
step: ROWS = max(1, TILE // BLOCK_N) rows, so only rows of up to 1024 elements take two at a time).

Knobs are module constants read at every call, so one round of a campaign is one edited line:
- ROW_REVISIT_FRACTION (0.0): the backward walks that fraction of its row tiles a second time, each
  program its own first tiles, loading x and dy and storing the same dx again (dw counts them once):
  that many more bytes, the result unchanged. The extra tiles go to the programs from the last one
  down, which are the ones with a tile fewer when the tiles do not divide evenly, so the busiest
  program gets no more than the others. 0.03 is about 3 % slower on every shape.
- SMALL_ROW_PROGRAMS_PER_SM (1): rows of at most SMALL_ROW_MAX elements get that many backward
  programs per SM instead of PROGRAMS_PER_SM. At 1 an SM holds one program, which has one or two
  4 KB row tiles in flight at a time (the autotuner cannot add more): far from enough to keep HBM
  busy, so 4 (four programs per SM) is a real speed-up of the 65536 x 1024 shape alone.
- DX_SCALE (1.0): dx is multiplied by it. 1.05 is a correctness break: dx 5 % off fails the
  harness's bf16 check (allclose at rtol = atol = 1e-2, and a per-call SNR floor of 30 dB; 5 % is
  26 dB). 1.01 would not: 1 % stays inside rtol and reads 40 dB.
- FWD_NUM_WARPS (8): the forward's warps; `2 * 4` is the same number spelled differently (a
  neutral change of the kernel file).
EPS is part of the function (the reference reads it): kopt refuses a round that changes it.
"""
import math

import torch
import triton
import triton.language as tl

EPS = 1e-6

# ---- knobs -------------------------------------------------------------------------------------
FWD_NUM_WARPS = 8
PROGRAMS_PER_SM = 2  # backward programs per SM (grid-stride over the rows)
SMALL_ROW_PROGRAMS_PER_SM = 1  # backward programs per SM when N <= SMALL_ROW_MAX
SMALL_ROW_MAX = 1024
ROW_REVISIT_FRACTION = 0.0  # the backward walks this fraction of its row tiles a second time
DX_SCALE = 1.0  # dx is multiplied by this: 1.0 is the gradient
# ---- end of knobs ----
# -------------------------------------------------------------------------------------------------

# The backward's autotuning space. TILE: elements per step (ROWS = max(1, TILE // BLOCK_N) rows).
BWD_CONFIGS = [
    triton.Config({"TILE": 1024}, num_warps=4, num_stages=2),
    triton.Config({"TILE": 2048}, num_warps=4, num_stages=3),
    triton.Config({"TILE": 1024}, num_warps=8, num_stages=2),
    triton.Config({"TILE": 2048}, num_warps=16, num_stages=2),
]


@triton.jit
def _rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, N, stride_x, stride_y, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(y_ptr + row * stride_y + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _bwd_tile(x_ptr, dy_ptr, dx_ptr, w, first, rows, N, stride_x, stride_dy, stride_dx, eps, dx_scale,
              BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    """Rows first .. first + ROWS - 1 (those below `rows`): stores their dx and returns their
    contribution to dw ([BLOCK_N], fp32). Rows past the end load zeros and add nothing."""
    r = (first + tl.arange(0, ROWS)).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    live = (r < rows)[:, None] & (cols < N)[None, :]
    x = tl.load(x_ptr + r[:, None] * stride_x + cols[None, :], mask=live, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + r[:, None] * stride_dy + cols[None, :], mask=live, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
    xhat = x * rstd[:, None]
    wdy = w[None, :] * dy
    c = tl.sum(xhat * wdy, axis=1) / N
    dx = (wdy - xhat * c[:, None]) * rstd[:, None] * dx_scale
    tl.store(dx_ptr + r[:, None] * stride_dx + cols[None, :], dx.to(dx_ptr.dtype.element_ty), mask=live)
    return tl.sum(dy * xhat, axis=0)


@triton.autotune(configs=BWD_CONFIGS, key=["rows", "N"])
@triton.heuristics({"ROWS": lambda args: max(1, args["TILE"] // args["BLOCK_N"])})
@triton.jit
def _rmsnorm_bwd_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, dw_part_ptr, rows, N, revisit_rows,
                        stride_x, stride_dy, stride_dx, eps, dx_scale,
                        BLOCK_N: tl.constexpr, TILE: tl.constexpr, ROWS: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for first in range(pid * ROWS, rows, programs * ROWS):
        dw += _bwd_tile(x_ptr, dy_ptr, dx_ptr, w, first, rows, N, stride_x, stride_dy, stride_dx, eps, dx_scale,
                        BLOCK_N, ROWS)
    # ROW_REVISIT_FRACTION: revisit tiles t = 0 .. revisit_tiles - 1 of the grid, tile t walked by
    # program programs - 1 - (t % programs) as its own tile number t // programs (its dx stored again,
    # the same values; its dw dropped). By now those rows have left the L2 on every harness shape.
    revisit_tiles = (revisit_rows + ROWS - 1) // ROWS
    for t in range(programs - 1 - pid, revisit_tiles, programs):
        _bwd_tile(x_ptr, dy_ptr, dx_ptr, w, (pid + (t // programs) * programs) * ROWS, rows, N, stride_x, stride_dy,
                  stride_dx, eps, dx_scale, BLOCK_N, ROWS)
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=cols < N)


_SM_COUNT = {}


def _sm_count(device):
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNT:
        _SM_COUNT[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNT[index]


def _check(x, w):
    if x.dim() != 2 or w.dim() != 1 or x.shape[1] != w.shape[0]:
        raise ValueError("rmsnorm: x must be [rows, N] and w [N], got %s and %s" % (tuple(x.shape), tuple(w.shape)))
    if x.stride(1) != 1:
        raise ValueError("rmsnorm: the last dimension of x must be contiguous")


def backward_programs(rows, N, device):
    """The backward's grid: programs per SM (SMALL_ROW_PROGRAMS_PER_SM for rows of at most
    SMALL_ROW_MAX elements, else PROGRAMS_PER_SM) x the SM count, at most one per row."""
    per_sm = SMALL_ROW_PROGRAMS_PER_SM if N <= SMALL_ROW_MAX else PROGRAMS_PER_SM
    return max(1, min(int(per_sm) * _sm_count(device), rows))


def forward(x, w):
    _check(x, w)
    rows, N = x.shape
    w = w.contiguous()
    y = torch.empty_like(x)
    _rmsnorm_fwd_kernel[(rows,)](x, w, y, N, x.stride(0), y.stride(0), EPS, BLOCK_N=triton.next_power_of_2(N),
                                 num_warps=FWD_NUM_WARPS)
    return y


def backward(x, w, grad_out):
    _check(x, w)
    rows, N = x.shape
    if tuple(grad_out.shape) != (rows, N) or grad_out.stride(1) != 1:
        raise ValueError("rmsnorm backward: grad_out must be a [rows, N] tensor with a contiguous last dim")
    w = w.contiguous()
    programs = backward_programs(rows, N, x.device)
    revisit_rows = math.ceil(ROW_REVISIT_FRACTION * rows) if ROW_REVISIT_FRACTION > 0 else 0
    dx = torch.empty_like(x)
    dw_part = torch.empty((programs, N), device=x.device, dtype=torch.float32)
    _rmsnorm_bwd_kernel[(programs,)](x, w, grad_out, dx, dw_part, rows, N, revisit_rows,
                                     x.stride(0), grad_out.stride(0), dx.stride(0), EPS, float(DX_SCALE),
                                     BLOCK_N=triton.next_power_of_2(N))
    return dx, dw_part.sum(dim=0).to(w.dtype)


class _RMSNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return forward(x, w)

    @staticmethod
    def backward(ctx, grad_out):
        x, w = ctx.saved_tensors
        return backward(x, w, grad_out.contiguous())


def rmsnorm(x, w):
    return _RMSNormFn.apply(x, w)


# ---- quick-harness hooks (KIND = "memory") -----------------------------------------------------

def make_inputs(shape, dtype, device, generator):
    """x [B*M, N] ~ N(0, 1); w ~ 1 + 0.1 N(0, 1) (a trained-looking gain, never all ones)."""
    rows, N = shape["B"] * shape["M"], shape["N"]
    x = torch.randn((rows, N), generator=generator, device=device, dtype=torch.float32).to(dtype)
    w = (1.0 + 0.1 * torch.randn((N,), generator=generator, device=device, dtype=torch.float32)).to(dtype)
    return x, w


def reference_forward(x, w):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS) * w.float()


def reference_backward(x, w, grad_out):
    xf, wf, g = x.float(), w.float(), grad_out.float()
    N = xf.shape[-1]
    rstd = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + EPS)
    xhat = xf * rstd
    wdy = g * wf
    dx = (wdy - xhat * (xhat * wdy).sum(dim=-1, keepdim=True) / N) * rstd
    dw = (g * xhat).sum(dim=0)
    return dx, dw


def bytes_moved(shape, inputs, outputs, direction):
    """Minimum traffic: forward reads x and w, writes y; backward reads x, w, dy, writes dx, dw."""
    x, w = inputs[0], inputs[1]
    xb, wb = x.numel() * x.element_size(), w.numel() * w.element_size()
    if direction == "forward":
        return 2 * xb + wb
    return 3 * xb + 2 * wb
