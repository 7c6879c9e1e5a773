"""gemmlab from Python: the GEMM ladder on GPU arrays of any library that speaks DLPack or
``__cuda_array_interface__`` (PyTorch, CuPy, JAX); PyTorch is optional.

    import torch, gemmlab
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    c = gemmlab.matmul(a, b)                  # torch.matmul's semantics, kernel "auto"
    q = torch.randn(32, 1024, 64, device="cuda", dtype=torch.bfloat16)
    s = gemmlab.matmul(q, q.mT)               # batched, the transposed view read in place
    gemmlab.gemm(a, b.T, c, alpha=2, beta=1)  # BLAS form: c = 2 a b^T + c, in place

``gemmlab.gemm_fp8`` and ``gemmlab.gemm_int8`` run the 8-bit products (Hopper) on
torch.float8_e4m3fn / float8_e5m2 / int8 arrays with their scales.

``gemmlab.torch`` (imported on demand) adds the autograd / torch.compile operators and
``gemmlab.torch.Linear``. ``gemmlab.kernels()`` lists the rungs, ``gemmlab.bench()`` times one
beside cuBLAS. Failures of the library raise ``GemmlabError`` with its message; arguments it
cannot use raise ``TypeError``/``ValueError`` before any CUDA call.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Optional, Sequence

from . import _gemmlab as _core
from . import _interop
from . import _quantized

__all__ = ["GemmlabError", "gemm", "matmul", "gemm_fp8", "gemm_int8", "kernels", "quantized_kernels",
           "bench", "dtypes", "precisions", "device_count"]
__version__ = "0.2.0"

_call = _core.call  # the PyTorch door (C++): None when its arguments are not torch tensors


class GemmlabError(RuntimeError):
    """A gemmlab call failed. ``status`` is the library's Status name (``"InvalidLeadingDimension"``,
    ``"UnknownKernel"``, ``"NoDevice"``, ...), ``message`` is ``gemmlab::last_error()``."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def dtypes() -> list:
    """Names of the element types gemmlab multiplies: float32, float64, bfloat16, float16."""
    return [row["name"] for row in _interop.DTYPES]


def precisions() -> list:
    """Names accepted by ``precision=``: ``"default"`` (the input type's own accuracy),
    ``"tf32"`` (float32 on TF32 tensor cores, opt-in) and ``"int8_emulation"`` (float32 and
    float64 on INT8 tensor cores, rung 31, at the type's own accuracy; opt-in). ``"int8_emulation:N"``
    (N in 1..20) runs rung 31 with N moduli: the caller's own, lower accuracy (docs/precision.md)."""
    return list(_core.precisions())


def device_count() -> int:
    """CUDA devices visible to the library (0 without a GPU)."""
    return _core.device_count()


def kernels() -> list:
    """The GPU rungs, in ladder order (0 is cuBLAS): dicts with number, name, technique, seeds,
    types (dtype names), precision and engine. Needs no GPU."""
    return list(_core.kernels())


def _stream(stream: Any) -> Optional[int]:
    return None if stream is None else _interop.stream_handle(stream)


def _other(a, b, c, alpha, beta, trans_a, trans_b, two_d, out_dtype, precision, kernel, stream):
    """Arrays that are not torch tensors: read through DLPack / __cuda_array_interface__."""
    s = _interop.resolve_stream(stream, (a, b, c))
    va = _interop.view(a, "a", s)
    vb = _interop.view(b, "b", s)
    out_name = "c" if two_d else "out"
    if c is None:
        if beta != 0:
            raise ValueError(f"beta = {beta} needs c (the output to accumulate into); with c=None beta must be 0")
        shape, dtype = _core.out_spec(va.t, vb.t, trans_a, trans_b, two_d, out_dtype)
        c = _interop.allocate(va, shape, dtype, out_name)
    vc = _interop.view(c, out_name, s)
    if vc.readonly:
        raise ValueError(f"{out_name} is read-only (e.g. a JAX array): pass a writable GPU array as {out_name}")
    # __cuda_array_interface__ v3: work queued by a producer on another stream comes first.
    for v in (va, vb, vc):
        if v.producer_stream is not None and v.producer_stream != s and v.ptr:
            _core.stream_wait(s, v.producer_stream)
    err = _core.call_views(va.t, vb.t, vc.t, alpha, beta, trans_a, trans_b, two_d, out_dtype, precision,
                           kernel, s, True)
    if err is not None:
        raise GemmlabError(*err)
    return c


