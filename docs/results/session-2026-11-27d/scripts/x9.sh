#!/usr/bin/env bash
# This session's build (bin, 34fa3b0) against the last session's (bin2, 571ec4e): decode and few-tile rows, alternating.
set -u
cd "$(dirname "$0")"
rm -rf bin bin2 && tar xJf bin.txz && tar xJf bin2.txz
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
S=1x4096x14336,1x14336x4096,1x8192x8192,1x6144x4096,1x3584x18944,8x14336x4096,8x8192x8192,8x3584x18944,1x4608x3584,16x14336x4096
for round in 1 2; do for cold in "" --cold; do for b in bin bin2; do
LD_LIBRARY_PATH=$PWD/$b $PWD/$b/gemmlab bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $cold > $OUT/bench-$b-$round$cold.txt 2>&1; echo "$b round $round $cold exit $?"
done; done; done
python3 - "$OUT" <<'PY'
import sys,re,glob,collections
out=sys.argv[1]; rows=collections.defaultdict(dict)
for f in sorted(glob.glob(out+'/bench-*.txt')):
    name=f.split('bench-')[1][:-4]; b=name.split('-')[0]; cold='cold' if 'cold' in name else 'warm'; case=None
    for line in open(f):
        if line.startswith('bf16 '): case=cold+' '+line.split()[3]
        m=re.match(r'^(0|-)\s+(cublas|auto)\s+\S+\s+([\d.]+)\s',line)
        if m and case: rows[case].setdefault((b,m.group(2)),[]).append(float(m.group(3))*1000)
for case,d in rows.items():
    r=lambda b: min(d[(b,'cublas')])/min(d[(b,'auto')])
    print('%-24s bin auto %s cub %s (%.3f) | bin2 auto %s cub %s (%.3f)'%(case, ','.join('%.1f'%x for x in d[('bin','auto')]), ','.join('%.1f'%x for x in d[('bin','cublas')]), r('bin'), ','.join('%.1f'%x for x in d[('bin2','auto')]), ','.join('%.1f'%x for x in d[('bin2','cublas')]), r('bin2')))
PY
cd $OUT && tar czf ab.tgz bench-*.txt && rm bench-*.txt
