#!/usr/bin/env bash
# The build to submit: both GPU test programs whole; compute-sanitizer memcheck and racecheck on
# auto's 64 x 16 tile (rung 24) and the 128 x 64 tail split.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf sk2.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
mkdir -p $OUT/logs
timeout 150 .ab/bin/test_tune_gpu > $OUT/logs/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/logs/test_tune_gpu.txt | head
timeout 300 .ab/bin/test_gemm_gpu > $OUT/logs/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SkinnySide.RandomInputs.*bf16_row|TailSplit.Every" $OUT/logs/test_gemm_gpu.txt | head
G=.ab/bin/gemmlab
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool $G bench --kernels auto --dtype bf16,f16-f32 --layout row --op nt --shapes 16x4608x3584,12x5000x2056,64x18944x3584 --reps 1 --min-time 0 > $OUT/logs/sanitizer-$tool.txt 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|PASS|FAIL" $OUT/logs/sanitizer-$tool.txt | head -8
done
cuobjdump --dump-sass .ab/bin/libgemmlab.so 2>/dev/null | grep -o "HGMMA\.64x16x16[^ ]*" | sort | uniq -c | head -4
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
echo "total $((SECONDS-t0)) s"
