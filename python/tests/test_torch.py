"""gemmlab.torch on a GPU: the custom operator (torch.library.opcheck: schema, fake and autograd
registration), autograd against torch's own gradients and torch.autograd.gradcheck in float64,
torch.compile(fullgraph=True) with no graph break (aot_eager and inductor, forward and backward),
CUDA-graph capture, gemmlab.torch.Linear / convert / routed, and a small BF16 MLP trained through
gemmlab to PyTorch's loss. Skipped without PyTorch or a CUDA device."""

import copy

import pytest

import gemmlab

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or gemmlab.device_count() == 0:
    pytest.skip("needs a CUDA device and a CUDA build of PyTorch", allow_module_level=True)

import gemmlab.torch as gt  # noqa: E402

DEV = "cuda"


def rand(*shape, dtype=torch.float64, requires_grad=False, seed=None):
    g = None if seed is None else torch.Generator(device=DEV).manual_seed(seed)
    x = (torch.rand(*shape, dtype=torch.float64, device=DEV, generator=g) * 2 - 1).to(dtype)
    return x.requires_grad_(requires_grad)


def close(got, want, dtype):
    """Within the input type's accuracy, relative to the largest element."""
    tol = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 4e-3}[dtype]
    scale = want.double().abs().max().clamp_min(1e-30)
    err = (got.double() - want.double()).abs().max()
    assert err <= tol * scale, f"max error {err.item():.3e} > {tol} * {scale.item():.3e}"


def test_operator_is_registered():
    assert hasattr(torch.ops.gemmlab, "matmul")
    schema = str(torch.ops.gemmlab.matmul.default._schema)
    assert "out_float32" in schema and "precision" in schema, schema


@pytest.mark.parametrize("shapes", [((24, 16), (16, 8)), ((3, 24, 16), (3, 16, 8)), ((3, 24, 16), (16, 8)),
                                    ((24, 16), (3, 16, 8))], ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_opcheck(shapes, dtype):
    a = rand(*shapes[0], dtype=dtype, requires_grad=True)
    b = rand(*shapes[1], dtype=dtype, requires_grad=True)
    torch.library.opcheck(torch.ops.gemmlab.matmul.default, (a, b, False, "default", "auto"))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shapes", [((33, 17), (17, 25)), ((4, 33, 17), (4, 17, 25)), ((4, 33, 17), (17, 25)),
                                    ((33, 17), (4, 17, 25)), ((2, 1, 9, 7), (3, 7, 5)), ((17,), (17, 25)),
                                    ((33, 17), (17,))], ids=str)
def test_autograd_matches_torch(dtype, shapes):
    a = rand(*shapes[0], dtype=dtype, requires_grad=True, seed=1)
    b = rand(*shapes[1], dtype=dtype, requires_grad=True, seed=2)
    a_ref, b_ref = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    y = gt.matmul(a, b)
    y_ref = torch.matmul(a_ref, b_ref)
    assert y.shape == y_ref.shape and y.dtype == y_ref.dtype
    g = rand(*y.shape, dtype=dtype, seed=3)
    y.backward(g)
    y_ref.backward(g)
    close(y, y_ref, dtype)
    close(a.grad, a_ref.grad, dtype)
    close(b.grad, b_ref.grad, dtype)


def test_gemmlab_matmul_takes_the_autograd_operator_when_grad_is_needed():
    a, b = rand(3, 8, 6, requires_grad=True), rand(6, 4)
    y = gemmlab.matmul(a, b)
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()  # a broadcast (stride 0) gradient
    close(a.grad, torch.ones(3, 8, 4, dtype=torch.float64, device=DEV) @ b.T, torch.float64)
    with pytest.raises(ValueError, match="out= records no autograd"):
        gemmlab.matmul(a, b, out=torch.empty(3, 8, 4, dtype=torch.float64, device=DEV))
    with torch.no_grad():
        assert not gemmlab.matmul(a, b).requires_grad


def test_gradcheck_float64():
    a = rand(5, 7, requires_grad=True, seed=4)
    b = rand(7, 3, requires_grad=True, seed=5)
    assert torch.autograd.gradcheck(gt.matmul, (a, b))
    a = rand(2, 5, 7, requires_grad=True, seed=6)
    b = rand(7, 3, requires_grad=True, seed=7)
    assert torch.autograd.gradcheck(gt.matmul, (a, b))
    a = rand(2, 1, 5, 7, requires_grad=True, seed=8)
    b = rand(3, 7, 4, requires_grad=True, seed=9)
    assert torch.autograd.gradcheck(gt.matmul, (a, b))
    x = rand(6, 7, requires_grad=True, seed=10)
    w = rand(3, 7, requires_grad=True, seed=11)
    bias = rand(3, requires_grad=True, seed=12)
    assert torch.autograd.gradcheck(gt.linear, (x, w, bias))


