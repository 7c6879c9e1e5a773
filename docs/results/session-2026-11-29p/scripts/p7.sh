#!/usr/bin/env bash
# Session 2026-11-29p, call 7: rung 24's 64x64 and 128x64 tiles with two C stagings (p7, packed)
# against the build before (0ccb0d3, the carried tree). Tests of the tiles on p7, memcheck and
# racecheck over the batched rows that take them, then the BF16 batched set and the 64-token LLM
# rows on both builds, alternating, two rounds.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
mkdir -p build/p7bin && tar -xJf build/p7.txz -C build/p7bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); old=$(cat build/carry.commit) p7=$(head -1 build/p7bin/COMMIT)"
N=build/p7bin
export LD_LIBRARY_PATH=$PWD/$N
timeout 150 $N/tests/test_gemm_gpu --gtest_filter='SixtyFourColumnTiles.*:NarrowTiles.*:Batched*:BatchedApi*:ManyBatches*:TailSplit*:ClusterSplit*:Repitch*:HalfRung*:SkinnySide*:TallAndWide*' > $OUT/gemm-gpu.log 2>&1; echo "gemm_gpu exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED)' $OUT/gemm-gpu.log | tr '\n' ' ')"
timeout 120 $N/tests/test_tune_gpu > $OUT/tune-gpu.log 2>&1; echo "tune_gpu exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED)' $OUT/tune-gpu.log | tr '\n' ' ')"
BS=64x64x64@1024,64x512x64@512,128x128x64@1024,64x64x64@4096
timeout 60 compute-sanitizer --tool memcheck $N/gemmlab bench --dtype bf16,f16 --kernels auto --layout row --op nn,nt --shapes $BS,64x4096x4096 --reps 1 --min-time 0 > $OUT/memcheck.log 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s: $(grep 'ERROR SUMMARY' $OUT/memcheck.log) rows PASS $(grep -c ' PASS' $OUT/memcheck.log)"
timeout 60 compute-sanitizer --tool racecheck --kernel-name kns=warp_specialized $N/gemmlab bench --dtype bf16 --kernels auto --layout row --op nn --shapes 64x64x64@256,64x512x64@64 --reps 1 --min-time 0 > $OUT/racecheck.log 2>&1; echo "racecheck exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|Internal' $OUT/racecheck.log | tr '\n' ' ') rows PASS $(grep -c ' PASS' $OUT/racecheck.log)"
L=64x2048x2048,64x3072x2048,64x3584x3584,64x4608x3584,64x4096x4096,64x6144x4096,64x14336x4096,64x8192x8192
for round in 1 2; do
  for b in old p7; do
    if [ $b = old ]; then G=build/device/gemmlab; export LD_LIBRARY_PATH=$PWD/build/device; else G=$N/gemmlab; export LD_LIBRARY_PATH=$PWD/$N; fi
    timeout 60 $G bench --preset batched --dtype bf16 --json $OUT/batched-$b-r$round.json > $OUT/batched-$b-r$round.log 2>&1; echo "batched $b r$round exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/batched-$b-r$round.json | grep geomean | cut -c1-150)"
    timeout 40 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $L --json $OUT/llm64-$b-r$round.json > $OUT/llm64-$b-r$round.log 2>&1; echo "llm64 $b r$round exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/llm64-$b-r$round.json | grep geomean | cut -c1-150)"
  done
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
