"""GPU arrays from other libraries, as gemmlab sees them: a pointer, a shape, strides in
elements, a dtype, a device and a stream. PyTorch tensors take a shorter road (read in C++,
gemmlab._gemmlab.call); this module serves every other array and the errors of both.

Two protocols are read: ``__cuda_array_interface__`` (PyTorch, CuPy, Numba, JAX) first, since
reading it has no side effect, then DLPack (``__dlpack__`` / ``__dlpack_device__``), through
which any array-API library, JAX included, hands over its memory. Everything here runs without a
GPU, so argument errors are raised before any CUDA call.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Optional

from . import _gemmlab as _core

# DLPack device types (dlpack.h DLDeviceType) that name memory a CUDA kernel can read.
_DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 2, 3, 13
_DL_DEVICE_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDA pinned host", 4: "OpenCL", 7: "Vulkan", 8: "Metal",
                    9: "VPI", 10: "ROCm", 11: "ROCm host", 13: "CUDA managed", 14: "oneAPI"}
_DL_TYPE_NAMES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}

# The element types of the C++ API, one row each (gemmlab._gemmlab.dtypes()). "<V2" (any
# 2-byte type: how CuPy/JAX/ml_dtypes spell bfloat16 in __cuda_array_interface__) is taken as
# bfloat16 only when the array's own dtype says so.
DTYPES = tuple(_core.dtypes())


class DtypeTable:
    """Rows of element types (name, typestr, dl_code, dl_bits, itemsize) looked up by their
    __cuda_array_interface__ typestr, DLPack code and name. A "<V" typestr (no standard
    spelling: bfloat16 is "<V2", the FP8 types "<V1") names a row only through the array's own
    dtype name."""

    def __init__(self, rows):
        self.rows = tuple(rows)
        self.by_typestr = {r["typestr"]: r for r in self.rows if not r["typestr"].startswith("<V")}
        self.by_void = {r["name"]: r for r in self.rows if r["typestr"].startswith("<V")}
        self.by_dlpack = {(r["dl_code"], r["dl_bits"]): r for r in self.rows}
        self.by_name = {r["name"]: r for r in self.rows}

    def supported(self) -> str:
        return ", ".join(r["name"] for r in self.rows)


FLOATS = DtypeTable(DTYPES)


def _supported() -> str:
    return FLOATS.supported()


@dataclass
class View:
    """One operand: where it is and how it is laid out (strides in elements)."""

    name: str
    obj: Any
    library: str
    ptr: int
    shape: tuple
    strides: tuple
    dtype: Optional[dict]
    dtype_text: str
    device: int            # CUDA ordinal, -1 when unknown
    readonly: bool
    producer_stream: Optional[int]  # __cuda_array_interface__ v3 "stream"; None: no sync needed

    @property
    def t(self) -> tuple:
        """The form gemmlab._gemmlab.call_views reads."""
        return (self.name, self.ptr, self.shape, self.strides, self.dtype["index"], self.device)


def library_of(x: Any) -> str:
    """'torch', 'cupy', 'jax', 'jaxlib', 'numpy', ... (the top-level module of x's type)."""
    return (type(x).__module__ or "").split(".")[0]


def stream_handle(stream: Any) -> int:
    """A cudaStream_t as an int, from an int, a torch.cuda.Stream (.cuda_stream), a CuPy stream
    (.ptr) or an object with the CUDA stream protocol (__cuda_stream__)."""
    if isinstance(stream, bool):
        raise TypeError("stream must be a CUDA stream (int handle, torch.cuda.Stream, cupy Stream), not a bool")
    if isinstance(stream, numbers.Integral):
        if stream < 0:
            raise ValueError(f"stream = {stream}: a CUDA stream handle is >= 0")
        return int(stream)
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, numbers.Integral):
            return int(value)
    raise TypeError(f"stream: expected a CUDA stream (int handle, torch.cuda.Stream, cupy Stream), "
                    f"got {type(stream).__name__}")


def _cuda_array_interface(x: Any, name: str) -> Optional[dict]:
    try:
        return x.__cuda_array_interface__
    except AttributeError:
        return None
    except Exception as e:  # e.g. torch: a tensor that requires grad
        raise ValueError(f"{name}: {e}") from e


def _dtype_from_typestr(typestr: str, x: Any = None, table: DtypeTable = FLOATS):
    if typestr[:1] in "=|":
        typestr = "<" + typestr[1:]
    if typestr.startswith("<V"):
        name = str(getattr(x, "dtype", "")).rsplit(".", 1)[-1]
        row = table.by_void.get(name)
        return row if row is not None and row["typestr"] == typestr else None
    return table.by_typestr.get(typestr)


def _dtype_text(x: Any, fallback: str) -> str:
    """The dtype as the array's library spells it (str(x.dtype)), else the protocol's code."""
    d = getattr(x, "dtype", None)
    return str(d) if d is not None else fallback