def matmul(a: Any, b: Any, out: Any = None, *, out_dtype: Any = None, precision: str = "default",
           kernel: str = "auto", stream: Any = None):
    """``a @ b`` with ``torch.matmul``'s semantics, on the GPU; returns ``out`` (allocated when None).

    Shapes: 1-D operands get a unit dimension that the result drops; 2-D is a matrix product;
    with more dimensions the leading ones are batch dimensions, broadcast (a 2-D operand is
    shared by every batch). Every batch goes through ``gemm_strided_batched``: strided views
    (transposes, slices, ``expand``-ed batch dimensions) are read in place, and a view whose
    matrices have no unit stride raises ValueError (make it ``.contiguous()``).

    dtypes: float32, float64, bfloat16, float16 (``gemmlab.dtypes()``); a and b alike. The
    result has their dtype, or float32 for bfloat16/float16 inputs with ``out_dtype=float32``
    (``torch.float32`` or ``"float32"``) or a float32 ``out``.
    precision: ``"default"``, ``"tf32"`` (float32 only) or ``"int8_emulation"`` (float32 and
    float64; ``precisions()``). kernel: ``"auto"`` or a rung.
    stream: default the current stream of the inputs' library (torch, CuPy).

    A torch tensor that requires grad (in grad mode) goes through ``gemmlab.torch.matmul``, the
    autograd operator.
    """
    r = _call(a, b, out, 1.0, 0.0, False, False, False, out_dtype, precision,
              kernel if kernel.__class__ is str else str(kernel), None if stream is None else _stream(stream), 1)
    if r is None:
        return _matmul_slow(a, b, out, out_dtype, precision, str(kernel), stream)
    if r.__class__ is tuple:
        raise GemmlabError(*r)
    return r


def _matmul_slow(a, b, out, out_dtype, precision, kernel, stream):
    lib_a, lib_b = _interop.library_of(a), _interop.library_of(b)
    if "torch" in (lib_a, lib_b) and (getattr(a, "requires_grad", False) or getattr(b, "requires_grad", False)):
        if out is not None:
            raise ValueError("gemmlab.matmul: out= records no autograd, and a or b requires grad "
                             "(as torch.matmul: leave out=None, or pass x.detach())")
        if stream is not None:
            raise ValueError("gemmlab.matmul: the autograd operator runs on torch's current stream; "
                             "use `with torch.cuda.stream(s):` instead of stream=")
        from . import torch as _gtorch
        return _gtorch.matmul(a, b, out_dtype=out_dtype, precision=precision, kernel=kernel)
    return _other(a, b, out, 1.0, 0.0, False, False, False, out_dtype, precision, kernel, _stream(stream))


def gemm(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
         trans_b: bool = False, kernel: str = "auto", precision: str = "default", stream: Any = None, *,
         out_dtype: Any = None):
    """``c = alpha * op(a) @ op(b) + beta * c`` on the GPU, where op(x) is x or x.T; returns c.

    a, b, c: 2-D GPU arrays from any library speaking DLPack or ``__cuda_array_interface__``;
    a and b of one dtype (float32, float64, bfloat16, float16), c of the same or, for
    bfloat16/float16 inputs, float32 (``out_dtype="float32"`` when c is allocated). Strided views
    are read in place when one dimension has unit stride (a transposed or sliced row- or
    column-major matrix); others raise ValueError. With ``c=None`` a new output is allocated by
    the inputs' library (torch, cupy) and beta must be 0.

    kernel: ``"auto"``, a rung's name or number (``gemmlab.kernels()``).
    precision: ``"default"``, ``"tf32"`` or ``"int8_emulation"`` (see ``precisions()``).
    stream: where the work is queued; default: torch's or CuPy's current stream for their
    arrays, the producer's stream of a ``__cuda_array_interface__`` v3 array, else the legacy
    default stream. The call is asynchronous on that stream, like the libraries' own matmul.
    """
    if trans_a.__class__ is not bool or trans_b.__class__ is not bool:
        for flag, value in (("trans_a", trans_a), ("trans_b", trans_b)):
            if not isinstance(value, bool):
                raise TypeError(f"{flag} must be a bool, got {type(value).__name__}")
    if alpha.__class__ is not float or beta.__class__ is not float:
        _interop.check_scalar("alpha", alpha)
        _interop.check_scalar("beta", beta)
        alpha, beta = float(alpha), float(beta)
    kernel = kernel if kernel.__class__ is str else str(kernel)
    s = None if stream is None else _stream(stream)
    r = _call(a, b, c, alpha, beta, trans_a, trans_b, True, out_dtype, precision, kernel, s, 2)
    if r is None:
        r = _other(a, b, c, alpha, beta, trans_a, trans_b, True, out_dtype, precision, kernel, s)
    elif r.__class__ is tuple:
        raise GemmlabError(*r)
    return r


def quantized_kernels() -> list:
    """The 8-bit rungs (gemm_fp8's and gemm_int8's), in ladder order: dicts with number, name,
    technique, needs_sm90a. Needs no GPU."""
    return list(_core.quantized_kernels())


