#!/usr/bin/env bash
# Kernel durations (ncu) of every option tune --explain runs on two few-tile LLM rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
for s in 128x3584x3584 64x2048x2048; do
t0=$SECONDS
timeout 250 ncu --clock-control none --kernel-name-base mangled -k regex:'warp_specialized|sum_slices|nvjet' --metrics gpu__time_duration.sum,launch__grid_size --csv $G tune --explain $s --op nt > $OUT/ncu-$s.csv 2> $OUT/ncu-$s.err; echo "ncu $s exit $? after $((SECONDS-t0)) s"
python3 - $OUT/ncu-$s.csv <<'PY'
import csv,sys,statistics,re
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ii=h.index('ID')
d={}
for r in rows[1:]:
    d.setdefault(r[ii],{'name':r[ki]})[r[mi]]=float(r[vi].replace(',',''))
# group consecutive launches with the same (name, grid)
groups=[]
for i,m in sorted(d.items(),key=lambda x:int(x[0])):
    n=m['name']; cfg=re.search(r'BlockConfigILi(\d+)ELi(\d+)ELi(\d+)',n); sch='tail' if 'TailSplit' in n else ('sum' if 'sum_slices' in n else ('nvjet' if 'nvjet' in n else 'pers' if 'Persistent' in n else 'other'))
    key=(sch, cfg.groups() if cfg else n[:40], int(m.get('launch__grid_size',0)))
    if groups and groups[-1][0]==key: groups[-1][1].append(m['gpu__time_duration.sum'])
    else: groups.append([key,[m['gpu__time_duration.sum']]])
for key,v in groups: print(key, 'n=%d median %.0f ns min %.0f'%(len(v),statistics.median(v),min(v)))
PY
done
