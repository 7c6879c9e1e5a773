"""What gemmlab does without a GPU: import, the rung list, and every argument error that needs no
device (these run in CI). The layout planning for strided views is checked here too, on fake
arrays, since it is pure arithmetic on shapes and strides."""

import pytest

import gemmlab
from gemmlab import _interop
from conftest import FakeCudaArray, strided


def test_import_and_version():
    assert gemmlab.__version__
    assert callable(gemmlab.gemm)
    assert isinstance(gemmlab.device_count(), int)


def test_dtypes_and_precisions():
    assert gemmlab.dtypes() == ["float32", "float64", "bfloat16", "float16"]
    assert gemmlab.precisions()[0] == "default"
    assert gemmlab.precisions() == ["default", "tf32", "int8_emulation"]


def test_kernels_lists_the_ladder_without_a_gpu():
    rungs = gemmlab.kernels()
    assert rungs, "the ladder is empty"
    keys = {"number", "name", "technique", "seeds", "types", "precision", "engine"}
    for r in rungs:
        assert keys <= set(r), r
        # Every type of the library has its Python name now: no rung is left without one.
        assert r["types"], f"rung {r['name']} lists no dtype"
        assert len(r["types"]) == len(r["library_types"]), r
        assert set(r["types"]) <= set(gemmlab.dtypes())
        assert r["precision"] in gemmlab.precisions()
    assert rungs[0]["number"] == 0 and rungs[0]["engine"] == "cuBLAS"
    numbers = [r["number"] for r in rungs]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_cpu_arrays_are_refused_with_a_clear_message():
    np = pytest.importorskip("numpy")
    a = np.ones((4, 3), dtype=np.float32)
    b = np.ones((3, 2), dtype=np.float32)
    with pytest.raises(ValueError, match=r"a is in CPU memory.*CUDA GPU"):
        gemmlab.gemm(a, b)


def test_objects_without_an_array_protocol_are_refused():
    with pytest.raises(TypeError, match="DLPack or __cuda_array_interface__"):
        gemmlab.gemm([[1.0]], [[1.0]])


def test_dtype_mismatch():
    a, b = FakeCudaArray((4, 3), "<f4"), FakeCudaArray((3, 2), "<f8")
    with pytest.raises(ValueError, match="dtype mismatch: a is float32 but b is float64"):
        gemmlab.gemm(a, b, FakeCudaArray((4, 2), "<f4"))


def test_c_dtype_mismatch():
    a, b = FakeCudaArray((4, 3), "<f8"), FakeCudaArray((3, 2), "<f8")
    with pytest.raises(ValueError, match="c is float32"):
        gemmlab.gemm(a, b, FakeCudaArray((4, 2), "<f4"))


def test_unsupported_dtype():
    a, b = FakeCudaArray((4, 3), "<i4"), FakeCudaArray((3, 2), "<i4")
    with pytest.raises(TypeError, match=r"a has dtype <i4; gemmlab multiplies float32, float64, bfloat16, float16"):
        gemmlab.gemm(a, b, FakeCudaArray((4, 2), "<i4"))


def test_inner_dimension_mismatch():
    a, b = FakeCudaArray((4, 3)), FakeCudaArray((5, 2))
    with pytest.raises(ValueError, match=r"op\(a\) is 4 x 3 but op\(b\) is 5 x 2 \(inner dimensions 3 != 5"):
        gemmlab.gemm(a, b, FakeCudaArray((4, 2)))


def test_inner_dimension_mismatch_with_transposes():
    a, b = FakeCudaArray((3, 4)), FakeCudaArray((2, 3))
    with pytest.raises(ValueError, match="inner dimensions"):
        gemmlab.gemm(a, b, FakeCudaArray((4, 2)), trans_a=False, trans_b=True)


def test_output_shape_mismatch():
    with pytest.raises(ValueError, match=r"is 4 x 2 but c has shape \(2, 4\)"):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((2, 4)))


