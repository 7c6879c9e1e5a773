#!/usr/bin/env bash
# Packs the local build's binaries for the device: .ab/${1:-bin}.txz
set -e
cd /work/main
name=${1:-bin}
rm -rf .ab/$name && mkdir -p .ab/$name
cp build/device/gemmlab build/device/libgemmlab*.so* build/device/tests/test_gemm_gpu build/device/tests/test_tune_gpu .ab/$name/
strip --strip-unneeded .ab/$name/* 2>/dev/null || true
git rev-parse --short HEAD > .ab/$name/COMMIT; git diff --quiet || echo "+dirty" >> .ab/$name/COMMIT
tar -C .ab -cJf .ab/$name.txz --transform "s,^$name,bin," $name
ls -la .ab/$name.txz
