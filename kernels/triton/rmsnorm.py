"""Triton RMSNorm for kopt campaigns (memory-bound): y = x / sqrt(mean(x^2) + eps) * w over the
last dimension, with an explicit backward. bf16/fp16/fp32 in, fp32 math.

forward(x, w)               -> y             x [rows, N], w [N]
backward(x, w, grad_out)    -> (dx, dw)      rstd is recomputed from x (no saved state)
rmsnorm(x, w)               -> y             a torch.autograd.Function for use in models
make_inputs / reference_forward / reference_backward / bytes_moved: the quick harness's hooks
(KIND = "memory"; see harness/python/quick_test_bench.py).

Knobs are module constants read at every call. Starting point: one program per row in forward,
a fixed number of backward programs each owning a contiguous band of rows and writing a partial dw
that torch sums; the whole row in registers (BLOCK_N = next power of two of N). Two code paths sit
behind knobs, off at the start: BWD_PREFETCH (load the next row during this row's reductions) and
DW_SUM = "triton" (sum and cast the partial dw rows in one launch).

Planted slowdown (gate validation): plant_slowdown((M, N), fraction) launches that many more row
programs (forward) / walks that many more rows in every backward program's band (ceil(fraction x
rows per program)), each reading a real row and writing to a scratch buffer, so the kernel moves
about `fraction` more bytes while the harness reports the original size.
"""
import math

import torch
import triton
import triton.language as tl

EPS = 1e-6  # part of the function (the reference reads it): kopt refuses a round that changes it

# ---- knobs -------------------------------------------------------------------------------------
FWD_NUM_WARPS = 8
BWD_NUM_WARPS = 8
BWD_PROGRAMS = 264  # programs in backward (each owns ceil(rows / BWD_PROGRAMS) rows); 2 x H200 SMs
BWD_NUM_STAGES = 3  # software-pipeline depth of the backward's row loop (Triton's default on sm_90)
BWD_ROWS_TILE = 0  # > 0: the backward loads max(1, BWD_ROWS_TILE // BLOCK_N) rows per step (a power of two)
BWD_PREFETCH = False  # True: the backward loads row r+1 while it reduces row r (_rmsnorm_bwd_prefetch_kernel)
DW_SUM = "torch"  # "triton": the partial dw rows are summed and cast in one launch (_dw_sum_kernel)
# -------------------------------------------------------------------------------------------------

PLANTED = {}  # (rows, N) -> extra fraction of rows; see plant_slowdown()


@triton.jit
def _rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, scratch_ptr, rows, N, stride_x, stride_y, eps,
                        BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    row = pid % rows  # programs past `rows` exist only when planted: they redo a real row
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    y = (x * rstd * w).to(y_ptr.dtype.element_ty)
    if pid < rows:
        tl.store(y_ptr + row * stride_y + cols, y, mask=mask)
    else:
        tl.store(scratch_ptr + (pid - rows) * N + cols, y, mask=mask)


@triton.jit
def _rmsnorm_bwd_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, dw_part_ptr, scratch_ptr,
                        rows, N, rows_per_program, planted_rows, stride_x, stride_dy, stride_dx, eps,
                        BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    first = pid * rows_per_program
    # Steps past rows_per_program exist only when planted: they redo the band's first rows into
    # scratch and leave dw alone.
    for r in range(0, rows_per_program + planted_rows):
        row = first + r % rows_per_program
        # Rows past the end (last band) load zeros: xhat = 0, so they add nothing to dw and store
        # nothing. Masks rather than a branch keep the loop body straight-line.
        live = mask & (row < rows)
        x = tl.load(x_ptr + row * stride_x + cols, mask=live, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_dy + cols, mask=live, other=0.0).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
        xhat = x * rstd
        wdy = w * dy
        c = tl.sum(xhat * wdy, axis=0) / N
        dx = ((wdy - xhat * c) * rstd).to(dx_ptr.dtype.element_ty)
        if r < rows_per_program:
            dw += dy * xhat
            tl.store(dx_ptr + row * stride_dx + cols, dx, mask=live)
        else:
            tl.store(scratch_ptr + (pid * planted_rows + r - rows_per_program) * N + cols, dx, mask=live)
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=mask)