def test_not_two_dimensional():
    with pytest.raises(ValueError, match=r"b must be 2-D, got shape \(3,\)"):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3,)), FakeCudaArray((4, 1)))


def test_no_unit_stride_is_refused():
    a = strided((4, 3), (6, 2))  # every other column of a 4 x 6 matrix
    with pytest.raises(ValueError, match=r"a \(shape \(4, 3\), strides \(6, 2\) elements\) has no unit stride"):
        gemmlab.gemm(a, FakeCudaArray((3, 2)), FakeCudaArray((4, 2)))


def test_broadcast_output_is_refused():
    c = strided((4, 2), (0, 1))
    with pytest.raises(ValueError, match="c .* has no unit stride"):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), c)


def test_read_only_output_is_refused():
    with pytest.raises(ValueError, match="c is read-only"):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2), readonly=True))


def test_c_none_needs_torch_or_cupy_and_beta_zero():
    with pytest.raises(ValueError, match="pass c="):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)))
    with pytest.raises(ValueError, match="beta = 0.5 needs c"):
        gemmlab.gemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), beta=0.5)


def test_bad_flags_and_scalars():
    a, b, c = FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))
    with pytest.raises(TypeError, match="trans_a must be a bool"):
        gemmlab.gemm(a, b, c, trans_a="yes")
    with pytest.raises(TypeError, match="alpha must be a real number"):
        gemmlab.gemm(a, b, c, alpha=1j)
    with pytest.raises(ValueError, match="precision 'fp8' is not one of"):
        gemmlab.gemm(a, b, c, precision="fp8")
    for bad in ("int8_emulation:0", "int8_emulation:21", "int8_emulation:", "int8_emulation:x", "tf32:8",
                "int8_emulation:007"):
        with pytest.raises(ValueError, match="modulus count follows int8_emulation only"):
            gemmlab.gemm(a, b, c, precision=bad)
    with pytest.raises(TypeError, match="stream"):
        gemmlab.gemm(a, b, c, stream="default")


def test_unknown_kernel_raises_the_library_message():
    # gemmlab::gemm validates before any CUDA call, so this needs no GPU.
    a, b, c = FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))
    with pytest.raises(gemmlab.GemmlabError, match="matches no rung") as e:
        gemmlab.gemm(a, b, c, kernel="no_such_rung")
    assert e.value.status == "UnknownKernel"
    assert "no_such_rung" in e.value.message


def test_valid_call_on_fake_memory_fails_inside_the_library():
    # Without a GPU: NoDevice; with one, the fake pointer is not device memory.
    a, b, c = FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))
    with pytest.raises(gemmlab.GemmlabError) as e:
        gemmlab.gemm(a, b, c)
    assert e.value.status in ("NoDevice", "NotDevicePointer"), e.value
    assert e.value.message


@pytest.mark.skipif(gemmlab.device_count() > 0, reason="checks the no-GPU path")
def test_bench_without_a_gpu_says_so():
    with pytest.raises(gemmlab.GemmlabError, match="NoDevice"):
        gemmlab.bench(sizes=(64,), dtypes=("float32",), reps=1, warmup=0)


def test_stream_handles():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 99

    class Protocol:
        def __cuda_stream__(self):
            return (0, 77)

    assert _interop.stream_handle(5) == 5
    assert _interop.stream_handle(TorchLike()) == 1234
    assert _interop.stream_handle(CupyLike()) == 99
    assert _interop.stream_handle(Protocol()) == 77
    with pytest.raises(ValueError):
        _interop.stream_handle(-3)


def test_stream_of_a_cai_v3_producer_is_used():
    a = FakeCudaArray((4, 3), stream=4242)
    assert _interop.resolve_stream(None, (a, FakeCudaArray((3, 2)), None)) == 4242
    assert _interop.resolve_stream(7, (a,)) == 7
    assert _interop.resolve_stream(None, (FakeCudaArray((4, 3), version=2),)) == 0


# ---------------------------------------------------------------- layout planning for views

def views(*arrays):
    return [_interop.view(x, n, 0) for x, n in zip(arrays, "abc")]


