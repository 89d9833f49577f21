"""A grouped GEMM (MoE experts) for kopt campaigns: tokens x [T, K] split into G consecutive groups
of sizes[g] rows (sum = T, any sizes: skewed, empty, not tile-aligned); group g is multiplied by
its own weight w[g] [K, N]. It is the GPU target of the exploit suite's class 10 (docs/integrity.md):
the group sizes are inputs drawn from the harness's seeded generator, so a candidate that assumes
equal groups (kernels/triton_exploits/grouped_uniform.py) fails the harness's check.

forward(x, w, sizes)                  -> y [T, N]
backward(x, w, sizes, grad_out)       -> (dx, dw)
make_inputs / reference_forward / reference_backward / bytes_moved: the quick harness's hooks
(KIND = "memory"; see harness/python/quick_test_bench.py).

The honest implementation needs no host synchronisation (sizes stay on the device): each row's
group comes from a searchsorted over the groups' ends, and each expert's product is masked to its
rows. G dense products instead of one grouped one: correct for every size vector, not fast; a
campaign would make it fast.
"""
import torch

GROUPS = 8


def _group_of_rows(sizes, rows):
    ends = torch.cumsum(sizes.to(torch.int64), 0)
    return torch.searchsorted(ends, torch.arange(rows, device=sizes.device), right=True)


def forward(x, w, sizes):
    gid = _group_of_rows(sizes, x.shape[0]).unsqueeze(1)
    y = torch.zeros((x.shape[0], w.shape[2]), device=x.device, dtype=torch.float32)
    for g in range(w.shape[0]):
        y = torch.where(gid == g, x @ w[g], y)
    return y.to(x.dtype)


def backward(x, w, sizes, grad_out):
    gid = _group_of_rows(sizes, x.shape[0]).unsqueeze(1)
    dx = torch.zeros_like(x, dtype=torch.float32)
    dw = torch.empty_like(w)
    for g in range(w.shape[0]):
        mine = gid == g
        dy_g = torch.where(mine, grad_out, torch.zeros((), device=x.device, dtype=grad_out.dtype))
        dx = dx + dy_g @ w[g].t()
        dw[g] = x.t() @ dy_g
    return dx.to(x.dtype), dw


# ---- quick-harness hooks (KIND = "memory") -----------------------------------------------------

def _sizes(rows, groups, generator, device):
    """One of four skewed size vectors (never all equal), chosen and shaped by the generator: one
    group with most tokens, empty groups, sizes just off the tile, or random proportions."""
    r = torch.rand(groups + 2, generator=generator, device=device).tolist()
    kind = int(r[0] * 4) % 4
    if kind == 0:  # one group holds over half the tokens
        big = rows // 2 + 1 + int(r[1] * rows // 8)
        sizes = [big] + [(rows - big) // (groups - 1)] * (groups - 1)
    elif kind == 1:  # a third of the groups hold every token, the rest are empty
        live = max(1, groups // 3)
        sizes = [rows // live if g % 3 == 0 and g // 3 < live else 0 for g in range(groups)]
    elif kind == 2:  # just below T/G, not a multiple of a 64-row tile
        sizes = [rows // groups - 1 - int(r[2 + g % groups] * 60) for g in range(groups)]
    else:  # random proportions
        share = [0.05 + v for v in r[2:2 + groups]]
        sizes = [int(rows * s / sum(share)) for s in share]
    sizes[-1] += rows - sum(sizes)
    return torch.tensor(sizes, device=device, dtype=torch.int32)


def make_inputs(shape, dtype, device, generator):
    """x [M, K] ~ N(0, 1); w [G, K, N] ~ N(0, 1/K), K = N (a memory-schema shape has no K); sizes
    [G] int32 drawn by _sizes()."""
    rows, N = shape["B"] * shape["M"], shape["N"]
    K = shape.get("K", N)
    x = torch.randn((rows, K), generator=generator, device=device, dtype=torch.float32).to(dtype)
    w = (torch.randn((GROUPS, K, N), generator=generator, device=device, dtype=torch.float32) / K ** 0.5).to(dtype)
    return x, w, _sizes(rows, GROUPS, generator, device)


def reference_forward(x, w, sizes):
    """Group by group in fp32, with the sizes on the host (the reference is not timed)."""
    y = torch.empty((x.shape[0], w.shape[2]), device=x.device, dtype=torch.float32)
    start = 0
    for g, m in enumerate(sizes.tolist()):
        y[start:start + m] = x[start:start + m].float() @ w[g].float()
        start += m
    return y


def reference_backward(x, w, sizes, grad_out):
    dx = torch.empty(x.shape, device=x.device, dtype=torch.float32)
    dw = torch.empty(w.shape, device=x.device, dtype=torch.float32)
    start = 0
    for g, m in enumerate(sizes.tolist()):
        dy = grad_out[start:start + m].float()
        dx[start:start + m] = dy @ w[g].float().t()
        dw[g] = x[start:start + m].float().t() @ dy
        start += m
    return dx, dw


def bytes_moved(shape, inputs, outputs, direction):
    """Minimum traffic: forward reads x and w, writes y; backward reads x, w, dy, writes dx, dw."""
    x, w = inputs[0], inputs[1]
    xb, wb = x.numel() * x.element_size(), w.numel() * w.element_size()
    yb = x.shape[0] * w.shape[2] * x.element_size()
    return xb + wb + yb if direction == "forward" else 2 * xb + 2 * wb + yb
