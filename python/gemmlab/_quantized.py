"""gemmlab.gemm_fp8 and gemmlab.gemm_int8: the 8-bit products of include/gemmlab/quantized.hpp
(rungs 29 and 30, Hopper) on 2-D GPU arrays, with their scales.

The arrays are read as the float products read theirs (gemmlab/_interop.py), through a table of
their own element types: torch tensors directly (torch's __cuda_array_interface__ has no FP8),
other libraries through DLPack first (kDLFloat8_e4m3fn, kDLFloat8_e5m2 of DLPack 1.1; int8 as
kDLInt 8) and __cuda_array_interface__ otherwise. Everything up to the library call is checked
here or by the library's validate_ twins, without a CUDA call; `plan` returns the call for tests.
"""

from __future__ import annotations

from typing import Any, Optional

from . import _gemmlab as _core
from . import _interop

# The 8-bit inputs and int32 C (their own rows), and the float outputs of the float table.
TABLE = _interop.DtypeTable(tuple(_core.quantized_dtypes()) +
                            tuple(r for r in _interop.DTYPES if r["name"] in ("bfloat16", "float16", "float32")))
FP8 = ("float8_e4m3fn", "float8_e5m2")
FP8_OUTPUTS = ("bfloat16", "float16", "float32") + FP8
BLOCK = 128  # values of k (and columns of b) per block-wise scale


def _view(x: Any, name: str, stream: int) -> _interop.View:
    """x as a View of TABLE's types; torch tensors are read directly."""
    if _interop.library_of(x) == "torch" and hasattr(x, "data_ptr"):
        if x.device.type != "cuda":
            raise ValueError(f"{name} is on {x.device}; gemmlab needs CUDA tensors (x.cuda())")
        dname = str(x.dtype).rsplit(".", 1)[-1]
        row = TABLE.by_name.get(dname)
        if row is None:
            raise TypeError(f"{name} has dtype {x.dtype}; the 8-bit products take {TABLE.supported()}")
        return _interop.View(name, x, "torch", int(x.data_ptr()), tuple(x.shape), tuple(x.stride()), row,
                             str(x.dtype), x.device.index if x.device.index is not None else -1, False, None)
    return _interop.view(x, name, stream, TABLE)


def _dtype_name(d: Any) -> str:
    """A dtype given as torch.float8_e4m3fn, numpy/ml_dtypes dtype or a string, by its name."""
    return str(d).rsplit(".", 1)[-1]


def _stored(v: _interop.View, rows: int, cols: int, row_major: bool) -> tuple:
    """(trans, ld) of v, a rows x cols matrix, read in the call's layout: unit stride along the
    layout's inner dimension reads v as stored, along the other one as the transpose."""
    if len(v.shape) != 2:
        raise ValueError(f"{v.name} must be 2-D, got shape {v.shape}")
    s_r, s_c = v.strides
    inner_s, outer_s, inner_n, outer_n = (s_c, s_r, cols, rows) if row_major else (s_r, s_c, rows, cols)
    if inner_s == 1 or inner_n == 1:
        return False, outer_s if outer_n > 1 else max(1, inner_n)
    if outer_s == 1 or outer_n == 1:
        return True, inner_s
    raise ValueError(f"{v.name}: strides {v.strides} (elements) have no unit stride; the 8-bit "
                     f"products read row- or column-major matrices and their transposes (x.contiguous())")


def _float32(v: _interop.View, what: str) -> None:
    if v.dtype is None or v.dtype["name"] != "float32":
        raise TypeError(f"{what} must be float32, got {v.dtype_text}")


def _scale_kind(v: Optional[_interop.View], channels: int) -> str:
    """tensor (one value) or channel (`channels` values in a vector or an (m, 1) / (1, n) column
    or row), else ''."""
    if v is None:
        return "tensor"
    numel = 1
    for e in v.shape:
        numel *= e
    if numel == 1:
        return "tensor"
    if numel == channels and sum(e != 1 for e in v.shape) == 1:
        axis = next(i for i, e in enumerate(v.shape) if e != 1)
        if v.strides[axis] != 1:
            raise ValueError(f"{v.name}: per-channel scales must be contiguous (stride 1), got strides {v.strides}")
        return "channel"
    return ""