@triton.jit
def _rmsnorm_bwd_rows_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, dw_part_ptr, scratch_ptr,
                             rows, N, rows_per_program, planted_rows, stride_x, stride_dy, stride_dx, eps,
                             BLOCK_N: tl.constexpr, ROWS: tl.constexpr):
    """_rmsnorm_bwd_kernel with ROWS rows per loop step as one [ROWS, BLOCK_N] tile: more loads in
    flight per program without more programs (which would add partial dw rows to sum)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    sub = tl.arange(0, ROWS)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    first = pid * rows_per_program
    steps = rows_per_program + planted_rows
    for r in range(0, steps, ROWS):
        step = r + sub  # steps of this band; past `steps` they belong to the next band
        row = first + step % rows_per_program
        real = step < rows_per_program  # planted steps redo rows into scratch, outside dw
        live = mask[None, :] & ((row < rows) & (step < steps))[:, None]
        x = tl.load(x_ptr + row[:, None] * stride_x + cols[None, :], mask=live, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row[:, None] * stride_dy + cols[None, :], mask=live, other=0.0).to(tl.float32)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
        xhat = x * rstd[:, None]
        wdy = w[None, :] * dy
        c = tl.sum(xhat * wdy, axis=1) / N
        dx = ((wdy - xhat * c[:, None]) * rstd[:, None]).to(dx_ptr.dtype.element_ty)
        dw += tl.sum(tl.where(real[:, None], dy * xhat, 0.0), axis=0)
        tl.store(dx_ptr + row[:, None] * stride_dx + cols[None, :], dx, mask=live & real[:, None])
        spare = pid * planted_rows + step - rows_per_program
        tl.store(scratch_ptr + spare[:, None] * N + cols[None, :], dx, mask=live & (step >= rows_per_program)[:, None])
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=mask)


@triton.jit
def _rmsnorm_bwd_prefetch_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, dw_part_ptr, scratch_ptr,
                                 rows, N, rows_per_program, planted_rows, stride_x, stride_dy, stride_dx, eps,
                                 BLOCK_N: tl.constexpr):
    """_rmsnorm_bwd_kernel with the next row's x and dy loaded before this row's two block-wide
    reductions. Each program walks its band one row at a time, and every row waits on its loads and
    then on two reductions with barriers; with two programs per SM that leaves HBM idle while the
    reductions run. Holding the next row in registers (bf16, half the registers of fp32) keeps
    one row's loads in flight during the other's math."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    first = pid * rows_per_program
    steps = rows_per_program + planted_rows
    first_live = mask & (first < rows)
    x_next = tl.load(x_ptr + first * stride_x + cols, mask=first_live, other=0.0)
    dy_next = tl.load(dy_ptr + first * stride_dy + cols, mask=first_live, other=0.0)
    for r in range(0, steps):
        row = first + r % rows_per_program
        live = mask & (row < rows)
        x = x_next.to(tl.float32)
        dy = dy_next.to(tl.float32)
        # Issue the next row's loads now; nothing below reads them until the next step.
        next_row = first + (r + 1) % rows_per_program
        next_live = mask & (next_row < rows) & (r + 1 < steps)
        x_next = tl.load(x_ptr + next_row * stride_x + cols, mask=next_live, other=0.0)
        dy_next = tl.load(dy_ptr + next_row * stride_dy + cols, mask=next_live, other=0.0)
        rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
        xhat = x * rstd
        wdy = w * dy
        c = tl.sum(xhat * wdy, axis=0) / N
        dx = ((wdy - xhat * c) * rstd).to(dx_ptr.dtype.element_ty)
        if r < rows_per_program:
            dw += dy * xhat
            tl.store(dx_ptr + row * stride_dx + cols, dx, mask=live)
        else:
            tl.store(scratch_ptr + (pid * planted_rows + r - rows_per_program) * N + cols, dx, mask=live)
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=mask)