def plan2(a, b, c, ta=False, tb=False):
    p = _interop.plan(*views(a, b, c), ta, tb)
    return (p["layout"], p["op_a"], p["op_b"], p["lda"], p["ldb"], p["ldc"])


def test_plan_contiguous_is_row_major():
    assert plan2(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))) == ("row", False, False, 3, 2, 2)


def test_plan_transposed_view_flips_op():
    # a is the transpose (a view) of a contiguous 3 x 4 matrix: column-major 4 x 3, ld 4.
    assert plan2(strided((4, 3), (1, 4)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))) == ("row", True, False, 4, 2, 2)
    # and asking for its transpose reads it as stored.
    assert plan2(strided((3, 4), (1, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2)), ta=True) == \
        ("row", False, False, 3, 2, 2)


def test_plan_sliced_view_keeps_the_parent_leading_dimension():
    # a[:, 1:4] of a contiguous 4 x 10 matrix: shape (4, 3), strides (10, 1).
    assert plan2(strided((4, 3), (10, 1)), strided((3, 2), (7, 1)), strided((4, 2), (5, 1))) == \
        ("row", False, False, 10, 7, 5)


def test_plan_column_major_output_picks_column_major():
    assert plan2(strided((4, 3), (1, 4)), strided((3, 2), (1, 3)), strided((4, 2), (1, 6))) == \
        ("col", False, False, 4, 3, 6)
    # a row-major operand under a column-major C is read as its transpose.
    assert plan2(FakeCudaArray((4, 3)), strided((3, 2), (1, 3)), strided((4, 2), (1, 4))) == \
        ("col", True, False, 3, 3, 4)


def test_plan_degenerate_dimensions():
    # Single rows/columns may carry any stride in their unit dimension.
    layout, op_a, op_b, lda, ldb, ldc = plan2(strided((1, 3), (99, 1)), strided((3, 1), (5, 7)),
                                              strided((1, 1), (3, 3)))
    assert layout == "row" and lda >= 3 and ldb >= 1 and ldc >= 1
    assert plan2(FakeCudaArray((0, 3)), FakeCudaArray((3, 0)), FakeCudaArray((0, 0)))[0] == "row"


def test_plan_validates_through_the_library_without_a_call():
    p = _interop.plan(*views(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2))))
    assert p["status"] is None and p["batch"] == 1 and p["calls"] == 1


# ---------------------------------------------------------------- matmul: shapes, batches, views

def mplan(a, b, out, **kw):
    va, vb, vc = (_interop.view(x, n, 0) for x, n in ((a, "a"), (b, "b"), (out, "out")))
    return _interop.plan(va, vb, vc, two_d=False, **kw)


def test_matmul_batched_contiguous_is_one_strided_call():
    p = mplan(FakeCudaArray((5, 4, 3)), FakeCudaArray((5, 3, 2)), FakeCudaArray((5, 4, 2)))
    assert (p["batch"], p["stride_a"], p["stride_b"], p["stride_c"], p["calls"]) == (5, 12, 6, 8, 1)
    assert (p["m"], p["n"], p["k"], p["layout"]) == (4, 2, 3, "row")
    assert p["status"] is None


