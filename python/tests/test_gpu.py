"""gemmlab.gemm and gemmlab.matmul on a GPU, against a float64 reference: every dtype (float32,
float64, bfloat16, float16, half inputs into float32) and op, transposed and sliced views,
batched and broadcast shapes, every rung, streams, CUDA-graph capture, errors. Skipped without
PyTorch or a CUDA device (CI); the GPU machine runs it through scripts/check-python.sh.

Error bound per element (DESIGN.md): |C - Ref| <= gamma * (|alpha| |op(A)| |op(B)| + |beta| |C0|)
with gamma = 2 (k + 3) u of the input type, plus the same term at u = 2^-53 for the float64
reference's own rounding; TF32 adds 2 * 2^-11 per product. Half inputs (docs/precision.md, "BF16
and FP16 inputs"): acc = 2 (k + 3) 2^-24 (Mag + 2^-126) and |C - Ref| <= acc + u_out (|Ref| + acc)
+ eta_out, u_out the unit roundoff of C's type."""

import pytest

import gemmlab

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or gemmlab.device_count() == 0:
    pytest.skip("needs a CUDA device and a CUDA build of PyTorch", allow_module_level=True)

DEV = "cuda"
TORCH_DTYPES = {name: getattr(torch, name) for name in gemmlab.dtypes()}
UNIT_ROUNDOFF = {torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}
HALF = (torch.bfloat16, torch.float16)
# Unit roundoff and smallest subnormal of an output type.
OUT_ROUNDING = {torch.bfloat16: (2.0 ** -8, 2.0 ** -133), torch.float16: (2.0 ** -11, 2.0 ** -24),
                torch.float32: (2.0 ** -24, 2.0 ** -149)}


def rand(*shape, dtype=torch.float64, gen=None):
    return (torch.rand(*shape, dtype=torch.float64, device=DEV, generator=gen) * 2 - 1).to(dtype)


def op(x, t):
    return x.T if t else x


def check(got, a, b, alpha=1.0, beta=0.0, c0=None, ta=False, tb=False, tf32=False):
    """Asserts the element-wise bound; reports the worst element as (row, col, got, want).
    Batched operands (3-D and more, broadcast like torch.matmul) are checked batch by batch."""
    A, B = op(a, ta).double(), op(b, tb).double()
    ref = alpha * torch.matmul(A, B)
    mag = abs(alpha) * torch.matmul(A.abs(), B.abs())
    if beta != 0:
        ref = ref + beta * c0.double()
        mag = mag + abs(beta) * c0.double().abs()
    k = A.shape[-1]
    err = (got.double() - ref).abs()
    if a.dtype in HALF:
        u_out, eta = OUT_ROUNDING[got.dtype]
        acc = 2 * (k + 3) * 2.0 ** -24 * (mag + 2.0 ** -126)
        bound = acc + u_out * (ref.abs() + acc) + eta + 2 * (k + 3) * 2.0 ** -53 * mag
    else:
        u = UNIT_ROUNDOFF[got.dtype]
        gamma = 2 * (k + 3) * (u + 2.0 ** -53) + (2 * 2.0 ** -11 if tf32 else 0.0)
        bound = gamma * mag
    excess = err - bound
    assert torch.isfinite(got).all(), "non-finite values in C"
    if ref.numel() and excess.max() > 0:
        i = int(excess.argmax())
        idx = torch.unravel_index(torch.tensor(i), ref.shape)
        idx = tuple(int(x) for x in idx)
        raise AssertionError(f"C{idx} = {got[idx].item()!r}, want {ref[idx].item()!r}, "
                             f"error {err[idx].item():.3e} > bound {bound[idx].item():.3e}")


