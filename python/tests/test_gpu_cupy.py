"""gemmlab.gemm on CuPy arrays: the output is a CuPy array, CuPy's current stream is used, and
results match cupy.matmul in float64 within the bound of test_gpu.py. Skipped without CuPy or a
CUDA device."""

import pytest

import gemmlab

cupy = pytest.importorskip("cupy")
try:
    _have_gpu = cupy.cuda.runtime.getDeviceCount() > 0 and gemmlab.device_count() > 0
except Exception:  # CuPy without a driver raises instead of returning 0
    _have_gpu = False
if not _have_gpu:
    pytest.skip("needs a CUDA device", allow_module_level=True)

UNIT_ROUNDOFF = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}
CUPY_DTYPES = ["float32", "float64", "float16"]  # CuPy has no bfloat16


def check(got, a, b, ta=False, tb=False):
    A = (a.T if ta else a).astype(cupy.float64)
    B = (b.T if tb else b).astype(cupy.float64)
    ref, mag = A @ B, cupy.abs(A) @ cupy.abs(B)
    k = A.shape[1]
    if a.dtype == cupy.float16:  # docs/precision.md, "BF16 and FP16 inputs", C in float16
        acc = 2 * (k + 3) * 2.0 ** -24 * (mag + 2.0 ** -126)
        bound = acc + 2.0 ** -11 * (cupy.abs(ref) + acc) + 2.0 ** -24 + 2 * (k + 3) * 2.0 ** -53 * mag
    else:
        bound = 2 * (k + 3) * (UNIT_ROUNDOFF[str(got.dtype)] + 2.0 ** -53) * mag
    err = cupy.abs(got.astype(cupy.float64) - ref)
    assert bool((err <= bound).all()), f"max error {float(err.max()):.3e}"


@pytest.mark.parametrize("dtype", CUPY_DTYPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_cupy_arrays(dtype, ta, tb):
    m, n, k = 131, 77, 64
    rng = cupy.random.default_rng(1)
    a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(dtype)
    c = gemmlab.gemm(a, b, trans_a=ta, trans_b=tb)
    assert isinstance(c, cupy.ndarray) and c.shape == (m, n) and str(c.dtype) == dtype
    cupy.cuda.get_current_stream().synchronize()
    check(c, a, b, ta, tb)


def test_cupy_views_and_current_stream():
    m, n, k = 64, 48, 32
    rng = cupy.random.default_rng(2)
    big = rng.uniform(-1, 1, (k + 4, m + 6))
    a = big[1:1 + k, 2:2 + m].T  # a transposed, sliced view
    b = cupy.asfortranarray(rng.uniform(-1, 1, (k, n)))
    with cupy.cuda.Stream(non_blocking=True) as s:
        c = gemmlab.gemm(a, b)
        s.synchronize()
    check(c, a, b)
