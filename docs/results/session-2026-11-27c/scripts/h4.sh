#!/usr/bin/env bash
# Rung 28's launch bounds for 9-16 columns with k split across warps (bin2) against HEAD~ (bin).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin bin2 && tar xJf bin.txz && tar xJf bin2.txz && cp --update=none bin/* bin2/
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
S=16x4608x3584,16x18944x3584,16x3584x18944,16x14336x4096,16x4096x14336,16x6144x4096,16x4096x4096,16x28672x8192,12x4096x4096,10x11008x4096,16x11008x4096,16x12288x4096,16x8192x8192,16x8192x28672,16x2048x8192
for round in 1 2; do for cold in "" --cold; do for b in bin bin2; do
LD_LIBRARY_PATH=$PWD/$b stdbuf -oL $PWD/$b/gemmlab bench --dtype bf16 --kernels cublas,decode --layout row --op nt --shapes $S $cold > $OUT/bench-$b-$round$cold.txt 2>&1; echo "$b round $round $cold exit $?"
done; done; done
python3 - "$OUT" <<'PY'
import sys,re,glob,collections
out=sys.argv[1]; rows=collections.defaultdict(dict)
for f in sorted(glob.glob(out+'/bench-*.txt')):
    name=f.split('bench-')[1][:-4]; b=name.split('-')[0]; cold='cold' if 'cold' in name else 'warm'; case=None
    for line in open(f):
        if line.startswith('bf16 '): case=cold+' '+line.split()[3]
        m=re.match(r'^(0|28)\s+\S+\s+\S+\s+([\d.]+)\s',line)
        if m and case: rows[case].setdefault((b,m.group(1)),[]).append(float(m.group(2)))
for case,d in rows.items():
    r=lambda b: min(d[(b,'0')])/min(d[(b,'28')]) if (b,'28') in d else 0
    print(case, ' '.join('%s/%s %s' % (b,k,','.join('%.4f'%x for x in v)) for (b,k),v in sorted(d.items())), ' ratio bin %.3f bin2 %.3f' % (r('bin'), r('bin2')))
PY
grep -c FAIL $OUT/bench-*.txt | tr '\n' ' '