SHAPES = [(1, 1, 1), (7, 5, 3), (128, 96, 64), (257, 129, 65), (1024, 512, 256)]


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_every_dtype_and_op(dtype, ta, tb, shape):
    m, n, k = shape
    t = TORCH_DTYPES[dtype]
    a = rand(*((k, m) if ta else (m, k)), dtype=t)
    b = rand(*((n, k) if tb else (k, n)), dtype=t)
    c = gemmlab.gemm(a, b, trans_a=ta, trans_b=tb)
    assert isinstance(c, torch.Tensor) and c.shape == (m, n) and c.dtype == t and c.is_cuda
    torch.cuda.synchronize()
    check(c, a, b, ta=ta, tb=tb)


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_alpha_beta_in_place_and_nan_in_c_with_beta_zero(dtype):
    t = TORCH_DTYPES[dtype]
    m, n, k = 130, 70, 90
    a, b, c0 = rand(m, k, dtype=t), rand(k, n, dtype=t), rand(m, n, dtype=t)
    c = c0.clone()
    out = gemmlab.gemm(a, b, c, alpha=-1.5, beta=0.75)
    assert out is c
    torch.cuda.synchronize()
    check(c, a, b, alpha=-1.5, beta=0.75, c0=c0)
    c = torch.full((m, n), float("nan"), dtype=t, device=DEV)
    gemmlab.gemm(a, b, c, alpha=2.0, beta=0.0)
    torch.cuda.synchronize()
    check(c, a, b, alpha=2.0)


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_transposed_views_are_read_in_place(dtype):
    t = TORCH_DTYPES[dtype]
    m, n, k = 97, 61, 45
    a = rand(k, m, dtype=t).T  # column-major view of A (m x k)
    b = rand(n, k, dtype=t).T  # column-major view of B (k x n)
    assert not a.is_contiguous() and not b.is_contiguous()
    c = gemmlab.gemm(a, b)
    torch.cuda.synchronize()
    check(c, a, b)
    # and with trans flags on top of the views
    c = gemmlab.gemm(a.T, b.T, trans_a=True, trans_b=True)
    torch.cuda.synchronize()
    check(c, a, b)


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_sliced_views_with_padding_and_offsets(dtype):
    t = TORCH_DTYPES[dtype]
    m, n, k = 50, 37, 29
    big_a, big_b = rand(m + 5, k + 7, dtype=t), rand(k + 3, n + 9, dtype=t)
    a = big_a[2:2 + m, 3:3 + k]  # leading dimension k + 7, pointer offset by 2 rows + 3
    b = big_b[1:1 + k, 5:5 + n]
    big_c = rand(m + 4, n + 6, dtype=t)
    big_c0 = big_c.clone()
    c = big_c[1:1 + m, 4:4 + n]
    gemmlab.gemm(a, b, c, alpha=0.5, beta=-2.0)
    torch.cuda.synchronize()
    check(c, a, b, alpha=0.5, beta=-2.0, c0=big_c0[1:1 + m, 4:4 + n])
    mask = torch.ones_like(big_c, dtype=torch.bool)
    mask[1:1 + m, 4:4 + n] = False
    assert torch.equal(big_c[mask], big_c0[mask]), "elements outside the view of C were written"


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_column_major_output_view(dtype):
    t = TORCH_DTYPES[dtype]
    m, n, k = 33, 80, 17
    a, b = rand(m, k, dtype=t), rand(k, n, dtype=t)
    c = torch.empty(n, m, dtype=t, device=DEV).T  # column-major m x n
    gemmlab.gemm(a, b, c)
    torch.cuda.synchronize()
    check(c, a, b)


def test_empty_and_k_zero():
    a, b = torch.empty(5, 0, device=DEV), torch.empty(0, 4, device=DEV)
    c = gemmlab.gemm(a, b)
    torch.cuda.synchronize()
    assert c.shape == (5, 4) and torch.equal(c, torch.zeros(5, 4, device=DEV))
    c = gemmlab.gemm(torch.empty(0, 3, device=DEV), torch.empty(3, 4, device=DEV))
    assert c.shape == (0, 4)


def test_every_rung_in_every_dtype_it_offers():
    m, n, k = 67, 45, 33
    for rung in gemmlab.kernels():
        for dtype in rung["types"]:
            t = TORCH_DTYPES[dtype]
            a, b = rand(m, k, dtype=t), rand(k, n, dtype=t)
            c = gemmlab.gemm(a, b, kernel=rung["name"])
            torch.cuda.synchronize()
            try:
                check(c, a, b, tf32=rung["precision"] == "tf32" and t == torch.float32)
            except AssertionError as e:
                raise AssertionError(f"rung {rung['number']} {rung['name']} {dtype}: {e}") from None


def test_kernel_by_number_matches_by_name():
    a, b = rand(40, 30, dtype=torch.float32), rand(30, 20, dtype=torch.float32)
    c1 = gemmlab.gemm(a, b, kernel="0")
    c2 = gemmlab.gemm(a, b, kernel=gemmlab.kernels()[0]["name"])
    torch.cuda.synchronize()
    assert torch.equal(c1, c2)