def _from_cai(x: Any, name: str, cai: dict, table: DtypeTable = FLOATS) -> View:
    typestr = cai.get("typestr", "?")
    row = _dtype_from_typestr(typestr, x, table)
    shape = tuple(int(s) for s in cai["shape"])
    ptr, readonly = cai["data"]
    itemsize = row["itemsize"] if row else int(typestr[2:] or 1)
    if cai.get("strides") is None:  # C-contiguous
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= extent
        strides = tuple(reversed(strides))
    else:
        byte_strides = tuple(int(s) for s in cai["strides"])
        if any(s % itemsize for s in byte_strides):
            raise ValueError(f"{name}: strides {byte_strides} bytes are not multiples of the element size {itemsize}")
        strides = tuple(s // itemsize for s in byte_strides)
    if cai.get("mask") is not None:
        raise ValueError(f"{name}: masked arrays are not supported")
    stream = cai.get("stream") if int(cai.get("version", 0)) >= 3 else None
    device = -1
    if hasattr(x, "device") and getattr(x.device, "type", None) == "cuda":  # torch
        device = x.device.index if x.device.index is not None else -1
    elif ptr:
        device = _core.pointer_device(int(ptr))
    return View(name, x, library_of(x), int(ptr or 0), shape, strides, row,
                _dtype_text(x, typestr) if row is None else row["name"], device, bool(readonly),
                None if stream is None else int(stream))


def _dlpack_capsule(x: Any, stream: int):
    # Array API: for CUDA, 1 is the legacy default stream (0 is not allowed).
    s = stream if stream not in (0, None) else 1
    for kwargs in ({"stream": s, "max_version": (1, 0)}, {"stream": s}, {}):
        try:
            return x.__dlpack__(**kwargs)
        except TypeError:
            continue
    return x.__dlpack__()


def _from_dlpack(x: Any, name: str, stream: int, table: DtypeTable = FLOATS) -> View:
    device_type, device_id = x.__dlpack_device__()
    if int(device_type) not in (_DL_CUDA, _DL_CUDA_MANAGED):
        where = _DL_DEVICE_NAMES.get(int(device_type), f"DLPack device type {int(device_type)}")
        raise ValueError(f"{name} is in {where} memory; gemmlab needs arrays on a CUDA GPU "
                         f"(torch: x.cuda(), cupy.asarray(x), jax.device_put(x, gpu))")
    info = _core.dlpack_info(_dlpack_capsule(x, stream))
    row = table.by_dlpack.get((info["dl_code"], info["dl_bits"])) if info["lanes"] == 1 else None
    text = row["name"] if row else _dtype_text(
        x, f"{_DL_TYPE_NAMES.get(info['dl_code'], 'code %d' % info['dl_code'])}{info['dl_bits']}")
    return View(name, x, library_of(x), int(info["ptr"]), tuple(info["shape"]), tuple(info["strides"]),
                row, text, int(device_id), bool(info["readonly"]), None)


def view(x: Any, name: str, stream: int, table: DtypeTable = FLOATS) -> View:
    """Reads x's memory description; raises TypeError/ValueError for what gemmlab cannot use
    (dtypes outside `table`). Shapes are checked by the product's plan (gemmlab._gemmlab), not
    here. A table with types that __cuda_array_interface__ cannot carry (FP8) reads DLPack
    first."""
    has_dlpack = hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")
    prefer_dlpack = table is not FLOATS and has_dlpack
    cai = None if prefer_dlpack else _cuda_array_interface(x, name)
    if cai is not None:
        v = _from_cai(x, name, cai, table)
    elif has_dlpack:
        v = _from_dlpack(x, name, stream, table)
    else:
        raise TypeError(f"{name}: expected a GPU array speaking DLPack or __cuda_array_interface__ "
                        f"(a CUDA torch.Tensor, cupy.ndarray, jax.Array), got {type(x).__module__}.{type(x).__name__}")
    if v.dtype is None:
        raise TypeError(f"{name} has dtype {v.dtype_text}; gemmlab multiplies {table.supported()}")
    return v


def plan(a: View, b: View, c: View, trans_a: bool = False, trans_b: bool = False, two_d: bool = True,
         out_dtype: Optional[str] = None) -> dict:
    """The library calls a product of these views becomes, without making them (a dict: layout,
    op_a, op_b, m, n, k, lda, ldb, ldc, batch, stride_a/b/c, calls, folded, out_dtype, and status:
    None, or the (status, message) validate_gemm_strided_batched returned). For tests."""
    return _core.call_views(a.t, b.t, c.t, 1.0, 0.0, trans_a, trans_b, two_d, out_dtype, "default", "auto",
                            0, False)


def resolve_stream(stream: Any, arrays) -> int:
    """The stream gemm runs on: the explicit one; else the current stream of the array library
    (torch.cuda.current_stream(), cupy.cuda.get_current_stream()); else the stream a
    __cuda_array_interface__ v3 producer names; else the legacy default stream (0)."""
    if stream is not None:
        return stream_handle(stream)
    for x in arrays:
        if x is None:
            continue
        lib = library_of(x)
        if lib == "torch" and getattr(getattr(x, "device", None), "type", None) == "cuda":
            import torch
            return int(torch.cuda.current_stream(x.device).cuda_stream)
        if lib == "cupy":
            import cupy
            return int(cupy.cuda.get_current_stream().ptr)
    for x in arrays:
        if x is None:
            continue
        cai = _cuda_array_interface(x, "array")
        if cai is not None and int(cai.get("version", 0)) >= 3 and cai.get("stream") is not None:
            return int(cai["stream"])
    return 0


def allocate(like: View, shape: tuple, dtype: str, out_name: str = "c"):
    """An output of `shape` in the array library of the inputs, or a ValueError asking for it."""
    x = like.obj
    if like.library == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, dtype), device=x.device)
    if like.library == "cupy":
        import cupy
        with x.device:
            return cupy.empty(shape, dtype=dtype)
    raise ValueError(f"{out_name}=None: gemmlab allocates the output only for torch and cupy inputs "
                     f"(a is a {like.library or type(x).__name__} array); pass {out_name}=, a writable GPU array "
                     f"of shape {tuple(shape)} and dtype {dtype}")


def check_scalar(name: str, value: Any) -> None:
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
