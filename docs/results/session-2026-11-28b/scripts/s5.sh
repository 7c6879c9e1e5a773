#!/usr/bin/env bash
# Session 2026-11-28b, call 5: rung 29 on rung 23's block pairs (A multicast, 2 x 1 clusters, as
# cuBLASLt's kernel) now that C goes through shared memory, against fin (single blocks); each
# build's bench twice, alternating; the pairs' quantized tests.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin pair; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for r in 1 2; do for v in fin pair; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype fp8,fp8-block --sizes 4096,8192 > $OUT/bench-$v-$r.log 2>&1
  echo "== $v $r (exit $?)"; grep -E "wgmma_fp8" $OUT/bench-$v-$r.log | awk '{print "  " $0}' | cut -c1-150
done; done
B=$PWD/.ab/run/pair/bin
LD_LIBRARY_PATH=$B timeout 120 $B/test_quantized_gpu --gtest_filter='Fp8Gpu.*' > $OUT/quant-pair.log 2>&1; echo "test_quantized_gpu Fp8Gpu.* on pair exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/quant-pair.log | tr '\n' ' ')"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