def test_tf32_precision_is_opt_in():
    a, b = rand(256, 256, dtype=torch.float32), rand(256, 256, dtype=torch.float32)
    c = gemmlab.gemm(a, b, precision="tf32")
    torch.cuda.synchronize()
    check(c, a, b, tf32=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_int8_emulation_precision_keeps_the_default_bound(dtype):
    # Rung 31 where the device has sm_90a, the default path elsewhere: within the type's bound either way.
    a, b = rand(192, 4100, dtype=dtype), rand(4100, 160, dtype=dtype)
    c = gemmlab.gemm(a, b, precision="int8_emulation")
    torch.cuda.synchronize()
    check(c, a, b)


def test_int8_emulation_modulus_count_is_the_callers_accuracy():
    # 6 moduli keep about 18 bits of each float64 at k = 700: far from float64's bound, close to
    # 2^-18 of sum |A||B|; 20 moduli keep the bound. (docs/precision.md, "A caller's modulus count")
    a, b = rand(96, 700), rand(700, 80)
    ref = torch.matmul(a.double(), b.double())
    mag = torch.matmul(a.double().abs(), b.double().abs())
    few = gemmlab.gemm(a, b, precision="int8_emulation:6")
    many = gemmlab.gemm(a, b, precision="int8_emulation:20")
    torch.cuda.synchronize()
    rel = ((few - ref).abs() / mag).max().item()
    assert 2.0 ** -40 < rel < 2.0 ** -12, rel
    check(many, a, b)


def test_float32_default_precision_is_not_tf32():
    # Inputs whose products lose bits under TF32 rounding: the default must stay within the FP32 bound.
    a = (1 + rand(128, 512, dtype=torch.float64).abs() * 2.0 ** -12).to(torch.float32)
    b = (1 + rand(512, 128, dtype=torch.float64).abs() * 2.0 ** -12).to(torch.float32)
    c = gemmlab.gemm(a, b)
    torch.cuda.synchronize()
    check(c, a, b)


# ---------------------------------------------------------------- streams

def _sleep_then(stream, fill):
    """On `stream`: a long sleep, then fill: a GEMM queued on another stream would race it."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(200_000_000)
        fill()


@pytest.mark.skipif(not hasattr(torch.cuda, "_sleep"), reason="torch.cuda._sleep not available")
def test_runs_on_torchs_current_stream():
    m, n, k = 256, 256, 256
    a = torch.zeros(m, k, device=DEV)
    b = rand(k, n, dtype=torch.float32)
    c = torch.zeros(m, n, device=DEV)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    _sleep_then(s, lambda: a.fill_(1.0))
    with torch.cuda.stream(s):
        gemmlab.gemm(a, b, c)
    s.synchronize()
    check(c, torch.ones(m, k, device=DEV), b)


@pytest.mark.skipif(not hasattr(torch.cuda, "_sleep"), reason="torch.cuda._sleep not available")
def test_runs_on_an_explicit_stream():
    m, n, k = 256, 128, 64
    a = torch.zeros(m, k, device=DEV)
    b = rand(k, n, dtype=torch.float32)
    c = torch.zeros(m, n, device=DEV)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    _sleep_then(s, lambda: a.fill_(1.0))
    gemmlab.gemm(a, b, c, stream=s)  # a torch.cuda.Stream object
    s.synchronize()
    check(c, torch.ones(m, k, device=DEV), b)
    a.zero_()
    torch.cuda.synchronize()
    _sleep_then(s, lambda: a.fill_(1.0))
    gemmlab.gemm(a, b, c, stream=s.cuda_stream)  # a raw handle
    s.synchronize()
    check(c, torch.ones(m, k, device=DEV), b)


# ---------------------------------------------------------------- DLPack-only producers, errors, bench

class DLPackOnly:
    """Exposes a tensor through DLPack alone (the way JAX and other array-API libraries do)."""

    def __init__(self, t):
        self._t = t

    def __dlpack__(self, *args, **kwargs):
        return self._t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def test_dlpack_producers():
    m, n, k = 70, 40, 30
    a, b = rand(k, m, dtype=torch.float64).T, rand(k, n, dtype=torch.float64)
    c = torch.empty(m, n, dtype=torch.float64, device=DEV)
    gemmlab.gemm(DLPackOnly(a), DLPackOnly(b), c)
    torch.cuda.synchronize()
    check(c, a, b)
    with pytest.raises(ValueError, match="pass c="):
        gemmlab.gemm(DLPackOnly(a), DLPackOnly(b))


def test_wrong_device_dtype_and_shape_errors():
    a, b = rand(8, 4, dtype=torch.float32), rand(4, 6, dtype=torch.float32)
    with pytest.raises(ValueError, match="a is in CPU memory"):
        gemmlab.gemm(a.cpu(), b)
    with pytest.raises(ValueError, match="c is in CPU memory"):
        gemmlab.gemm(a, b, torch.zeros(8, 6))
    with pytest.raises(ValueError, match="dtype mismatch: a is torch.float32 but b is torch.float64"):
        gemmlab.gemm(a, b.double())
    with pytest.raises(ValueError, match="inner dimensions 4 != 5"):
        gemmlab.gemm(a, rand(5, 6, dtype=torch.float32))
    with pytest.raises(ValueError, match="c has shape"):
        gemmlab.gemm(a, b, torch.zeros(6, 8, device=DEV))
    with pytest.raises(TypeError, match="a has dtype torch.int32; gemmlab multiplies torch.float32, "
                                        "torch.float64, torch.bfloat16, torch.float16"):
        gemmlab.gemm(a.int(), b.int())
    with pytest.raises(ValueError, match="grad"):
        gemmlab.gemm(a.requires_grad_(), b)
    big = rand(8, 12, dtype=torch.float32)
    with pytest.raises(ValueError, match="no unit stride"):
        gemmlab.gemm(big[:, ::3], b)


def test_library_errors_carry_its_message():
    a, b = rand(8, 4, dtype=torch.float32), rand(4, 6, dtype=torch.float32)
    with pytest.raises(gemmlab.GemmlabError, match="matches no rung") as e:
        gemmlab.gemm(a, b, kernel="nope")
    assert e.value.status == "UnknownKernel"
    no_f64 = [r for r in gemmlab.kernels() if "float64" not in r["types"]]
    if no_f64:
        with pytest.raises(gemmlab.GemmlabError) as e:
            gemmlab.gemm(a.double(), b.double(), kernel=no_f64[0]["name"])
        assert e.value.status == "UnsupportedType"


def test_bench_rows():
    rows = gemmlab.bench(kernel="auto", dtypes=("float32", "float64", "bfloat16"), sizes=(256,), reps=3, warmup=1)
    assert len(rows) == 6
    keys = {"kernel", "dtype", "m", "n", "k", "median_ms", "gflops", "pct_cublas"}
    for r in rows:
        assert keys <= set(r)
        assert r["median_ms"] > 0 and r["gflops"] > 0 and r["pct_cublas"] > 0
    assert {r["kernel"] for r in rows} == {gemmlab.kernels()[0]["name"], "auto"}


# ---------------------------------------------------------------- half inputs into float32

@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_inputs_float32_output(dtype):
    t = TORCH_DTYPES[dtype]
    m, n, k = 130, 70, 200
    a, b = rand(m, k, dtype=t), rand(k, n, dtype=t)
    c = gemmlab.gemm(a, b, out_dtype="float32")
    assert c.dtype == torch.float32
    c2 = gemmlab.matmul(a, b, out_dtype=torch.float32)
    c3 = torch.empty(m, n, device=DEV)
    gemmlab.matmul(a, b, out=c3)  # a float32 out chooses float32 too
    c0 = rand(m, n, dtype=torch.float32)
    c4 = c0.clone()
    gemmlab.gemm(a, b, c4, alpha=0.5, beta=2.0)
    torch.cuda.synchronize()
    for x in (c, c2, c3):
        check(x, a, b)
    check(c4, a, b, alpha=0.5, beta=2.0, c0=c0)
    with pytest.raises(TypeError, match="out_dtype torch.float16 is not offered for torch.bfloat16|not offered"):
        gemmlab.matmul(a, b, out_dtype=torch.float16 if dtype == "bfloat16" else torch.bfloat16)


# ---------------------------------------------------------------- matmul: torch.matmul's shapes

MATMUL_SHAPES = [
    ((8, 33, 17), (8, 17, 25)),          # batched
    ((8, 33, 17), (17, 25)),             # b shared: folded into one product
    ((33, 17), (8, 17, 25)),             # a shared: stride 0
    ((2, 1, 33, 17), (1, 3, 17, 25)),    # broadcast batch dimensions: loops of strided batches
    ((4, 3, 33, 17), (4, 3, 17, 25)),    # two batch dimensions, one strided batch
    ((17,), (17, 25)),                   # 1-D operands
    ((33, 17), (17,)),
    ((17,), (17,)),
    ((5, 33, 17), (17,)),
    ((1, 1), (1, 1)),
    ((3, 0, 5), (3, 5, 4)),              # empty
    ((3, 6, 0), (3, 0, 4)),              # k = 0: zeros
]


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=lambda s: f"{s[0]}@{s[1]}".replace(" ", ""))
def test_matmul_matches_torch_shapes(dtype, shapes):
    t = TORCH_DTYPES[dtype]
    a, b = rand(*shapes[0], dtype=t), rand(*shapes[1], dtype=t)
    c = gemmlab.matmul(a, b)
    want = torch.matmul(a.double(), b.double())
    assert c.shape == want.shape and c.dtype == t and c.is_cuda
    out = torch.full(want.shape, float("nan"), dtype=t, device=DEV)
    assert gemmlab.matmul(a, b, out=out) is out
    torch.cuda.synchronize()
    check(c, a, b)
    check(out, a, b)


@pytest.mark.parametrize("dtype", list(TORCH_DTYPES))
def test_matmul_views_without_copies(dtype):
    t = TORCH_DTYPES[dtype]
    B, T, d = 6, 40, 24
    q, k, v = rand(B, T, d, dtype=t), rand(B, T, d, dtype=t), rand(B, d, T, dtype=t)
    cases = [
        (q, k.mT),                          # attention scores: a transposed batch of keys
        (q.mT, k),                          # transposed a
        (q[:, 3:3 + 20, :], k.mT),          # sliced rows
        (q[::2], k[::2].mT),                # every other batch: a batch stride of 2 T d
        (q[:, :, :16], v[:, :16, :]),       # sliced inner dimension, padded leading dimensions
        (q[0].expand(B, T, d), k.mT),       # expand(): batch stride 0
        (q.permute(1, 0, 2), rand(T, d, 5, dtype=t)),  # batch stride d, row stride T d
    ]
    for a, b in cases:
        c = gemmlab.matmul(a, b)
        torch.cuda.synchronize()
        check(c, a, b)
    # the output may be a view too: a transposed (column-major) batch of matrices
    out = torch.empty(B, T, T, dtype=t, device=DEV).mT
    gemmlab.matmul(q, k.mT, out=out)
    torch.cuda.synchronize()
    check(out, q, k.mT)


def test_matmul_unaddressable_view_is_a_clear_error():
    a = rand(4, 10, 12, dtype=torch.float32)[:, :, ::3]  # no unit stride in its matrices
    with pytest.raises(ValueError, match=r"a \(shape \(4, 10, 4\), strides \(120, 12, 3\) elements\) has no unit "
                                         r"stride .* x.contiguous\(\)"):
        gemmlab.matmul(a, rand(4, 5, dtype=torch.float32))
    with pytest.raises(ValueError, match="do not broadcast"):
        gemmlab.matmul(rand(2, 4, 3), rand(3, 3, 2))
    with pytest.raises(ValueError, match="out has shape"):
        gemmlab.matmul(rand(2, 4, 3), rand(3, 2), out=torch.empty(4, 2, dtype=torch.float64, device=DEV))
    with pytest.raises(ValueError, match="out is in CPU memory"):
        gemmlab.matmul(rand(4, 3), rand(3, 2), out=torch.empty(4, 2, dtype=torch.float64))


def test_matmul_tf32_and_kernel_choice():
    a, b = rand(3, 128, 96, dtype=torch.float32), rand(3, 96, 64, dtype=torch.float32)
    c = gemmlab.matmul(a, b, precision="tf32")
    c0 = gemmlab.matmul(a, b, kernel="0")
    torch.cuda.synchronize()
    check(c, a, b, tf32=True)
    check(c0, a, b)


def test_matmul_on_a_side_stream_and_explicit_stream():
    a, b = rand(4, 64, 64, dtype=torch.float32), rand(4, 64, 64, dtype=torch.float32)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        c = gemmlab.matmul(a, b)
    s.synchronize()
    check(c, a, b)
    c2 = gemmlab.matmul(a, b, stream=s)
    s.synchronize()
    check(c2, a, b)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cuda_graph_capture_of_matmul_and_gemm(dtype):
    t = TORCH_DTYPES[dtype]
    a, b = rand(4, 96, 80, dtype=t), rand(80, 72, dtype=t)
    a2, b2 = rand(96, 80, dtype=t), rand(80, 72, dtype=t)
    out2 = torch.empty(96, 72, dtype=t, device=DEV)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up outside the capture (first-call set-up, as torch asks)
        for _ in range(3):
            gemmlab.matmul(a, b)
            gemmlab.gemm(a2, b2, out2)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = gemmlab.matmul(a, b)            # allocated from the graph's memory pool
        gemmlab.gemm(a2, b2, out2, alpha=2.0)
    for _ in range(2):
        a.copy_(rand(4, 96, 80, dtype=t))
        b2.copy_(rand(80, 72, dtype=t))
        g.replay()
        torch.cuda.synchronize()
        check(out, a, b)
        check(out2, a2, b2, alpha=2.0)