def test_half_inputs_float32_output_and_its_gradient():
    a = rand(16, 32, dtype=torch.bfloat16, requires_grad=True)
    b = rand(32, 8, dtype=torch.bfloat16, requires_grad=True)
    y = gt.matmul(a, b, out_dtype=torch.float32)
    assert y.dtype == torch.float32
    close(y, a.double() @ b.double(), torch.float32)
    y.sum().backward()
    assert a.grad.dtype == torch.bfloat16 and b.grad.dtype == torch.bfloat16
    with pytest.raises(TypeError, match="not offered"):
        gt.matmul(a.double(), b.double(), out_dtype=torch.float32)


def _no_graph_break_compile(fn, backend):
    torch._dynamo.reset()
    return torch.compile(fn, fullgraph=True, backend=backend)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph_forward_and_backward(backend):
    def f(x, w1, w2):
        h = torch.relu(gt.matmul(x, w1))
        return gt.matmul(h, w2.mT).square().mean()

    x = rand(4, 32, 48, dtype=torch.float32, seed=13)
    w1 = rand(48, 64, dtype=torch.float32, requires_grad=True, seed=14)
    w2 = rand(16, 64, dtype=torch.float32, requires_grad=True, seed=15)
    compiled = _no_graph_break_compile(f, backend)
    loss = compiled(x, w1, w2)
    loss.backward()
    g1, g2 = w1.grad.clone(), w2.grad.clone()
    w1.grad = w2.grad = None
    loss_eager = f(x, w1, w2)
    loss_eager.backward()
    close(loss, loss_eager, torch.float32)
    close(g1, w1.grad, torch.float32)
    close(g2, w2.grad, torch.float32)


def test_torch_compile_counts_no_graph_break():
    from torch._dynamo.testing import CompileCounterWithBackend

    counter = CompileCounterWithBackend("aot_eager")
    model = gt.convert(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 8)).to(DEV))
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=counter, fullgraph=True)
    x = rand(10, 32, dtype=torch.float32)
    y = compiled(x)
    close(y, model(x), torch.float32)
    assert counter.frame_count == 1
    ops = [str(n.target) for gm in counter.graphs for n in gm.graph.nodes if n.op == "call_function"]
    assert sum("gemmlab.matmul" in o for o in ops) == 2, ops


def test_torch_compile_reduce_overhead_cuda_graphs():
    def f(x, w):
        return torch.relu(gt.matmul(x, w)) + 1

    x, w = rand(64, 96, dtype=torch.bfloat16), rand(96, 80, dtype=torch.bfloat16)
    torch._dynamo.reset()
    compiled = torch.compile(f, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):  # recorded, then replayed as a CUDA graph
        y = compiled(x, w)
    close(y, f(x, w), torch.bfloat16)
    x.copy_(rand(64, 96, dtype=torch.bfloat16, seed=21))
    y = compiled(x, w).clone()
    close(y, f(x, w), torch.bfloat16)


def test_cuda_graph_capture_of_the_operator_forward_and_backward():
    x = rand(32, 48, dtype=torch.float32)
    layer = gt.Linear(48, 24, device=DEV, dtype=torch.float32)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            layer.zero_grad(set_to_none=True)
            layer(x).square().sum().backward()
    torch.cuda.current_stream().wait_stream(s)
    layer.zero_grad(set_to_none=True)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        loss = layer(x).square().sum()
        loss.backward()
    x.copy_(rand(32, 48, dtype=torch.float32, seed=31))
    g.replay()
    torch.cuda.synchronize()
    ref = torch.nn.functional.linear(x.double(), layer.weight.double(), layer.bias.double())
    close(loss, ref.square().sum(), torch.float32)
    close(layer.weight.grad, (2 * ref).T @ x.double(), torch.float32)


