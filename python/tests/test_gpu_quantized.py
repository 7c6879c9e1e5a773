"""gemmlab.gemm_fp8 and gemmlab.gemm_int8 on a Hopper GPU with PyTorch, against a float64
dequantized reference. Exact tier (DESIGN.md): small-integer inputs and power-of-two scales make
every term and partial sum exact, so the float32 result, the FP8 output and amax must match the
reference exactly; a signed random case checks the bound of docs/precision.md ("FP8"). Skipped
without PyTorch, a CUDA device, or an sm_90 GPU (the 8-bit rungs need sm_90a)."""

import pytest

import gemmlab

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or gemmlab.device_count() == 0:
    pytest.skip("needs a CUDA device and a CUDA build of PyTorch", allow_module_level=True)
if torch.cuda.get_device_capability() != (9, 0):
    pytest.skip("the 8-bit rungs need an sm_90 GPU (H100 / H200)", allow_module_level=True)

DEV = "cuda"
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def small_ints(*shape, dtype=E4M3, gen=None):
    return torch.randint(-3, 4, shape, device=DEV, generator=gen).to(torch.float32).to(dtype)


def pow2(*shape, gen=None):
    """Scale factors 2^e, e in [-2, 2]: exact in every product and sum here."""
    return torch.exp2(torch.randint(-2, 3, shape, device=DEV, generator=gen).to(torch.float32))


def block_scales(m, n, k, gen=None):
    """scale_a (m, ceil(k/128)) column-major and scale_b (ceil(k/128), ceil(n/128)) with leading
    dimension ceil(k/128) rounded up to 4: the layouts gemm_fp8 documents."""
    kb, nb = -(-k // 128), -(-n // 128)
    ld = -(-kb // 4) * 4
    sa = pow2(kb, m, gen=gen).T
    sb = pow2(nb, ld, gen=gen).T[:kb]
    return sa, sb


def dequantized(a, b, sa, sb):
    """float64 reference of a (m x k) @ b (k x n) with per-tensor, per-channel or block scales."""
    m, k = a.shape
    n = b.shape[1]
    A, B = a.double(), b.double()
    if sa is not None and sa.dim() == 2 and sa.shape == (m, -(-k // 128)) and sb is not None and sb.dim() == 2:
        A = A * sa.double().repeat_interleave(128, dim=1)[:, :k]
        B = B * sb.double().repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :n]
        return A @ B
    ref = A @ B
    if sa is not None:
        ref = ref * sa.double().reshape(-1, 1) if sa.numel() == m and m > 1 else ref * float(sa.reshape(-1)[0])
    if sb is not None:
        ref = ref * sb.double().reshape(1, -1) if sb.numel() == n and n > 1 else ref * float(sb.reshape(-1)[0])
    return ref


@pytest.mark.parametrize("scaling", ["tensor", "channel", "block"])
@pytest.mark.parametrize("shape", [(64, 7168, 512), (197, 131, 389), (128, 256, 1000)])
def test_fp8_exact(scaling, shape):
    m, n, k = shape
    g = torch.Generator(device=DEV).manual_seed(m * n + k)
    a = small_ints(m, k, gen=g)
    w = small_ints(n, k, gen=g)  # a Linear's weight: b = w.T, the native "TN" form
    if scaling == "tensor":
        sa, sb = pow2(1, gen=g), pow2(1, gen=g)
    elif scaling == "channel":
        sa, sb = pow2(m, gen=g), pow2(n, gen=g)
    else:
        sa, sb = block_scales(m, n, k, gen=g)
    got = gemmlab.gemm_fp8(a, w.T, scale_a=sa, scale_b=sb, out_dtype=torch.float32)
    want = dequantized(a, w.T, sa, sb)
    assert torch.equal(got.double(), want), (got.double() - want).abs().max()


def test_fp8_block_signed_within_the_bound():
    m, n, k = 256, 384, 4096
    g = torch.Generator(device=DEV).manual_seed(7)
    a = (torch.rand(m, k, device=DEV, generator=g) * 4 - 2).to(E4M3)
    b = (torch.rand(k, n, device=DEV, generator=g) * 4 - 2).to(E4M3).T.contiguous().T
    sa, sb = block_scales(m, n, k, gen=g)
    got = gemmlab.gemm_fp8(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.float32).double()
    want = dequantized(a, b, sa, sb)
    mag = dequantized(a.float().abs().to(E4M3), b.float().abs().to(E4M3), sa, sb)
    gamma = 128 * 2.0 ** -13 + (k / 128 + 5) * 2.0 ** -24  # fp8_block_gamma
    assert ((got - want).abs() <= gamma * mag + 2.0 ** -24 * want.abs() + 2.0 ** -149).all()


def test_fp8_output_saturates_and_reports_amax():
    m, n, k = 130, 140, 2048
    g = torch.Generator(device=DEV).manual_seed(11)
    a, w = small_ints(m, k, gen=g), small_ints(n, k, gen=g)
    want = dequantized(a, w.T, None, None)
    for out_dtype, scale, largest in ((E4M3, 0.25, 448.0), (E4M3, 64.0, 448.0), (E5M2, 4096.0, 57344.0)):
        scale_out = torch.tensor([scale], device=DEV)
        amax = torch.full((1,), -1.0, device=DEV)
        got = gemmlab.gemm_fp8(a, w.T, out_dtype=out_dtype, scale_out=scale_out, amax=amax)
        assert got.dtype == out_dtype
        assert float(amax) == float(want.abs().max())
        expected = (want * scale).clamp(-largest, largest).float().to(out_dtype)  # round to nearest
        assert torch.equal(got.float(), expected.float())


def test_int8_exact_and_scaled():
    m, n, k = 200, 264, 1000
    g = torch.Generator(device=DEV).manual_seed(3)
    a = torch.randint(-128, 128, (m, k), device=DEV, generator=g, dtype=torch.int8)
    w = torch.randint(-128, 128, (n, k), device=DEV, generator=g, dtype=torch.int8)
    got = gemmlab.gemm_int8(a, w.T)
    assert got.dtype == torch.int32
    want = a.cpu().long() @ w.cpu().long().T
    assert torch.equal(got.cpu().long(), want)
    sa, sb = pow2(m, gen=g), pow2(n, gen=g)
    got_f = gemmlab.gemm_int8(a, w.T, scale_a=sa, scale_b=sb)
    assert got_f.dtype == torch.float32
    ref = want.double() * sa.cpu().double().reshape(-1, 1) * sb.cpu().double().reshape(1, -1)
    assert ((got_f.cpu().double() - ref).abs() <= 6 * 2.0 ** -24 * ref.abs()).all()


def test_errors_use_torch_names():
    a = torch.zeros(8, 16, device=DEV, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match=r"a has dtype torch.bfloat16; gemm_fp8 takes"):
        gemmlab.gemm_fp8(a, a.T)
    x = torch.zeros(8, 16, device=DEV, dtype=E5M2)
    with pytest.raises(TypeError, match="no 8-bit product takes float8_e5m2 x float8_e5m2"):
        gemmlab.gemm_fp8(x, x.T)
