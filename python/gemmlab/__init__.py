"""gemmlab from Python: the GEMM ladder on GPU arrays of any library that speaks DLPack or
``__cuda_array_interface__`` (PyTorch, CuPy, JAX).

    import torch, gemmlab
    a = torch.randn(4096, 4096, device="cuda")
    b = torch.randn(4096, 4096, device="cuda")
    c = gemmlab.gemm(a, b)                    # a @ b, kernel "auto", on torch's current stream
    gemmlab.gemm(a, b.T, c, alpha=2, beta=1)  # c = 2 a b^T + c, in place; views need no copy

``gemmlab.kernels()`` lists the rungs, ``gemmlab.bench()`` times one beside cuBLAS. Failures of
the library raise ``GemmlabError`` with its message; arguments gemm cannot use raise
``TypeError``/``ValueError`` before any CUDA call.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Optional, Sequence

from . import _gemmlab as _core
from . import _interop

__all__ = ["GemmlabError", "gemm", "kernels", "bench", "dtypes", "precisions", "device_count"]
__version__ = "0.1.0"


class GemmlabError(RuntimeError):
    """A gemmlab call failed. ``status`` is the library's Status name (``"InvalidLeadingDimension"``,
    ``"UnknownKernel"``, ``"NoDevice"``, ...), ``message`` is ``gemmlab::last_error()``."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def dtypes() -> list:
    """Names of the element types gemm multiplies (``["float32", "float64"]`` today)."""
    return [row["name"] for row in _interop.DTYPES]


def precisions() -> list:
    """Names accepted by ``precision=``: ``"default"`` (the input type's own accuracy) and
    ``"tf32"`` (float32 on TF32 tensor cores, opt-in)."""
    return list(_core.precisions())


def device_count() -> int:
    """CUDA devices visible to the library (0 without a GPU)."""
    return _core.device_count()


def kernels() -> list:
    """The GPU rungs, in ladder order (0 is cuBLAS): dicts with number, name, technique, seeds,
    types (dtype names), precision and engine. Needs no GPU."""
    return list(_core.kernels())


def gemm(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
         trans_b: bool = False, kernel: str = "auto", precision: str = "default", stream: Any = None):
    """``c = alpha * op(a) @ op(b) + beta * c`` on the GPU, where op(x) is x or x.T; returns c.

    a, b, c: 2-D GPU arrays of one dtype (float32 or float64) from any library speaking DLPack
    or ``__cuda_array_interface__``. Strided views are read in place when one dimension has unit
    stride (a transposed or sliced row- or column-major matrix); others raise ValueError. With
    ``c=None`` a new output is allocated by the inputs' library (torch, cupy) and beta must be 0.

    kernel: ``"auto"``, a rung's name or number (``gemmlab.kernels()``).
    precision: ``"default"`` or ``"tf32"`` (see ``precisions()``).
    stream: where the work is queued; default: torch's or CuPy's current stream for their
    arrays, the producer's stream of a ``__cuda_array_interface__`` v3 array, else the legacy
    default stream. The call is asynchronous on that stream, like the libraries' own matmul.
    """
    for flag, value in (("trans_a", trans_a), ("trans_b", trans_b)):
        if not isinstance(value, bool):
            raise TypeError(f"{flag} must be a bool, got {type(value).__name__}")
    _interop.check_scalar("alpha", alpha)
    _interop.check_scalar("beta", beta)
    kernel = str(kernel)
    if precision not in _core.precisions():
        raise ValueError(f"precision '{precision}' is not one of: {', '.join(_core.precisions())}")

    s = _interop.resolve_stream(stream, (a, b, c))
    va = _interop.view(a, "a", s)
    vb = _interop.view(b, "b", s)
    if va.dtype["name"] != vb.dtype["name"]:
        raise ValueError(f"dtype mismatch: a is {va.dtype['name']} but b is {vb.dtype['name']}")
    m, k = reversed(va.shape) if trans_a else va.shape
    k_b, n = reversed(vb.shape) if trans_b else vb.shape
    if k != k_b:
        raise ValueError(f"shape mismatch: op(a) is {m} x {k} but op(b) is {k_b} x {n} "
                         f"(inner dimensions {k} != {k_b}; a {va.shape}, b {vb.shape}, "
                         f"trans_a={trans_a}, trans_b={trans_b})")
    if c is None:
        if beta != 0:
            raise ValueError(f"beta = {beta} needs c (the output to accumulate into); with c=None beta must be 0")
        c = _interop.allocate(va, m, n)
    vc = _interop.view(c, "c", s)
    if vc.dtype["name"] != va.dtype["name"]:
        raise ValueError(f"dtype mismatch: a and b are {va.dtype['name']} but c is {vc.dtype['name']}")
    if tuple(vc.shape) != (m, n):
        raise ValueError(f"shape mismatch: op(a) @ op(b) is {m} x {n} but c has shape {tuple(vc.shape)}")
    if vc.readonly:
        raise ValueError("c is read-only (e.g. a JAX array): pass a writable GPU array as c")
    devices = {v.name: v.device for v in (va, vb, vc) if v.device >= 0}
    if len(set(devices.values())) > 1:
        raise ValueError("arrays on different GPUs: " + ", ".join(f"{n_} on cuda:{d}" for n_, d in devices.items()))
    layout, op_a, op_b, lda, ldb, ldc = _interop.plan(va, vb, vc, trans_a, trans_b)

    # __cuda_array_interface__ v3: work queued by a producer on another stream comes first.
    for v in (va, vb, vc):
        if v.producer_stream is not None and v.producer_stream != s and v.ptr:
            _core.stream_wait(s, v.producer_stream)

    err = _core.gemm(va.dtype["name"], layout, op_a, op_b, m, n, k, alpha, va.ptr, lda, vb.ptr, ldb,
                     beta, vc.ptr, ldc, kernel, precision, s, vc.device if vc.device >= 0 else -1)
    if err is not None:
        raise GemmlabError(*err)
    return c


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
