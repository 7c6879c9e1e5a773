"""gemmlab inside PyTorch models: an operator with autograd that torch.compile traces, a Linear.

    import torch, gemmlab.torch as gt

    y = gt.matmul(x, w)                     # torch.matmul's semantics, gradients through gemmlab
    layer = gt.Linear(1024, 4096, device="cuda", dtype=torch.bfloat16)
    model = gt.convert(model)               # every torch.nn.Linear of a model now multiplies through gemmlab
    with gt.routed():                       # or route torch.matmul / @ / mm / bmm / F.linear for a block
        y = model(x)

The operator is ``torch.ops.gemmlab.matmul(a, b, out_float32=False, precision="default",
rung="auto")`` (rung: gemmlab's kernel choice), registered with ``torch.library.custom_op``: a fake (meta) implementation gives
torch.compile the output's shape and dtype without running it, so ``torch.compile(fullgraph=True)``
keeps it in the graph, and an autograd formula computes both backward products through gemmlab
(dA = dC B^T, dB = A^T dC, each summed over the batch dimensions it was broadcast along). It
enqueues on torch's current stream and allocates through torch's caching allocator, so it can be
captured in a CUDA graph (torch.cuda.graph, or torch.compile(mode="reduce-overhead")).
"""

from __future__ import annotations

import contextlib
from typing import Any, Optional

import torch

from . import GemmlabError
from . import _gemmlab as _core

__all__ = ["matmul", "linear", "Linear", "convert", "routed"]

_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
_HALF = (torch.bfloat16, torch.float16)


@torch.library.custom_op("gemmlab::matmul", mutates_args=())
def _matmul(a: torch.Tensor, b: torch.Tensor, out_float32: bool = False, precision: str = "default",
            rung: str = "auto") -> torch.Tensor:
    # (`rung`, not `kernel`: inductor's FallbackKernel.create takes a `kernel` argument of its own.)
    r = _core.call(a, b, None, 1.0, 0.0, False, False, False, "float32" if out_float32 else None, precision,
                   rung, None, 0)
    if r is None:
        raise TypeError("gemmlab::matmul takes torch tensors")
    if r.__class__ is tuple:
        raise GemmlabError(*r)
    return r


@_matmul.register_fake
def _matmul_fake(a, b, out_float32=False, precision="default", rung="auto"):
    torch._check(a.dim() >= 2 and b.dim() >= 2,
                 lambda: "gemmlab::matmul takes operands of 2 or more dimensions (gemmlab.torch.matmul "
                         f"gives 1-D ones their unit dimension); got {tuple(a.shape)} and {tuple(b.shape)}")
    torch._check(a.dtype == b.dtype, lambda: f"dtype mismatch: a is {a.dtype} but b is {b.dtype}")
    torch._check(a.dtype in _DTYPES, lambda: f"a has dtype {a.dtype}; gemmlab multiplies "
                                             + ", ".join(str(d) for d in _DTYPES))
    torch._check(not out_float32 or a.dtype in _HALF + (torch.float32,),
                 lambda: f"out_float32 is offered for bfloat16/float16 inputs, not {a.dtype}")
    torch._check(a.shape[-1] == b.shape[-2],
                 lambda: f"shape mismatch: a {tuple(a.shape)} @ b {tuple(b.shape)}: inner dimensions "
                         f"{a.shape[-1]} != {b.shape[-2]}")
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return a.new_empty((*batch, a.shape[-2], b.shape[-1]), dtype=torch.float32 if out_float32 else a.dtype)


def _sum_to(x: torch.Tensor, shape) -> torch.Tensor:
    """x summed over the dimensions that broadcasting added to or stretched in `shape`."""
    if tuple(x.shape) == tuple(shape):
        return x
    lead = x.dim() - len(shape)
    if lead:
        x = x.sum(dim=tuple(range(lead)))
    stretched = [i for i, s in enumerate(shape) if s == 1 and x.shape[i] != 1]
    if stretched:
        x = x.sum(dim=stretched, keepdim=True)
    return x


def _setup_context(ctx, inputs, output):
    a, b, _out_float32, precision, kernel = inputs
    ctx.save_for_backward(a, b)
    ctx.config = (precision, kernel)


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    precision, kernel = ctx.config
    # A float32 result of half inputs: its gradient multiplies in the inputs' type. A broadcast
    # gradient (stride 0, e.g. of .sum()) has no leading dimension: made contiguous first.
    grad = grad.to(a.dtype).contiguous()
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = _sum_to(_op(grad, b.mT, False, precision, kernel), a.shape)
    if ctx.needs_input_grad[1]:
        if a.dim() > 2 and b.dim() == 2:
            # B shared by every batch: one product with the batch folded into k.
            grad_b = _op(a.reshape(-1, a.shape[-1]).mT, grad.reshape(-1, grad.shape[-1]), False, precision, kernel)
        else:
            grad_b = _sum_to(_op(a.mT, grad, False, precision, kernel), b.shape)
    return grad_a, grad_b, None, None, None


