#!/usr/bin/env bash
# Rung 27 item placement in 32 bits (bin2) against HEAD (bin): batched small shapes, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin bin2 && tar xJf bin.txz && tar xJf bin2.txz && cp -n bin/* bin2/
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
S=64x64x64@1024,32x32x32@16384,32x32x128@4096,64x64x128@1024,16x16x16@100000,128x128x64@512,67x45x71@333,1000x7x33@20,5x7x130@400
for round in 1 2; do for b in bin bin2; do
LD_LIBRARY_PATH=$PWD/$b stdbuf -oL $PWD/$b/gemmlab bench --dtype bf16 --kernels cublas,small --layout row --op nt,nn --shapes $S > $OUT/bench-$b-$round.txt 2>&1; echo "$b round $round exit $?"
done; done
for f in $OUT/bench-bin-1.txt; do grep -E "^bf16" $f | head -20 > /dev/null; done
python3 - "$OUT" <<'PY'
import sys,re,glob,collections
out=sys.argv[1]; rows=collections.defaultdict(dict)
for f in sorted(glob.glob(out+'/bench-*.txt')):
    b=f.split('bench-')[1].rsplit('-',1)[0]; r=f.rsplit('-',1)[1][:-4]; case=None
    for line in open(f):
        if line.startswith('bf16 '): case=' '.join(line.split()[1:4])+' '+line.split()[4]
        m=re.match(r'^(0|27)\s+\S+\s+\S+\s+([\d.]+)\s',line)
        if m and case: rows[case].setdefault((b,m.group(1)),[]).append(float(m.group(2)))
for case,d in rows.items():
    print(case, ' '.join('%s/%s %s' % (b,k,','.join('%.4f'%x for x in v)) for (b,k),v in sorted(d.items())))
PY
for b in bin bin2; do
LD_LIBRARY_PATH=$PWD/$b timeout 60 ncu --clock-control none -k regex:small_mma --launch-skip 3 --launch-count 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active $PWD/$b/gemmlab bench --dtype bf16 --kernels small --layout row --op nt --shapes 64x64x64@1024 --reps 3 --min-time 0 > $OUT/ncu-$b.txt 2>&1
echo "ncu $b: $(grep -E 'inst_executed|duration|issue_active' $OUT/ncu-$b.txt | awk '{print $1, $(NF)}' | tr '\n' ' ')"
done
LD_LIBRARY_PATH=$PWD/bin2 $PWD/bin2/gemmlab bench --dtype bf16,f16 --kernels small --layout col,row --op all --shapes 32x32x32@64,67x45x71@3,16x16x16@100,5x7x130@4,33x31x200@2,1000x7x33@20 --reps 1 --min-time 0 > $OUT/check.txt 2>&1; echo "check exit $?: $(grep -c PASS $OUT/check.txt) PASS, $(grep -c FAIL $OUT/check.txt) FAIL"
grep -c FAIL $OUT/bench-*.txt
