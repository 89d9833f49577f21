"""Row softmax in Triton, bf16 in and out, fp32 math: the "plain repository with a Triton kernel"
of docs/byo-kernel.md. It starts deliberately plain (three passes over each row in chunks of
BLOCK, few warps) so a campaign has real headroom; the knobs below are read at every call.

The functions kopt's harness calls (memory-bound contract, harness/python/quick_test_bench.py):
make_inputs, forward, reference_forward.
"""
import torch
import triton
import triton.language as tl

BLOCK = 128      # columns per chunk; a row of N columns takes ceil(N / BLOCK) chunks per pass
NUM_WARPS = 4


@triton.jit
def _softmax_rows(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    # Pass 1: the row's maximum (per lane, then across lanes).
    m_lanes = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_lanes = tl.maximum(m_lanes, v)
    m = tl.max(m_lanes, axis=0)
    # Pass 2: the sum of exponentials.
    s_lanes = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        s_lanes += tl.exp(v - m)
    s = tl.sum(s_lanes, axis=0)
    # Pass 3: normalise and store.
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        tl.store(y_row + cols, (tl.exp(v - m) / s).to(y_ptr.dtype.element_ty), mask=cols < n_cols)


def make_inputs(shape, dtype, device, generator):
    rows, cols = shape["B"] * shape["M"], shape["N"]
    x = torch.randn(rows, cols, device=device, generator=generator, dtype=torch.float32) * 4
    return (x.to(dtype),)


def forward(x):
    y = torch.empty_like(x)
    _softmax_rows[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=BLOCK, num_warps=NUM_WARPS)
    return y


def reference_forward(x):
    return torch.softmax(x.float(), dim=-1)