_matmul.register_autograd(_backward, setup_context=_setup_context)
_op = torch.ops.gemmlab.matmul.default  # what the functions below call (and torch.compile traces)
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def _mm(a, b, out_float32: bool, precision: str, kernel: str) -> torch.Tensor:
    """The operator, or where nothing needs it (eager, plain tensors, no gradient to record)
    the C++ door it wraps, which skips the dispatcher's Python layers (about half the host cost
    of a call, scripts/bench-torch.py)."""
    if (not torch.compiler.is_compiling() and type(a) in _PLAIN and type(b) in _PLAIN
            and not (torch.is_grad_enabled() and (a.requires_grad or b.requires_grad))):
        r = _core.call(a, b, None, 1.0, 0.0, False, False, False, "float32" if out_float32 else None, precision,
                       kernel, None, 0)
        if r.__class__ is tuple:
            raise GemmlabError(*r)
        return r
    return _op(a, b, out_float32, precision, kernel)


def _out_float32(a: torch.Tensor, out_dtype: Any) -> bool:
    if out_dtype is None:
        return False
    name = str(out_dtype).replace("torch.", "")
    if name == str(a.dtype).replace("torch.", ""):
        return False
    if name == "float32" and a.dtype in _HALF:
        return True
    raise TypeError(f"out_dtype {out_dtype} is not offered for {a.dtype} inputs: the output is {a.dtype}"
                    + (" or torch.float32" if a.dtype in _HALF else ""))


def matmul(a: torch.Tensor, b: torch.Tensor, *, out_dtype: Any = None, precision: str = "default",
           kernel: str = "auto") -> torch.Tensor:
    """``torch.matmul(a, b)`` through gemmlab, with autograd and torch.compile support.

    out_dtype: None (the inputs' dtype) or torch.float32 for bfloat16/float16 inputs.
    precision: "default", "tf32" (float32 only) or "int8_emulation" (float32 and float64);
    kernel: "auto" or a rung (gemmlab.kernels())."""
    f32 = _out_float32(a, out_dtype)
    if a.dim() >= 2 and b.dim() >= 2:
        return _mm(a, b, f32, precision, kernel)
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError(f"matmul: both operands need at least one dimension; got shapes {tuple(a.shape)} "
                         f"and {tuple(b.shape)}")
    y = _mm(a.unsqueeze(0) if a.dim() == 1 else a, b.unsqueeze(-1) if b.dim() == 1 else b, f32, precision, kernel)
    if b.dim() == 1:
        y = y.squeeze(-1)
    if a.dim() == 1:
        y = y.squeeze(-2)
    return y


def linear(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None, *,
           precision: str = "default", kernel: str = "auto") -> torch.Tensor:
    """``torch.nn.functional.linear`` through gemmlab: x @ weight^T (+ bias). The leading
    dimensions of x are folded into the rows of one product."""
    lead = x.shape[:-1]
    x2 = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
    y = _mm(x2, weight.mT, False, precision, kernel)
    if bias is not None:
        y = y + bias
    return y if x.dim() == 2 else y.reshape(*lead, weight.shape[0])


class Linear(torch.nn.Linear):
    """``torch.nn.Linear`` whose products (forward and backward) run through gemmlab."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None, *,
                 precision: str = "default", kernel: str = "auto"):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.precision = precision
        self.kernel = kernel

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear(x, self.weight, self.bias, precision=self.precision, kernel=self.kernel)

    def extra_repr(self) -> str:
        return super().extra_repr() + f", precision={self.precision!r}, kernel={self.kernel!r}"


def convert(model: torch.nn.Module, *, precision: str = "default", kernel: str = "auto") -> torch.nn.Module:
    """Routes every ``torch.nn.Linear`` of `model` (itself included) through gemmlab, in place
    (the modules keep their parameters; their class becomes gemmlab.torch.Linear). Returns model."""
    for module in model.modules():
        if type(module) is torch.nn.Linear:
            module.__class__ = Linear
            module.precision = precision
            module.kernel = kernel
    return model


def _routable(*tensors) -> bool:
    dtype = tensors[0].dtype if isinstance(tensors[0], torch.Tensor) else None
    return all(isinstance(t, torch.Tensor) and t.is_cuda and t.dtype == dtype and t.dim() >= 1 for t in tensors) \
        and dtype in _DTYPES


class _Routing(torch.overrides.TorchFunctionMode):
    def __init__(self, precision: str, kernel: str):
        super().__init__()
        self.precision, self.kernel = precision, kernel

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _MATMULS and len(args) == 2 and not kwargs and _routable(*args):
            return matmul(args[0], args[1], precision=self.precision, kernel=self.kernel)
        if func is torch.nn.functional.linear and set(kwargs) <= {"bias"} and 2 <= len(args) <= 3:
            bias = args[2] if len(args) == 3 else kwargs.get("bias")
            if _routable(*args[:2]) and (bias is None or _routable(args[0], bias)):
                return linear(args[0], args[1], bias, precision=self.precision, kernel=self.kernel)
        return func(*args, **kwargs)


_MATMULS = {torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__, torch.mm, torch.Tensor.mm, torch.bmm,
            torch.Tensor.bmm}


@contextlib.contextmanager
def routed(*, precision: str = "default", kernel: str = "auto"):
    """Within the block, ``torch.matmul``, ``@``, ``mm``, ``bmm`` and ``F.linear`` on CUDA tensors
    of one gemmlab dtype run through gemmlab (with autograd); anything else runs as before. Eager
    mode (torch.compile traces gemmlab.torch.matmul / Linear directly)."""
    with _Routing(precision, kernel):
        yield
