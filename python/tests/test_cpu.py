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
    assert {"float32", "float64"} <= set(gemmlab.dtypes())
    assert gemmlab.precisions()[0] == "default"
    assert "tf32" in gemmlab.precisions()


def test_kernels_lists_the_ladder_without_a_gpu():
    rungs = gemmlab.kernels()
    assert rungs, "the ladder is empty"
    keys = {"number", "name", "technique", "seeds", "types", "precision", "engine"}
    for r in rungs:
        assert keys <= set(r), r
        # A rung without a Python dtype is a half-precision one (bf16/f16 have no Python entry
        # point yet); every other rung offers at least one.
        assert r["types"] or set(r["library_types"]) <= {"bf16", "f16"}, f"rung {r['name']} lists no dtype"
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
    with pytest.raises(TypeError, match=r"a has dtype <i4; gemmlab.gemm multiplies float32, float64"):
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


def test_plan_contiguous_is_row_major():
    a, b, c = views(FakeCudaArray((4, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2)))
    assert _interop.plan(a, b, c, False, False) == ("row", False, False, 3, 2, 2)


def test_plan_transposed_view_flips_op():
    # a is the transpose (a view) of a contiguous 3 x 4 matrix: column-major 4 x 3, ld 4.
    a, b, c = views(strided((4, 3), (1, 4)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2)))
    assert _interop.plan(a, b, c, False, False) == ("row", True, False, 4, 2, 2)
    # and asking for its transpose reads it as stored.
    a, b, c = views(strided((3, 4), (1, 3)), FakeCudaArray((3, 2)), FakeCudaArray((4, 2)))
    assert _interop.plan(a, b, c, True, False) == ("row", False, False, 3, 2, 2)


def test_plan_sliced_view_keeps_the_parent_leading_dimension():
    # a[:, 1:4] of a contiguous 4 x 10 matrix: shape (4, 3), strides (10, 1).
    a, b, c = views(strided((4, 3), (10, 1)), strided((3, 2), (7, 1)), strided((4, 2), (5, 1)))
    assert _interop.plan(a, b, c, False, False) == ("row", False, False, 10, 7, 5)


def test_plan_column_major_output_picks_column_major():
    a, b, c = views(strided((4, 3), (1, 4)), strided((3, 2), (1, 3)), strided((4, 2), (1, 6)))
    assert _interop.plan(a, b, c, False, False) == ("col", False, False, 4, 3, 6)
    # a row-major operand under a column-major C is read as its transpose.
    a, b, c = views(FakeCudaArray((4, 3)), strided((3, 2), (1, 3)), strided((4, 2), (1, 4)))
    assert _interop.plan(a, b, c, False, False) == ("col", True, False, 3, 3, 4)


def test_plan_degenerate_dimensions():
    # Single rows/columns may carry any stride in their unit dimension.
    a, b, c = views(strided((1, 3), (99, 1)), strided((3, 1), (5, 7)), strided((1, 1), (3, 3)))
    layout, op_a, op_b, lda, ldb, ldc = _interop.plan(a, b, c, False, False)
    assert layout == "row" and lda >= 3 and ldb >= 1 and ldc >= 1
    a, b, c = views(FakeCudaArray((0, 3)), FakeCudaArray((3, 0)), FakeCudaArray((0, 0)))
    assert _interop.plan(a, b, c, False, False)[0] == "row"


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
