#!/usr/bin/env bash
# Build e787a41 (packed): the tune test that calls the CLI by its build path, then the batched set
# warm and cold and the LLM set cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
timeout 60 .ab/bin/test_tune_gpu --gtest_filter='TuneGpu.AShortTune*' > $OUT/test_tune_cli.txt 2>&1; echo "tune cli test exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)" $OUT/test_tune_cli.txt
BUILD_DIR=$PWD/.ab/bin timeout 480 bash scripts/gpu-check.sh $OUT/sets bench-batched bench-batched-cold bench-llm-cold > $OUT/gpu-check-sets.log 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -8
echo "total $((SECONDS-t0)) s"
