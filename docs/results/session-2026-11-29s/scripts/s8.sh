#!/usr/bin/env bash
# Session 2026-11-29s, call 8, one H200: the packed build of build/carry.commit (the ping-pong
# kernel's producer loop shared with rung 22's, load_unit). The ctest suites that run the Hopper
# kernels (every rung by name, the ping-pong, flat, 64-column and cluster-split tiles, FP8 and
# INT8), four at a time, within the call's time.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
(cd build/device && timeout 170 ctest -j4 -R "EveryRung|PingPong|FlatTiles|SixtyFour|ClusterSplit|Fp8Gpu|Int8Gpu" --output-on-failure > $OUT/ctest-hopper.log 2>&1); echo "ctest exit $? at $((SECONDS-t0)) s"
grep -E "tests passed|tests failed|\*\*\*Failed|\(Failed\)" $OUT/ctest-hopper.log | head -12
echo "total $((SECONDS-t0)) s"
