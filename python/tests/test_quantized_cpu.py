"""gemmlab.gemm_fp8 / gemm_int8 without a GPU: the plan of the library call (layout, ops,
leading dimensions, scale modes) on fake arrays, and every argument error, raised before any
CUDA call (these run in CI). FP8 fakes carry their dtype name beside the "<V1" typestr, as
ml_dtypes arrays do."""

import pytest

import gemmlab
from gemmlab import _quantized
from conftest import FakeCudaArray, strided


class FakeFp8(FakeCudaArray):
    """A fake GPU array of an FP8 type: __cuda_array_interface__ cannot name FP8, so the
    array's own dtype does."""

    def __init__(self, shape, dtype="float8_e4m3fn", strides=None, **kw):
        super().__init__(shape, "|V1", None if strides is None else tuple(strides), **kw)
        self.dtype = dtype


def i8(shape, strides=None):
    return FakeCudaArray(shape, "|i1", None if strides is None else tuple(strides))


def f32(shape, element_strides=None, ptr=0x7F0000100000):
    return strided(shape, element_strides, "<f4", ptr=ptr) if element_strides else \
        FakeCudaArray(shape, "<f4", ptr=ptr)


def bf16_out(shape, element_strides=None):
    class Out(FakeCudaArray):
        dtype = "bfloat16"
    strides = None if element_strides is None else tuple(2 * s for s in element_strides)
    return Out(shape, "<V2", strides, ptr=0x7F0000200000)


def test_quantized_entry_points_and_rungs():
    assert callable(gemmlab.gemm_fp8) and callable(gemmlab.gemm_int8)
    names = [r["name"] for r in gemmlab.quantized_kernels()]
    assert names == ["wgmma_fp8", "wgmma_int8"]
    assert all(r["needs_sm90a"] for r in gemmlab.quantized_kernels())


def test_native_tn_form_is_read_in_place():
    # y = x w^T: x (m x k) row-major, w (n x k) row-major and b = w.T (k x n, strides (1, k)).
    m, n, k = 64, 48, 256
    a = FakeFp8((m, k))
    b = FakeFp8((k, n), strides=(1, k))
    p = _quantized.plan("fp8", a, b, bf16_out((m, n)))
    assert p["status"] is None, p["status"]
    args = p["args"]
    assert (args["layout"], args["trans_a"], args["trans_b"]) == ("row", False, True)
    assert (args["lda"], args["ldb"], args["ldc"]) == (k, k, n)
    assert (args["a_dtype"], args["b_dtype"], args["c_dtype"]) == ("float8_e4m3fn",) * 2 + ("bfloat16",)
    assert args["scaling_a"] == args["scaling_b"] == "tensor"


def test_column_major_out_and_transposed_a():
    m, n, k = 32, 40, 128
    a = i8((k, m), strides=(m, 1))  # stored k x m row-major: as a (m x k) it is a^T
    a_t = strided((m, k), (1, m), "|i1")  # the m x k view of it
    b = i8((k, n))
    out = strided((m, n), (1, m), "<i4", ptr=0x7F0000300000)
    p = _quantized.plan("int8", a_t, b, out)
    assert p["status"] is None, p["status"]
    args = p["args"]
    assert args["layout"] == "col" and args["c_dtype"] == "int32"
    # Column-major: a_t has unit row stride (as stored), b unit column stride (its transpose).
    assert (args["trans_a"], args["lda"]) == (False, m)
    assert (args["trans_b"], args["ldb"]) == (True, n)
    del a


def test_scales_per_tensor_channel_and_block():
    m, n, k = 64, 300, 1000
    a, b, out = FakeFp8((m, k)), FakeFp8((k, n), strides=(1, k)), bf16_out((m, n))
    p = _quantized.plan("fp8", a, b, out, scale_a=f32((1,)), scale_b=f32((n,)))
    assert (p["args"]["scaling_a"], p["args"]["scaling_b"]) == ("tensor", "channel")
    p = _quantized.plan("fp8", a, b, out, scale_a=f32((m, 1)), scale_b=f32((1, n)))
    assert (p["args"]["scaling_a"], p["args"]["scaling_b"]) == ("channel", "channel")
    kb, nb = 8, 3  # ceil(1000/128), ceil(300/128); scale_b's leading dimension 8 (a multiple of 4)
    sa = f32((m, kb), (1, m))
    sb = f32((kb, nb), (1, 8))
    p = _quantized.plan("fp8", a, b, out, scale_a=sa, scale_b=sb)
    assert p["status"] is None, p["status"]
    assert (p["args"]["scaling_a"], p["args"]["scaling_b"]) == ("block", "block")


