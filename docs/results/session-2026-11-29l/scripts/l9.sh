#!/usr/bin/env bash
# Session 2026-11-29l, call 9: l3 (= the submitted kernels). Float 8192^3 under `gemmlab bench`
# with rung 31 timed alone and beside SGEMM (interleaved, as always), alternating, each with
# nvidia-smi polling the clock, power and throttle reasons every 50 ms: how much of the bench's
# time above the ncu sum comes with SGEMM's rounds.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=l3; mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
summary() {
python3 - $1 <<'PY'
import sys, statistics as st
rows=[l.split(', ') for l in open(sys.argv[1]) if l.count(',')>=4]
clk=[float(r[1].split()[0]) for r in rows]; pw=[float(r[2].split()[0]) for r in rows]; cap=[r[4].strip()!='0x0000000000000000' for r in rows]
busy=[i for i,p in enumerate(pw) if p>200]
print(f"{len(rows)} samples, {len(busy)} above 200 W: clock median {st.median([clk[i] for i in busy]):.0f} MHz, min {min(clk[i] for i in busy):.0f}; power median {st.median([pw[i] for i in busy]):.0f} W; throttled {sum(cap[i] for i in busy)}")
PY
}
for r in 1 2; do for K in int8_emulation cublas,int8_emulation; do
  tag=$(echo $K | tr ',' '+')
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 50 > $OUT/smi-$tag-$r.csv 2>&1 &
  SMI=$!
  timeout 40 $B/gemmlab bench --dtype f32 --sizes 8192 --kernels $K > $OUT/bench-$tag-$r.log 2>&1; rc=$?
  kill $SMI; sleep 0.3
  echo "$K #$r exit $rc: $(grep -E '^(0|31) ' $OUT/bench-$tag-$r.log | awk '{print $2, $4, $5}' | tr '\n' ' ')| smi $(summary $OUT/smi-$tag-$r.csv)"
done; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
