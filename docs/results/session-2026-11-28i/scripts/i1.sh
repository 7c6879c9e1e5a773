#!/usr/bin/env bash
# Session 2026-11-28i, call 1: the float 8192^3 reconstruction and split under ncu, their executed
# opcodes (sass__inst_executed_per_opcode) and their SASS, on the session's starting build.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=i1
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
ncu --version | tail -1
for k in reconstruct split_kernel; do
  timeout 150 ncu --clock-control none -k "regex:$k" --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread --print-metric-instances values $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$k.txt 2>&1
  echo "$k: $(grep -c . $OUT/ncu-$k.txt) lines at $((SECONDS-t0)) s"
done
cuobjdump --dump-sass $B/libgemmlab.so > $OUT/sass-all.txt 2>&1
python3 - $OUT/sass-all.txt $OUT <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for want, name in [('reconstruct_kernelIfLi8', 'reconstruct-f32-8'), ('split_kernelIfLb1', 'split-f32')]:
    for m in re.finditer(r'Function : (\S*' + want + r'\S*)', text):
        body = text[m.end():]
        end = body.find('Function :')
        open(sys.argv[2] + '/' + name + '.sass', 'w').write(m.group(1) + body[:end if end >= 0 else None])
PY
rm -f $OUT/sass-all.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
