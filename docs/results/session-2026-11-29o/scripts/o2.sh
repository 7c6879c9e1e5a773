#!/usr/bin/env bash
# Session 2026-11-29o, call 2: rung 15's tiles at 128^3-2048^3 beside cuBLAS DGEMM (the sweep,
# with the new 32x32, 32x64x32, 8-warp 128x64 and rotating small tiles), all four op pairs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o2bin; rm -rf $B && mkdir -p $B && tar xJf build/o2.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
timeout 250 $B/gemmlab_tile_sweep --only dmma --sizes 128,256,384,512,768,1000,1024,1536,2048 --op nn,nt --reps 20 > $OUT/sweep-nn-nt.txt 2>&1; echo "sweep nn,nt exit $? at $((SECONDS-t0)) s"
timeout 150 $B/gemmlab_tile_sweep --only dmma --sizes 256,512,1000,1024 --op tn,tt --reps 20 > $OUT/sweep-tn-tt.txt 2>&1; echo "sweep tn,tt exit $? at $((SECONDS-t0)) s"
python3 - $OUT/sweep-nn-nt.txt $OUT/sweep-tn-tt.txt <<'PY'
import sys,collections
rows=collections.defaultdict(list)
for f in sys.argv[1:]:
    for l in open(f):
        if ' ms ' not in l: continue
        name=l[:32].strip(); t=l[32:].split()
        key=(t[1],t[2]); ms=float(t[6]); diff=t[-1] if 'diff' in l else ''
        rows[key].append((name,ms,diff))
for key,v in rows.items():
    cub=[ms for n,ms,d in v if n=='cublas'][0]
    best=sorted(v[1:],key=lambda r:r[1])[:4]
    print(key, 'cublas %.1f us;'%(cub*1000), '; '.join('%s %.1f us %.2fx %s'%(n.replace('dmma ',''),ms*1000,cub/ms,d) for n,ms,d in best))
PY
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