def test_linear_convert_and_routed():
    torch.manual_seed(0)
    ref = torch.nn.Linear(40, 24, device=DEV)
    lab = gt.Linear(40, 24, device=DEV)
    lab.load_state_dict(ref.state_dict())
    x = rand(3, 5, 40, dtype=torch.float32)
    close(lab(x), ref(x), torch.float32)
    assert "precision='default'" in repr(lab)
    model = torch.nn.Sequential(torch.nn.Linear(40, 24), torch.nn.ReLU(), torch.nn.Linear(24, 4)).to(DEV)
    want = model(x)
    gt.convert(model)
    assert all(type(m) is gt.Linear for m in model if isinstance(m, torch.nn.Linear))
    close(model(x), want, torch.float32)
    a, b = rand(4, 30, 20, dtype=torch.bfloat16), rand(20, 10, dtype=torch.bfloat16)
    want = gt.matmul(a, b)
    with gt.routed():
        ys = [a @ b, torch.matmul(a, b), torch.bmm(a, b.expand(4, 20, 10)), torch.nn.functional.linear(a, b.T)]
        y_cpu = a.cpu() @ b.cpu()  # not routable: torch's own
    assert y_cpu.device.type == "cpu"
    for y in ys:
        close(y, want, torch.bfloat16)
    # Routed means through gemmlab: a rung name that does not exist reaches the library.
    for fn in (lambda: a @ b, lambda: torch.bmm(a, b.expand(4, 20, 10)), lambda: torch.nn.functional.linear(a, b.T)):
        with gt.routed(kernel="no_such_rung"), pytest.raises(gemmlab.GemmlabError, match="UnknownKernel"):
            fn()


def test_bf16_mlp_trains_to_pytorchs_loss():
    """Two Linear layers in BF16, forward and backward, 30 SGD steps on a teacher's targets:
    gemmlab's losses follow PyTorch's own step by step within BF16 tolerance, and both fall."""
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 64))
    ref = ref.to(DEV, torch.bfloat16)
    lab = gt.convert(copy.deepcopy(ref))
    g = torch.Generator(device=DEV).manual_seed(1)
    x = torch.randn(1024, 256, device=DEV, generator=g).bfloat16()
    teacher = torch.randn(256, 64, device=DEV, generator=g) / 16
    target = (x.float() @ teacher).bfloat16()
    losses = {}
    for name, model in (("torch", ref), ("gemmlab", lab)):
        opt = torch.optim.SGD(model.parameters(), lr=0.02)
        losses[name] = []
        for _ in range(30):
            opt.zero_grad(set_to_none=True)
            loss = (model(x).float() - target.float()).square().sum(-1).mean()
            loss.backward()
            opt.step()
            losses[name].append(loss.item())
    lt, lg = losses["torch"], losses["gemmlab"]
    print(f"bf16 MLP, 30 SGD steps: loss {lt[0]:.4f} -> torch {lt[-1]:.4f}, gemmlab {lg[-1]:.4f}")
    assert lt[-1] < lt[0] and lg[-1] < lg[0], (lt, lg)
    for i, (a, b) in enumerate(zip(lt, lg)):
        assert abs(a - b) <= 2e-2 * abs(a), f"step {i}: torch {a:.5f} gemmlab {b:.5f}"


def test_the_docs_torch_example_runs():
    """The first Python example of docs/python-and-blas.md, executed as written."""
    import pathlib
    import re

    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python-and-blas.md"
    if not doc.exists():
        pytest.skip("docs/python-and-blas.md is not beside this checkout")
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
    assert blocks, "no Python example in docs/python-and-blas.md"
    scope = {}
    exec(compile(blocks[0], str(doc), "exec"), scope)
    torch.cuda.synchronize()
    assert scope["loss"].isfinite() and scope["model"][0].weight.grad is not None
    assert type(scope["model"][0]) is gt.Linear


def test_matmul_skips_the_operator_only_where_nothing_needs_it(monkeypatch):
    a, b = rand(3, 40, 20, dtype=torch.bfloat16), rand(20, 10, dtype=torch.bfloat16)
    via_op = torch.ops.gemmlab.matmul(a, b)

    def operator_called(*args):
        raise AssertionError("the operator was called")

    monkeypatch.setattr(gt, "_op", operator_called)
    close(gt.matmul(a, b), via_op, torch.bfloat16)       # eager, no gradient: the C++ door
    close(gt.linear(a, b.T), via_op, torch.bfloat16)
    with pytest.raises(AssertionError, match="operator was called"):
        gt.matmul(a.requires_grad_(), b)                # a gradient to record: the operator
    with torch.no_grad():
        close(gt.matmul(a, b), via_op, torch.bfloat16)
