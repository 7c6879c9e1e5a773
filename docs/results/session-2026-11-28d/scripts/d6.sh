#!/usr/bin/env bash
# Session 2026-11-28d, call 6: oz5 = the code to submit (rung 31's residue GEMMs, chunked split,
# templated reconstruction, wide residues by pieces, the pool keeping large workspaces, and
# auto running rung 31 for large double products): its Ozaki and graph tests, then
# scripts/gpu-check.sh's ozaki and quantized steps on it.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/oz5 && tar -C .ab/run/oz5 -xJf .ab/oz5.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz5=$(cat .ab/run/oz5/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz5/bin; export LD_LIBRARY_PATH=$B
for t in test_ozaki_gpu test_graph_gpu; do
  timeout 120 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
BUILD_DIR=$B timeout 420 scripts/gpu-check.sh $OUT/gc ozaki quantized > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
grep -hE "^f|int8_emulation|cublas |auto " $OUT/gc/ozaki-bench.log | cut -c1-120
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