def _run_quantized(kind: str, a, b, out, **kw):
    p = _quantized.plan(kind, a, b, out, **kw)
    if p["status"] is not None:
        raise GemmlabError(*p["status"])
    err = _core.quantized(**p["args"], validate_only=False)
    if err is not None:
        raise GemmlabError(*err)
    return p["out"]


def gemm_fp8(a: Any, b: Any, out: Any = None, *, scale_a: Any = None, scale_b: Any = None,
             out_dtype: Any = None, alpha: float = 1.0, beta: float = 0.0, scale_out: Any = None,
             amax: Any = None, kernel: Any = "auto", stream: Any = None):
    """``out = alpha * (a @ b, dequantized by the scales) + beta * out`` on FP8 tensor cores
    (rung 29, Hopper); returns out (allocated when None, row-major).

    a (m x k), b (k x n): 2-D GPU arrays of float8_e4m3fn or float8_e5m2 (not both E5M2), read
    in place when row- or column-major or a transpose of one (``w.T`` of a row-major weight is
    the fast "TN" form, as for ``torch._scaled_mm``). Scales are float32 GPU arrays (None: 1):
    one value, one per row of a (m) / column of b (n), or block-wise as DeepSeek-V3 (both):
    scale_a (m, ceil(k/128)) stored column-major (strides (1, m)), scale_b (ceil(k/128),
    ceil(n/128)) with strides (1, ceil(k/128) rounded up to 4): cuBLASLt's and
    ``torch._scaled_mm``'s 1x128 / 128x128 layouts.

    out_dtype (or out's dtype): bfloat16 (default), float16, float32, float8_e4m3fn or
    float8_e5m2. An FP8 out is ``saturate(scale_out * result)`` (scale_out: one float32, None
    is 1; past the format's largest finite value, Inf included, it gets that value of its sign)
    and ``amax`` (one float32, written) receives max |result|; beta must be 0 then.
    """
    return _run_quantized("fp8", a, b, out, scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype,
                          alpha=alpha, beta=beta, scale_out=scale_out, amax=amax, kernel=kernel, stream=stream)


def gemm_int8(a: Any, b: Any, out: Any = None, *, scale_a: Any = None, scale_b: Any = None,
              out_dtype: Any = None, alpha: float = 1.0, beta: float = 0.0, kernel: Any = "auto",
              stream: Any = None):
    """``out = a @ b`` of int8 GPU arrays on INT8 tensor cores (rung 30, Hopper), exactly in
    int32 (default; exact for k < 2^17), or ``out_dtype="float32"``: ``alpha * s_a(i) s_b(j) *
    sum + beta * out`` with per-tensor or per-channel float32 scales. Layouts as gemm_fp8."""
    return _run_quantized("int8", a, b, out, scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype,
                          alpha=alpha, beta=beta, kernel=kernel, stream=stream)


def _median(xs: Sequence[float]) -> float:
    return statistics.median(xs)


def bench(kernel: Any = "auto", dtypes: Iterable[str] = ("float32", "float64"),
          sizes: Iterable[int] = (1024, 2048, 4096), shapes: Optional[Iterable[Sequence[int]]] = None,
          reps: int = 20, warmup: int = 3, precision: str = "default", trans_a: bool = False,
          trans_b: bool = False, seed: int = 0, device: int = 0) -> list:
    """Times ``kernel`` (a name, number, or a list of them) beside cuBLAS (rung 0) on square
    ``sizes`` or explicit ``shapes`` (m, n, k), row-major, random inputs: ``warmup`` untimed
    calls, then ``reps`` calls each timed with CUDA events. Returns one dict per kernel, dtype and
    shape: kernel, dtype, m, n, k, median_ms, min_ms, max_ms, gflops, pct_cublas (median time of
    cuBLAS over the kernel's, in percent; cuBLAS's own rows say 100)."""
    names = [str(kernel)] if isinstance(kernel, (str, int)) else [str(x) for x in kernel]
    cublas = next(str(r["name"]) for r in _core.kernels() if r["number"] == 0)
    timed = [cublas] + [x for x in names if x not in (cublas, "0")]
    shape_list = [tuple(int(v) for v in s) for s in shapes] if shapes is not None else [(s, s, s) for s in sizes]
    rows = []
    for dtype in dtypes:
        for (m, n, k) in shape_list:
            times = _core.bench(str(dtype), timed, m, n, k, trans_a, trans_b, int(reps), int(warmup),
                                precision, int(seed), int(device))
            if isinstance(times, tuple):
                raise GemmlabError(*times)
            reference = _median(times[0])
            for name, t in zip(timed, times):
                med = _median(t)
                rows.append({"kernel": name, "dtype": str(dtype), "m": m, "n": n, "k": k,
                             "median_ms": med, "min_ms": min(t), "max_ms": max(t),
                             "gflops": 2.0 * m * n * k / (med * 1e6) if med > 0 else float("inf"),
                             "pct_cublas": 100.0 * reference / med if med > 0 else float("inf")})
    return rows
