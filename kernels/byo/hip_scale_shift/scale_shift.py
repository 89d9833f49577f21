"""The Python face of scale_shift.hip for kopt's harness (memory-bound contract): inputs, the call
through ctypes on torch's current stream, and the fp32 reference. Build first: bash build.sh."""
import ctypes
import os

import torch

_LIB = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "build", "libscale_shift.so"))
_LIB.scale_shift_forward.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p]
_LIB.scale_shift_forward.restype = ctypes.c_int


def make_inputs(shape, dtype, device, generator):
    rows, hidden = shape["B"] * shape["M"], shape["N"]
    x = torch.randn(rows, hidden, device=device, generator=generator).to(dtype)
    w = torch.randn(hidden, device=device, generator=generator).to(dtype)
    b = torch.randn(hidden, device=device, generator=generator).to(dtype)
    return x, w, b


def forward(x, w, b):
    assert x.dtype == torch.bfloat16 and x.is_contiguous(), "scale_shift takes contiguous bf16"
    y = torch.empty_like(x)
    rc = _LIB.scale_shift_forward(x.data_ptr(), w.data_ptr(), b.data_ptr(), y.data_ptr(), x.shape[0], x.shape[1],
                                  torch.cuda.current_stream(x.device).cuda_stream)
    if rc != 0:
        raise RuntimeError("scale_shift_forward: runtime error %d" % rc)
    return y


def reference_forward(x, w, b):
    return x.float() * w.float() + b.float()
