#!/usr/bin/env bash
# The Python module on a GPU machine, with full logs under OUTDIR:
#   1. builds and installs gemmlab for this machine's Python into OUTDIR/site, offline:
#        python3 -m pip install --no-build-isolation --no-deps --no-index --target OUTDIR/site .
#      linking the libgemmlab.so of BUILD_DIR (the carried build) and pip's pybind11; if pip
#      itself fails, the same in-tree build backend is called directly (OUTDIR/install.log);
#      and, as a user would, `pip install .` into a virtualenv (the interpreter's own, else a
#      fresh one with --system-site-packages), imported from there (OUTDIR/venv.log);
#   2. scripts/bench-torch.py: host cost per call and speed beside torch (OUTDIR/bench-torch.log);
#   3. pytest on python/tests (OUTDIR/pytest.log): every dtype, batched shapes, views, every
#      rung, streams, errors, CUDA-graph capture, CuPy and JAX without torch, the torch
#      operators under torch.compile, gradcheck, the BF16 MLP.
# Ends with one summary line. Usage:
#   scripts/check-python.sh OUTDIR
# SITE_DIR and VENV_DIR move the install and the virtualenv out of OUTDIR (default: inside it).
# PYTHON picks the interpreter (default: /opt/torch/.venv/bin/python3 if present, else python3);
# BUILD_DIR the gemmlab build whose libgemmlab.so is linked (default build/device; without one the
# library is compiled from source); BENCH_TORCH_ARGS adds options to step 3.
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
out=$(realpath "$out")
build=${BUILD_DIR:-build/device}
export PATH="$PATH:/usr/local/cuda/bin"
py=${PYTHON:-}
if [[ -z $py ]]; then
  for c in /opt/torch/.venv/bin/python3 python3; do
    if command -v "$c" >/dev/null 2>&1; then py=$(command -v "$c"); break; fi
  done
fi
site=${SITE_DIR:-$out/site}        # the installed package (SITE_DIR: somewhere outside OUTDIR)
venv=${VENV_DIR:-$out/venv}
if [[ -f $build/libgemmlab.so ]]; then
  export GEMMLAB_BUILD_DIR="$build"
else
  unset GEMMLAB_BUILD_DIR
  echo "check-python: no $build/libgemmlab.so; libgemmlab.so is compiled from source"
fi

echo "== python: $py ($("$py" -c 'import sys; print(sys.version.split()[0])' 2>&1))"
t0=$SECONDS
rm -rf "$site"
how=pip
{
  echo "== $py -m pip install --no-build-isolation --no-deps --no-index --target $site ."
  "$py" -m pip install --no-build-isolation --no-deps --no-index --target "$site" .
} >"$out/install.log" 2>&1
install_rc=$?
if ((install_rc != 0)); then
  how=backend
  echo "   pip failed (exit $install_rc); calling the build backend directly" | tee -a "$out/install.log"
  rm -rf "$site"
  "$py" - "$site" >>"$out/install.log" 2>&1 <<'EOF'
import sys, tempfile, zipfile
sys.path.insert(0, "python/build_backend")
import gemmlab_build
wheels = tempfile.mkdtemp()
name = gemmlab_build.build_wheel(wheels)
zipfile.ZipFile(f"{wheels}/{name}").extractall(sys.argv[1])
print("installed", name, "into", sys.argv[1])
EOF
  install_rc=$?
  chmod +x "$site"/gemmlab/*.so 2>/dev/null
fi
echo "   install ($how): exit $install_rc after $((SECONDS - t0)) s (log: $out/install.log)"

t0=$SECONDS
venv_rc=1
{
  # As a user would: `pip install .` into a virtualenv. The interpreter's own one when it runs in
  # one (the GPU machine's /opt/torch/.venv: its torch and pybind11 stay in reach), else a fresh
  # one made with --system-site-packages.
  if "$py" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
    vpy=$py
    echo "== $py runs in the virtualenv $("$py" -c 'import sys; print(sys.prefix)')"
  else
    rm -rf "$venv" && "$py" -m venv --system-site-packages "$venv" && vpy=$venv/bin/python
    echo "== a fresh virtualenv $venv (--system-site-packages)"
  fi
  echo "== $vpy -m pip install --no-build-isolation --no-deps --no-index ."
  "$vpy" -m pip install --no-build-isolation --no-deps --no-index . &&
    (cd / && "$vpy" -c 'import gemmlab; print("virtualenv import:", gemmlab.__file__, gemmlab.dtypes())')
} >"$out/venv.log" 2>&1
venv_rc=$?
echo "   pip install . into a virtualenv: exit $venv_rc after $((SECONDS - t0)) s (log: $out/venv.log)"
tail -1 "$out/venv.log"
rm -rf "$venv"

export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
pytest_rc=1 bench_rc=1
if ((install_rc == 0)); then
  # The benchmark first: its numbers come back even if a long pytest run is cut short.
  t0=$SECONDS
  echo "== scripts/bench-torch.py"
  # shellcheck disable=SC2086
  "$py" scripts/bench-torch.py ${BENCH_TORCH_ARGS:-} >"$out/bench-torch.log" 2>&1
  bench_rc=$?
  echo "   exit $bench_rc after $((SECONDS - t0)) s (log: $out/bench-torch.log)"
  cat "$out/bench-torch.log"
  t0=$SECONDS
  echo "== pytest python/tests"
  # pytest-timeout, where installed: one hung test fails alone instead of stopping the run.
  per_test=$("$py" -c 'import pytest_timeout' 2>/dev/null && echo "--timeout=${PYTEST_TIMEOUT_S:-300}")
  # shellcheck disable=SC2086
  "$py" -m pytest -p no:cacheprovider -v -rsP $per_test python/tests >"$out/pytest.log" 2>&1
  pytest_rc=$?
  echo "   exit $pytest_rc after $((SECONDS - t0)) s (log: $out/pytest.log)"
  grep -E '^(FAILED|ERROR)|bf16 MLP' "$out/pytest.log" | head -40
fi

pytest_line=$(grep -E '^=+ .*(passed|failed|error|skipped).* in [0-9.]+s' "$out/pytest.log" 2>/dev/null | tail -1 | sed -E 's/^=+ //; s/ =+$//')
status=PASS
((install_rc == 0 && venv_rc == 0 && pytest_rc == 0 && bench_rc == 0)) || status=FAIL
echo "check-python: $status: install ($how) exit $install_rc; venv install exit $venv_rc; pytest: ${pytest_line:-no summary} (exit $pytest_rc); bench-torch exit $bench_rc"
[[ $status == PASS ]]
