#!/usr/bin/env bash
# Session 2026-11-29p, call 8: the committed code with two C stagings (build/carry.commit, the
# whole build tree): every ctest; racecheck over rung 24's 64x64 tile on a batch, on this build
# and on p1's (whose rung 24 is the one before the change).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
mkdir -p build/p1bin && tar -xJf build/p1.txz -C build/p1bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p8=$(cat build/carry.commit) p1=$(head -1 build/p1bin/COMMIT)"
for b in device p1bin; do
  LD_LIBRARY_PATH=$PWD/build/$b timeout 30 compute-sanitizer --tool racecheck --kernel-name kns=warp_specialized build/$b/gemmlab bench --dtype bf16 --kernels auto --layout row --op nn --shapes 64x64x64@256 --reps 1 --min-time 0 > $OUT/racecheck-$b.log 2>&1
  echo "racecheck $b exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|Internal' $OUT/racecheck-$b.log | tr '\n' ' ') rows PASS $(grep -c ' PASS' $OUT/racecheck-$b.log)"
done
CTEST_JOBS=4 timeout 230 scripts/gpu-check.sh $OUT/gc tests > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gc/ctest.log | tail -6
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
