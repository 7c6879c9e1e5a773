#!/usr/bin/env bash
# Session 2026-11-29s, call 6, one H200: the packed build of build/carry.commit (rung 15's
# eight-warp 128 x 64 candidate on m16n8k16 with 32-deep k tiles). One gpu-check run: every
# ctest and the mixed set warm and cold; memcheck over the tests that run the rotating tiles by
# name; the new kernel's SASS; tune --explain over the double squares it takes.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
CTEST_JOBS=4 scripts/gpu-check.sh $OUT/gc tests bench-mixed bench-mixed-cold > $OUT/gc.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "^tests|tests passed|geomean" $OUT/gc.out | head -12
grep -hE "\*\*\*Failed|\(Failed\)|Timeout" $OUT/gc/*.log 2>/dev/null | head -10
timeout 200 compute-sanitizer --tool memcheck $B/tests/test_tune_gpu --gtest_filter='TuneGpu.RotatingDmmaTilesCopyWhatTheyCannotRead:TuneGpu.SmallAndMediumTilesMeetTheBound' > $OUT/memcheck-dmma.log 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck-dmma.log | tr '\n' ' ')"
cuobjdump --dump-sass $B/libgemmlab.so 2>/dev/null | awk '/Function : /{keep = ($0 ~ /GemmShapeILi128ELi64ELi32EEENS.*DmmaMathILi16ELb1E/)} keep' > $OUT/sass-dmma-128x64x32-k16.txt
echo "functions: $(grep -c 'Function : ' $OUT/sass-dmma-128x64x32-k16.txt); $(grep -oE 'DMMA\.[0-9A-Z.]*|LDL[.A-Z0-9]*|STL[.A-Z0-9]*|LDS[.A-Z0-9]*|LDGSTS[.A-Z0-9]*' $OUT/sass-dmma-128x64x32-k16.txt | sort | uniq -c | tr '\n' ';')"
timeout 120 $G tune --explain 768x768x768,1000x1000x1000,1024x1024x1024,1536x1536x1536 --op nn,nt --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "explain f64 exit $? at $((SECONDS-t0)) s"
grep -hE "^f64|auto \(|<- " $OUT/explain-f64.txt | head -40
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
