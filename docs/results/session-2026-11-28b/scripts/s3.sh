#!/usr/bin/env bash
# Session 2026-11-28b, call 3: the submitted tree (dd4ed27 + the row-major staged store) as a
# packed build: the quantized tests and sanitizers, test_gemm_gpu's Hopper filters (s2's call
# timed out inside EveryRung on a build with a since-dropped variant), base (d7b637e) and fin
# timed alternately, ncu of rung 29 / cuBLASLt FP8 / rung 30 at 4096^3, the SASS opcode counts.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in base fin; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
FB=$PWD/.ab/run/fin/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); fin=$(cat $FB/COMMIT | tr '\n' ' ') base=$(cat .ab/run/base/bin/COMMIT)"
export LD_LIBRARY_PATH=$FB
timeout 200 $FB/test_gemm_gpu --gtest_filter='*Half*:Tf32Mode.*:TailSplit.*:EveryRung.*:NarrowTiles.*:SkinnySide.*:Batched*' > $OUT/gemm.log 2>&1; echo "test_gemm_gpu (Hopper filters) exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm.log | tr '\n' ' ')"
tail -2 $OUT/gemm.log | cut -c1-150
timeout 150 $FB/test_quantized_gpu > $OUT/quant.log 2>&1; echo "test_quantized_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant.log | tr '\n' ' ')"
grep -E "Failure|FAILED  \]" -A3 $OUT/quant.log | head -20
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $FB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.StagedAndRegisterStoresGiveTheSameBits:Fp8Gpu.BlockWiseExactWithUnitScales' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $FB/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.BlockWiseExactWithUnitScales:Int8Gpu.RandomExactOnEveryLayout' > $OUT/racecheck.log 2>&1; echo "racecheck exit $?: $(grep 'RACECHECK SUMMARY' $OUT/racecheck.log | tr '\n' ' ')"
echo "tests done at $((SECONDS-t0)) s"
for v in base fin; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-$v.log 2>&1
  echo "== $v (exit $?)"; grep -E "wgmma_fp8|wgmma_int8" $OUT/bench-$v.log | awk '{print "  " $0}' | cut -c1-150
done
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats"
timeout 60 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $FB/gemmlab bench --dtype fp8 --sizes 4096 > $OUT/ncu-fp8.log 2>&1; echo "ncu fp8 exit $?"
timeout 60 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $FB/gemmlab bench --dtype fp8-block --sizes 4096 > $OUT/ncu-fp8-block.log 2>&1; echo "ncu fp8-block exit $?"
timeout 60 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $FB/gemmlab bench --dtype int8 --sizes 4096 > $OUT/ncu-int8.log 2>&1; echo "ncu int8 exit $?"
timeout 60 ncu --clock-control none -k regex:sm90 -c 1 $S $FB/gemmlab bench --dtype fp8 --sizes 4096 > $OUT/ncu-lt-fp8.log 2>&1; echo "ncu lt exit $?"
for f in $OUT/ncu-*.log; do echo "== $(basename $f)"; grep -E "^  [a-zA-Z_].*\(1|Duration|Tensor|Executed Instructions  |highest-utilized|Warp Cycles Per Issued" $f | sed 's/  */ /g' | cut -c1-160 | head -8; done
cuobjdump -sass $FB/libgemmlab.so > /tmp/all.sass 2>/dev/null
{ for pat in "WgmmaFp8Rung.*Li128ELb0EEE13__nv_bfloat16Lb1ELb0E" "WgmmaFp8Rung.*Li128ELb1EEE13__nv_bfloat16Lb1ELb0E" "WgmmaInt8Rung.*MmaInt8EiLb1ELb0E"; do
  echo "== $pat"; awk -v p="$pat" '/Function :/ {f = ($3 ~ p)} f' /tmp/all.sass | grep -oE "[A-Z]GMMA\.[0-9x]+\.[A-Z0-9.]+|STSM[A-Z0-9.]*|UTMASTG[A-Z0-9.]*|\bSTS\b|\bSTG\.E[A-Z0-9.]*|\bLDL\b|\bSTL\b" | sort | uniq -c; done; } > $OUT/sass-summary.txt; cat $OUT/sass-summary.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