@triton.jit
def _dw_sum_kernel(part_ptr, dw_ptr, parts, N, BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    """dw[c] = sum over the first `parts` partial rows, cast to dw's dtype: one launch where
    torch's sum and cast take two. Each program owns BLOCK_C columns and loads BLOCK_P partial rows
    per step (all of them at once for up to BLOCK_P programs)."""
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    col_live = cols < N
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for p in range(0, parts, BLOCK_P):
        part = p + tl.arange(0, BLOCK_P)
        live = (part < parts)[:, None] & col_live[None, :]
        tile = tl.load(part_ptr + part[:, None] * N + cols[None, :], mask=live, other=0.0)
        acc += tl.sum(tile, axis=0)
    tl.store(dw_ptr + cols, acc.to(dw_ptr.dtype.element_ty), mask=col_live)


def _sum_partials(dw_part, parts, dtype):
    if DW_SUM == "torch":
        return dw_part[:parts].sum(dim=0).to(dtype)
    if DW_SUM != "triton":
        raise ValueError("rmsnorm: DW_SUM must be 'torch' or 'triton', got %r" % (DW_SUM,))
    N = dw_part.shape[1]
    dw = torch.empty((N,), device=dw_part.device, dtype=dtype)
    block_c = 32
    _dw_sum_kernel[(triton.cdiv(N, block_c),)](dw_part, dw, parts, N,
                                              BLOCK_P=min(triton.next_power_of_2(parts), 512),
                                              BLOCK_C=block_c, num_warps=8)
    return dw


def _rows_per_step(block_n):
    rows = 1
    while BWD_ROWS_TILE > 0 and rows * 2 * block_n <= BWD_ROWS_TILE:
        rows *= 2
    return rows


def _block_n(N):
    return triton.next_power_of_2(N)


def _check(x, w):
    if x.dim() != 2 or w.dim() != 1 or x.shape[1] != w.shape[0]:
        raise ValueError("rmsnorm: x must be [rows, N] and w [N], got %s and %s" % (tuple(x.shape), tuple(w.shape)))
    if x.stride(1) != 1:
        raise ValueError("rmsnorm: the last dimension of x must be contiguous")


def _extra(count, fraction):
    return max(1, math.ceil(fraction * count)) if fraction > 0 else 0


def forward(x, w):
    _check(x, w)
    rows, N = x.shape
    w = w.contiguous()
    y = torch.empty_like(x)
    extra = _extra(rows, PLANTED.get((rows, N), 0.0))
    scratch = torch.empty((max(extra, 1), N), device=x.device, dtype=x.dtype)
    _rmsnorm_fwd_kernel[(rows + extra,)](x, w, y, scratch, rows, N, x.stride(0), y.stride(0), EPS,
                                         BLOCK_N=_block_n(N), num_warps=FWD_NUM_WARPS)
    return y


def backward(x, w, grad_out):
    _check(x, w)
    rows, N = x.shape
    if tuple(grad_out.shape) != (rows, N) or grad_out.stride(1) != 1:
        raise ValueError("rmsnorm backward: grad_out must be a [rows, N] tensor with a contiguous last dim")
    w = w.contiguous()
    programs = min(BWD_PROGRAMS, rows)
    rows_per_program = triton.cdiv(rows, programs)
    programs = triton.cdiv(rows, rows_per_program)
    # Planted work goes inside each program (more rows per band), not into more programs: a few
    # programs past a full wave would run as a second wave and cost a whole band's time.
    planted_rows = _extra(rows_per_program, PLANTED.get((rows, N), 0.0))
    dx = torch.empty_like(x)
    dw_part = torch.empty((programs, N), device=x.device, dtype=torch.float32)
    scratch = torch.empty((max(programs * planted_rows, 1), N), device=x.device, dtype=x.dtype)
    args = (x, w, grad_out, dx, dw_part, scratch, rows, N, rows_per_program, planted_rows,
            x.stride(0), grad_out.stride(0), dx.stride(0), EPS)
    step_rows = _rows_per_step(_block_n(N))
    if step_rows == 1:
        kernel = _rmsnorm_bwd_prefetch_kernel if BWD_PREFETCH else _rmsnorm_bwd_kernel
        kernel[(programs,)](*args, BLOCK_N=_block_n(N), num_warps=BWD_NUM_WARPS, num_stages=BWD_NUM_STAGES)
    else:
        _rmsnorm_bwd_rows_kernel[(programs,)](*args, BLOCK_N=_block_n(N), ROWS=step_rows,
                                              num_warps=BWD_NUM_WARPS, num_stages=BWD_NUM_STAGES)
    return dx, _sum_partials(dw_part, programs, w.dtype)


def plant_slowdown(dims, fraction):
    """Make (rows, N) move about `fraction` more bytes in forward and backward. Returns the
    forward's planted fraction (whole rows)."""
    if not (0 < fraction < 1):
        raise ValueError("planted fraction must be in (0, 1), got %r" % fraction)
    rows, N = (int(d) for d in dims)
    PLANTED[(rows, N)] = float(fraction)
    return _extra(rows, fraction) / rows


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