def test_block_scale_layouts_are_checked():
    m, n, k = 64, 300, 1000
    a, b, out = FakeFp8((m, k)), FakeFp8((k, n), strides=(1, k)), bf16_out((m, n))
    with pytest.raises(ValueError, match=r"scale_a: block-wise scales .* strides \(1, 64\)"):
        _quantized.plan("fp8", a, b, out, scale_a=f32((m, 8)), scale_b=f32((8, 3), (1, 8)))
    with pytest.raises(ValueError, match=r"scale_b: block-wise scales .* strides \(1, 8\)"):
        _quantized.plan("fp8", a, b, out, scale_a=f32((m, 8), (1, m)), scale_b=f32((8, 3), (1, 9)))
    with pytest.raises(ValueError, match=r"scale_a has shape \(64, 8\).*block-wise"):
        _quantized.plan("fp8", a, b, out, scale_a=f32((m, 8), (1, m)), scale_b=f32((1,)))


def test_fp8_output_scale_and_amax():
    m, n, k = 16, 32, 128
    a, b = FakeFp8((m, k)), FakeFp8((k, n), strides=(1, k))
    out = FakeFp8((m, n), dtype="float8_e4m3fn", ptr=0x7F0000400000)
    p = _quantized.plan("fp8", a, b, out, scale_out=f32((1,)), amax=f32((1,), ptr=0x7F0000500000))
    assert p["status"] is None, p["status"]
    assert p["args"]["c_dtype"] == "float8_e4m3fn" and p["args"]["amax"] == 0x7F0000500000
    with pytest.raises(ValueError, match="FP8 out is not read"):
        _quantized.plan("fp8", a, b, out, beta=1.0)
    with pytest.raises(ValueError, match="scale_out and amax are for FP8 outputs"):
        _quantized.plan("fp8", a, b, bf16_out((m, n)), amax=f32((1,)))
    with pytest.raises(ValueError, match="amax must hold one float32"):
        _quantized.plan("fp8", a, b, out, amax=f32((2,)))


def test_dtype_errors_name_the_types():
    m, n, k = 8, 8, 16
    with pytest.raises(TypeError, match="a has dtype float32; gemm_fp8 takes float8_e4m3fn, float8_e5m2"):
        _quantized.plan("fp8", f32((m, k)), FakeFp8((k, n)), bf16_out((m, n)))
    with pytest.raises(TypeError, match="b has dtype float8_e4m3fn; gemm_int8 takes int8"):
        _quantized.plan("int8", i8((m, k)), FakeFp8((k, n)), None)
    with pytest.raises(TypeError, match="gemm_fp8 writes .* not int32"):
        _quantized.plan("fp8", FakeFp8((m, k)), FakeFp8((k, n)), None, out_dtype="int32")
    # E5M2 x E5M2 is no pair of the library (nor of cuBLASLt).
    with pytest.raises(TypeError, match="no 8-bit product takes float8_e5m2 x float8_e5m2"):
        _quantized.plan("fp8", FakeFp8((m, k), "float8_e5m2"), FakeFp8((k, n), "float8_e5m2"), bf16_out((m, n)))
    with pytest.raises(TypeError, match="scale_a must be float32"):
        _quantized.plan("fp8", FakeFp8((m, k)), FakeFp8((k, n)), bf16_out((m, n)), scale_a=i8((1,)))


def test_shape_and_int32_errors():
    with pytest.raises(ValueError, match="a is 8 x 16 but b is 15 x 8"):
        _quantized.plan("int8", i8((8, 16)), i8((15, 8)), None)
    with pytest.raises(ValueError, match="int32 out is the exact sum"):
        _quantized.plan("int8", i8((8, 16)), i8((16, 8)), strided((8, 8), (8, 1), "<i4"), alpha=2.0)
    with pytest.raises(ValueError, match="no unit stride"):
        _quantized.plan("int8", strided((8, 16), (32, 2), "|i1"), i8((16, 8)), strided((8, 8), (8, 1), "<i4"))
    with pytest.raises(ValueError, match="allocates the output only for torch and cupy"):
        _quantized.plan("int8", i8((8, 16)), i8((16, 8)), None)


def test_library_validation_reaches_python():
    # A kernel of the other kind: the library's validate_ twin answers, no CUDA call.
    p = _quantized.plan("fp8", FakeFp8((8, 16)), FakeFp8((16, 8), strides=(1, 16)), bf16_out((8, 8)),
                        kernel="wgmma_int8")
    assert p["status"][0] == "UnsupportedType"
    with pytest.raises(gemmlab.GemmlabError, match="UnknownKernel"):
        gemmlab.gemm_int8(i8((8, 16)), i8((16, 8)), strided((8, 8), (8, 1), "<i4"), kernel="nope")
