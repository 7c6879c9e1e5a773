#!/usr/bin/env bash
# Session 2026-11-28h, call 4: h4 = h3 with float's magnitude GEMM over 1024 values of k (an
# experiment). The Ozaki tests; every rung-31 kernel under ncu (float 8192^3); the SASS opcode
# counts of the float split and reconstruction; float 8192^3 beside SGEMM for 3 s a row, twice;
# scripts/gpu-check.sh's ozaki step (bench and accuracy).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=h4
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
mkdir -p $OUT/ncu; timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu/ncu-f32-8192.csv 2>&1
echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
cuobjdump --dump-sass $B/libgemmlab.so > $OUT/sass-all.txt 2>&1
python3 - $OUT/sass-all.txt > $OUT/sass-histogram.txt <<'PY'
import re, sys, collections
text = open(sys.argv[1]).read()
for want in ['split_kernelIfLb1', 'reconstruct_kernelIfLi8']:
    for m in re.finditer(r'Function : (\S*' + want + r'\S*)', text):
        body = text[m.end():]
        end = body.find('Function :')
        body = body if end < 0 else body[:end]
        ops = collections.Counter()
        for line in body.split('\n'):
            x = re.match(r'\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
            if x: ops[x.group(2).split('.')[0]] += 1
        print(m.group(1)[:80], sum(ops.values()))
        print('  ' + ' '.join(f'{k}:{v}' for k, v in ops.most_common(40)))
PY
head -c 3000 $OUT/sass-histogram.txt; rm -f $OUT/sass-all.txt
for r in 1 2; do timeout 120 $B/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation --min-time 3000 > $OUT/bench-f32-8192-$r.log 2>&1; grep -E "cublas|int8" $OUT/bench-f32-8192-$r.log; done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -A4 "f32, wide" $OUT/gc/ozaki-accuracy.log
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
