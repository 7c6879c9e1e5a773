"""gemmlab with CuPy and JAX arrays in a process where PyTorch cannot be imported: batched
products of CuPy arrays, and JAX arrays (read through DLPack) into a CuPy output. Each case runs
in a subprocess (torch blocked, JAX told not to take the GPU's memory up front). Skipped without
CuPy or a CUDA device; the JAX case also without a CUDA build of JAX."""

import os
import subprocess
import sys

import pytest

import gemmlab

cupy = pytest.importorskip("cupy")
try:
    _have_gpu = cupy.cuda.runtime.getDeviceCount() > 0 and gemmlab.device_count() > 0
except Exception:
    _have_gpu = False
if not _have_gpu:
    pytest.skip("needs a CUDA device", allow_module_level=True)

PRELUDE = """
import sys
sys.modules["torch"] = None
import numpy as np, cupy, gemmlab
def check(got, a, b):
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ref, mag = np.matmul(a64, b64), np.matmul(np.abs(a64), np.abs(b64))
    bound = 2 * (a64.shape[-1] + 3) * 2.0 ** -24 * mag + 2.0 ** -11 * np.abs(ref) + 1e-30
    err = np.abs(cupy.asnumpy(got).astype(np.float64) - ref)
    assert (err <= bound).all(), f"max error {err.max():.3e}"
"""


def run(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               XLA_PYTHON_CLIENT_PREALLOCATE="false")
    return subprocess.run([sys.executable, "-c", PRELUDE + code], env=env, capture_output=True, text=True,
                          timeout=300)


def test_cupy_batched_without_torch():
    r = run("""
rng = cupy.random.default_rng(3)
for dtype in ("float32", "float64", "float16"):
    a = rng.uniform(-1, 1, (6, 40, 24)).astype(dtype)
    b = rng.uniform(-1, 1, (6, 32, 24)).astype(dtype).transpose(0, 2, 1)  # a transposed batch
    c = gemmlab.matmul(a, b)
    assert isinstance(c, cupy.ndarray) and c.shape == (6, 40, 32) and str(c.dtype) == dtype
    cupy.cuda.get_current_stream().synchronize()
    check(c, cupy.asnumpy(a), cupy.asnumpy(b))
    w = rng.uniform(-1, 1, (24, 8)).astype(dtype)
    out = cupy.empty((6, 40, 8), dtype="float32" if dtype == "float16" else dtype)
    gemmlab.matmul(a, w, out=out)
    cupy.cuda.get_current_stream().synchronize()
    check(out, cupy.asnumpy(a), cupy.asnumpy(w))
print("cupy ok")
""")
    assert r.returncode == 0 and "cupy ok" in r.stdout, r.stdout + r.stderr


def test_jax_arrays_without_torch():
    probe = run("import jax; assert any(d.platform == 'gpu' for d in jax.devices()); print('jax gpu')")
    if probe.returncode != 0 or "jax gpu" not in probe.stdout:
        pytest.skip("no CUDA build of JAX here: " + (probe.stderr.strip().splitlines() or ["?"])[-1])
    r = run("""
import jax, jax.numpy as jnp
gpu = [d for d in jax.devices() if d.platform == "gpu"][0]
ka, kb = jax.random.split(jax.random.PRNGKey(0))
for dtype in (jnp.float32, jnp.bfloat16):
    a = jax.device_put(jax.random.uniform(ka, (4, 48, 32), dtype=jnp.float32, minval=-1, maxval=1), gpu).astype(dtype)
    b = jax.device_put(jax.random.uniform(kb, (32, 16), dtype=jnp.float32, minval=-1, maxval=1), gpu).astype(dtype)
    a.block_until_ready(); b.block_until_ready()
    out = cupy.empty((4, 48, 16), dtype="float32")  # JAX arrays are immutable: the output is CuPy's
    gemmlab.matmul(a, b, out=out)
    cupy.cuda.runtime.deviceSynchronize()
    check(out, np.asarray(a.astype(jnp.float32)), np.asarray(b.astype(jnp.float32)))
try:
    gemmlab.matmul(a, b)
except ValueError as e:
    assert "pass out=" in str(e), e
print("jax ok")
""")
    assert r.returncode == 0 and "jax ok" in r.stdout, r.stdout + r.stderr
