#!/usr/bin/env bash
# Final build: full build, SASS of rung 27's mma kernel, gpu-check tests, sanitizers on rung 27's
# half types, explain on the batched rows (the model's 128x64 fill_k), tiny batched rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/f1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
O=$(find $B -name '27_small.cu.o' | head -1)
cuobjdump -sass $O > $OUT/sass27.txt 2>&1
awk '/Function :.*small_mma_kernel/{f=1} /Function :/ && !/small_mma_kernel/{f=0} f' $OUT/sass27.txt > $OUT/sass27-mma.txt
echo "SASS small_mma_kernel (16 instantiations): $(grep -c HMMA.16816.F32 $OUT/sass27-mma.txt) HMMA.16816.F32, $(grep -c LDSM $OUT/sass27-mma.txt) LDSM, $(grep -c LDGSTS $OUT/sass27-mma.txt) LDGSTS, $(grep -cE 'FFMA' $OUT/sass27-mma.txt) FFMA"
(cd tree && BUILD_DIR=$B CTEST_JOBS=8 timeout 300 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1); echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
SS=32x32x32@64,67x45x71@3,16x16x16@100,5x7x130@4,33x31x200@2
for tool in memcheck racecheck; do
timeout 120 compute-sanitizer --tool $tool $G bench --kernels small --dtype bf16,f16-f32 --layout col --op all --shapes $SS --reps 1 --min-time 0 > $OUT/$tool.log 2>&1; echo "$tool exit $?: $(grep -E 'SUMMARY' $OUT/$tool.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/$tool.log) PASS, $(grep -c FAIL $OUT/$tool.log) FAIL"
done
timeout 60 $G tune --explain 64x512x64@512,64x64x64@1024,512x64x128@256,128x128x64@1024,512x512x64@64 --op nn,nt > $OUT/explain-batched.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(" $OUT/explain-batched.txt | paste - - | sed 's/alpha=1 beta=0//' | head -12
echo "total $((SECONDS-t0)) s"
