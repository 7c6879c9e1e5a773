#!/usr/bin/env bash
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
G=bin/gemmlab
for i in 1 2; do
  timeout 60 $G bench --seed $i --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes 128x8192x2048,128x8192x1024,128x4096x2048,128x8192x4096 2>&1 | grep -E "^(-|0) " | awk '{print $2, $4}' | tr '\n' ' '; echo
done
timeout 30 gap/gap 128x8192x2048 128x8192x1024
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum --csv $G bench --seed 1 --kernels cublas,auto --dtype bf16 --layout row --shapes 128x8192x2048 --op nt --reps 3 --min-time 0 > $OUT/ncu.csv 2>/dev/null; echo "ncu exit $?"
python3 - "$OUT/ncu.csv" <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
hdr=rows[0]; mi=hdr.index('Metric Name'); vi=hdr.index('Metric Value'); ii=hdr.index('ID'); ki=hdr.index('Kernel Name')
d=collections.OrderedDict()
for r in rows[1:]: d.setdefault((int(r[ii]),r[ki]),{})[r[mi]]=r[vi]
for (i,k),m in list(d.items())[-12:]:
    print(i, [m.get(x) for x in sorted(m)], k[:60])
print(sorted(m))
PY
timeout 30 gap/gap 128x8192x2048