def _check_block(v: _interop.View, shape: tuple, ld: int, how: str) -> None:
    """A block-wise scale: 2-D `shape`, column-major with leading dimension ld."""
    if tuple(v.shape) != shape:
        raise ValueError(f"{v.name}: block-wise scales have shape {shape}, got {tuple(v.shape)}")
    rows, cols = shape
    if (rows > 1 and v.strides[0] != 1) or (cols > 1 and v.strides[1] != ld):
        raise ValueError(f"{v.name}: block-wise scales of shape {shape} are stored column-major with "
                         f"strides (1, {ld}) (cuBLASLt's layout), got strides {v.strides}; {how}")


def plan(kind: str, a: Any, b: Any, out: Any = None, *, scale_a: Any = None, scale_b: Any = None,
         out_dtype: Any = None, alpha: float = 1.0, beta: float = 0.0, scale_out: Any = None, amax: Any = None,
         kernel: str = "auto", stream: Any = None) -> dict:
    """The arguments of the library call (gemmlab._gemmlab.quantized) for a product of these
    arrays, checked; `out` is allocated when None. For gemm_fp8 / gemm_int8 and the tests."""
    if not isinstance(kernel, (str, int)):
        raise TypeError(f"kernel must be a name or a number, got {type(kernel).__name__}")
    _interop.check_scalar("alpha", alpha)
    _interop.check_scalar("beta", beta)
    s = _interop.resolve_stream(stream, (a, b, out))
    va, vb = _view(a, "a", s), _view(b, "b", s)
    inputs = FP8 if kind == "fp8" else ("int8",)
    for v in (va, vb):
        if v.dtype["name"] not in inputs:
            raise TypeError(f"{v.name} has dtype {v.dtype_text}; gemm_{kind} takes " + ", ".join(inputs))
    if len(va.shape) != 2 or len(vb.shape) != 2:
        raise ValueError(f"gemm_{kind} multiplies 2-D arrays: a {va.shape}, b {vb.shape}")
    (m, k), (k2, n) = va.shape, vb.shape
    if k != k2:
        raise ValueError(f"a is {m} x {k} but b is {k2} x {n}: a's columns must match b's rows")

    # C's type and layout: from out, else out_dtype (default: bfloat16 for FP8; for INT8 int32,
    # or float32 when there are scales, alpha or beta) and a new row-major array.
    if out is not None:
        vc = _view(out, "out", s)
        c_dtype = vc.dtype["name"]
        if out_dtype is not None and _dtype_name(out_dtype) != c_dtype:
            raise ValueError(f"out has dtype {vc.dtype_text} but out_dtype is {out_dtype}")
        if tuple(vc.shape) != (m, n):
            raise ValueError(f"out has shape {tuple(vc.shape)}; the product is {(m, n)}")
        if vc.readonly:
            raise ValueError("out is read-only (e.g. a JAX array): pass a writable GPU array")
    else:
        scaled = scale_a is not None or scale_b is not None or alpha != 1 or beta != 0
        default = "bfloat16" if kind == "fp8" else "float32" if scaled else "int32"
        c_dtype = _dtype_name(out_dtype) if out_dtype is not None else default
        vc = None
    outputs = FP8_OUTPUTS if kind == "fp8" else ("int32", "float32")
    if c_dtype not in outputs:
        raise TypeError(f"gemm_{kind} writes " + ", ".join(outputs) + f", not {c_dtype}")
    fp8_out = c_dtype in FP8
    if fp8_out and beta != 0:
        raise ValueError(f"beta = {beta}: an FP8 out is not read (cuBLASLt's FP8 D has no beta); beta must be 0")
    if not fp8_out and (scale_out is not None or amax is not None):
        raise ValueError("scale_out and amax are for FP8 outputs (out_dtype float8_e4m3fn or float8_e5m2)")
    if c_dtype == "int32" and (scale_a is not None or scale_b is not None or alpha != 1 or beta != 0):
        raise ValueError("an int32 out is the exact sum: no scales, alpha or beta "
                         "(out_dtype=float32 applies them)")
    if vc is None:
        if beta != 0:
            raise ValueError(f"beta = {beta} needs out (the array to accumulate into)")
        out = _interop.allocate(va, (m, n), c_dtype, "out")
        vc = _view(out, "out", s)
    row_major = vc.strides[1] == 1 or n == 1
    if not row_major and not (vc.strides[0] == 1 or m == 1):
        raise ValueError(f"out: strides {vc.strides} are neither row- nor column-major")
    trans_a, lda = _stored(va, m, k, row_major)
    trans_b, ldb = _stored(vb, k, n, row_major)
    _, ldc = _stored(vc, m, n, row_major)

    # The scales: per tensor, per channel, or block-wise (both operands: 2-D (m, ceil(k/128))
    # and (ceil(k/128), ceil(n/128)) arrays).
    sa = None if scale_a is None else _view(scale_a, "scale_a", s)
    sb = None if scale_b is None else _view(scale_b, "scale_b", s)
    for v in (sa, sb):
        if v is not None:
            _float32(v, v.name)
    kb, nb = -(-k // BLOCK), -(-n // BLOCK)
    ld_b = -(-kb // 4) * 4
    block = (kind == "fp8" and sa is not None and sb is not None and len(sa.shape) == 2 and len(sb.shape) == 2
             and tuple(sa.shape) == (m, kb) and tuple(sb.shape) == (kb, nb)
             and not (tuple(sb.shape) == (1, n) and n > 1))
    if block:
        _check_block(sa, (m, kb), m, "e.g. a row-major (ceil(k/128), m) array, transposed: s.T")
        _check_block(sb, (kb, nb), ld_b, f"e.g. torch.empty({nb}, {ld_b}).T[:{kb}]")
        scaling_a = scaling_b = "block"
    else:
        scaling_a, scaling_b = _scale_kind(sa, m), _scale_kind(sb, n)
        for v, kind_, want in ((sa, scaling_a, f"1 or {m} values (per row of a)"),
                               (sb, scaling_b, f"1 or {n} values (per column of b)")):
            if not kind_:
                extra = (f", or block-wise: scale_a ({m}, {kb}) with scale_b ({kb}, {nb})"
                         if kind == "fp8" else "")
                raise ValueError(f"{v.name} has shape {tuple(v.shape)}; expected {want}{extra}")
    singles = {}
    for name, x in (("scale_out", scale_out), ("amax", amax)):
        if x is None:
            singles[name] = 0
            continue
        v = _view(x, name, s)
        _float32(v, name)
        numel = 1
        for e in v.shape:
            numel *= e
        if numel != 1:
            raise ValueError(f"{name} must hold one float32, got shape {tuple(v.shape)}")
        if name == "amax" and v.readonly:
            raise ValueError("amax is read-only: it is written")
        singles[name] = v.ptr
    args = dict(a_dtype=va.dtype["name"], b_dtype=vb.dtype["name"], c_dtype=c_dtype,
                layout="row" if row_major else "col", trans_a=trans_a, trans_b=trans_b, m=m, n=n, k=k,
                alpha=float(alpha), a=va.ptr, lda=lda, scale_a=0 if sa is None else sa.ptr, scaling_a=scaling_a,
                b=vb.ptr, ldb=ldb, scale_b=0 if sb is None else sb.ptr, scaling_b=scaling_b, beta=float(beta),
                c=vc.ptr, ldc=ldc, scale_out=singles["scale_out"], amax=singles["amax"], kernel=str(kernel),
                stream=s, device=va.device)
    err = _core.quantized(**args, validate_only=True)
    return {"args": args, "out": out, "status": err}