def test_matmul_shared_b_folds_the_batch_into_rows():
    # (5, 4, 3) @ (3, 2): torch folds it into one (20 x 3) @ (3 x 2) product; so does gemmlab.
    p = mplan(FakeCudaArray((5, 4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((5, 4, 2)))
    assert p["folded"] and (p["m"], p["batch"], p["lda"], p["ldc"]) == (20, 1, 3, 2)


def test_matmul_shared_b_with_a_strided_batch_stays_batched():
    # a's batches are not back to back (a slice of a larger batch of rows): no fold, stride 0 for b.
    a = strided((5, 4, 3), (20, 3, 1))
    p = mplan(a, FakeCudaArray((3, 2)), FakeCudaArray((5, 4, 2)))
    assert not p["folded"] and (p["batch"], p["stride_a"], p["stride_b"], p["stride_c"]) == (5, 20, 0, 8)


def test_matmul_shared_a_broadcasts_with_stride_zero():
    p = mplan(FakeCudaArray((4, 3)), FakeCudaArray((6, 3, 2)), FakeCudaArray((6, 4, 2)))
    assert (p["batch"], p["stride_a"], p["stride_b"], p["stride_c"]) == (6, 0, 6, 8)


def test_matmul_transposed_batched_view_is_read_in_place():
    # k.mT of a (B, T, d) tensor: (B, d, T) with strides (T d, 1, d): column-major matrices.
    B, T, d = 3, 8, 4
    q, kt = FakeCudaArray((B, T, d)), strided((B, d, T), (T * d, 1, d))
    p = mplan(q, kt, FakeCudaArray((B, T, T)))
    assert (p["op_a"], p["op_b"], p["ldb"], p["stride_b"], p["batch"]) == (False, True, d, T * d, B)


def test_matmul_broadcast_batch_dimensions():
    # (2, 1, 4, 3) @ (1, 5, 3, 2) -> (2, 5, 4, 2): a repeats along dim 1, b along dim 0: the inner
    # dimension is one strided batch, the outer one a loop of library calls.
    p = mplan(FakeCudaArray((2, 1, 4, 3)), FakeCudaArray((1, 5, 3, 2)), FakeCudaArray((2, 5, 4, 2)))
    assert (p["batch"], p["stride_a"], p["stride_b"], p["stride_c"], p["calls"]) == (5, 0, 6, 8, 2)
    assert p["status"] is None


def test_matmul_one_d_operands():
    p = mplan(FakeCudaArray((3,)), FakeCudaArray((3, 2)), FakeCudaArray((2,)))
    assert (p["m"], p["n"], p["k"]) == (1, 2, 3)
    p = mplan(FakeCudaArray((4, 3)), FakeCudaArray((3,)), FakeCudaArray((4,)))
    assert (p["m"], p["n"], p["k"]) == (4, 1, 3)
    p = mplan(FakeCudaArray((3,)), FakeCudaArray((3,)), FakeCudaArray(()))
    assert (p["m"], p["n"], p["k"]) == (1, 1, 3)


def test_matmul_out_spec():
    v = lambda shape, ts="<f4": _interop.view(FakeCudaArray(shape, ts), "a", 0).t
    assert gemmlab._gemmlab.out_spec(v((7, 1, 4, 3)), v((5, 3, 2)), False, False, False, None) == \
        ((7, 5, 4, 2), "float32")
    assert gemmlab._gemmlab.out_spec(v((4, 3)), v((3,)), False, False, False, None) == ((4,), "float32")
    assert gemmlab._gemmlab.out_spec(v((4, 3), "<f2"), v((3, 2), "<f2"), False, False, False, "float32") == \
        ((4, 2), "float32")
    with pytest.raises(TypeError, match="out_dtype float32 is not offered for float64 inputs"):
        gemmlab._gemmlab.out_spec(v((4, 3), "<f8"), v((3, 2), "<f8"), False, False, False, "float32")


def test_matmul_errors():
    f = FakeCudaArray
    with pytest.raises(ValueError, match=r"inner dimensions 3 != 4"):
        gemmlab.matmul(f((2, 4, 3)), f((2, 4, 3)), f((2, 4, 3)))
    with pytest.raises(ValueError, match=r"batch dimensions of a \(2, 4, 3\) and b \(3, 3, 2\) do not broadcast"):
        gemmlab.matmul(f((2, 4, 3)), f((3, 3, 2)), f((3, 4, 2)))
    with pytest.raises(ValueError, match=r"a @ b has shape \(2, 4, 2\) but out has shape \(4, 2\)"):
        gemmlab.matmul(f((2, 4, 3)), f((3, 2)), f((4, 2)))
    with pytest.raises(ValueError, match="scalar"):
        gemmlab.matmul(f(()), f((3, 2)), f((2,)))
    with pytest.raises(ValueError, match=r"b \(shape \(2, 3, 2\), strides \(12, 4, 2\) elements\) has no unit stride"):
        gemmlab.matmul(f((2, 4, 3)), strided((2, 3, 2), (12, 4, 2)), f((2, 4, 2)))
    with pytest.raises(ValueError, match="out=None: .* pass out="):
        gemmlab.matmul(f((2, 4, 3)), f((3, 2)))
    with pytest.raises(ValueError, match="out is read-only"):
        gemmlab.matmul(f((4, 3)), f((3, 2)), f((4, 2), readonly=True))


def test_matmul_overlapping_output_batches_are_refused_by_the_library():
    # out broadcast along its batch (stride 0): two batches would write one matrix.
    out = strided((3, 4, 2), (0, 2, 1))
    p = mplan(FakeCudaArray((3, 4, 3)), FakeCudaArray((3, 3, 2)), out)
    assert p["status"][0] == "InvalidStride"


def test_half_types_and_float_output():
    for ts in ("<f2",):
        a, b = FakeCudaArray((4, 3), ts), FakeCudaArray((3, 2), ts)
        assert _interop.plan(*views(a, b, FakeCudaArray((4, 2), ts)))["out_dtype"] == "float16"
        assert _interop.plan(*views(a, b, FakeCudaArray((4, 2), "<f4")))["out_dtype"] == "float32"
        with pytest.raises(ValueError, match="dtype mismatch: a and b are float16 but c is float64"):
            _interop.plan(*views(a, b, FakeCudaArray((4, 2), "<f8")))


def test_bfloat16_is_read_from_its_library_dtype():
    class Bf16(FakeCudaArray):
        dtype = "bfloat16"  # what ml_dtypes / JAX / CuPy arrays report; typestr "<V2"

    class Void2(FakeCudaArray):
        dtype = "|V2"

    v = _interop.view(Bf16((4, 3), "<V2"), "a", 0)
    assert v.dtype["name"] == "bfloat16"
    with pytest.raises(TypeError, match=r"a has dtype \|V2; gemmlab multiplies"):
        _interop.view(Void2((4, 3), "<V2"), "a", 0)


def test_dlpack_cpu_device_message_names_the_device():
    class Foreign:
        def __dlpack__(self, stream=None):
            raise AssertionError("must not be exported")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(ValueError, match="a is in CPU memory"):
        gemmlab.gemm(Foreign(), FakeCudaArray((3, 2)))


def test_dlpack_info_reads_a_numpy_capsule():
    np = pytest.importorskip("numpy")
    if not hasattr(np.ndarray, "__dlpack__"):
        pytest.skip("NumPy < 1.22 has no DLPack")
    x = np.arange(12, dtype=np.float64).reshape(3, 4)[:, 1:3]
    info = gemmlab._gemmlab.dlpack_info(x.__dlpack__())
    assert info["shape"] == (3, 2) and info["strides"] == (4, 1)
    assert (info["dl_code"], info["dl_bits"], info["device_type"]) == (2, 64, 1)
    assert info["ptr"] == x.__array_interface__["data"][0]


def test_imports_and_works_without_torch():
    """PyTorch is optional: with `import torch` made to fail, gemmlab imports, lists its types
    and plans products of other arrays (CI has no GPU: the call ends in the library's NoDevice
    or NotDevicePointer on the fake pointer, after every check)."""
    import os
    import subprocess
    import sys

    code = """
import sys
sys.modules["torch"] = None  # import torch now raises ImportError
import gemmlab
from conftest import FakeCudaArray
assert gemmlab.dtypes() == ["float32", "float64", "bfloat16", "float16"], gemmlab.dtypes()
a, b, c = FakeCudaArray((5, 4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((5, 4, 2))
try:
    gemmlab.matmul(a, b, out=c)
except gemmlab.GemmlabError as e:
    assert e.status in ("NoDevice", "NotDevicePointer"), e
try:
    import gemmlab.torch
except ImportError:
    print("no torch: ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(__file__), env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "no torch: ok" in r.stdout, r.stdout + r.stderr
