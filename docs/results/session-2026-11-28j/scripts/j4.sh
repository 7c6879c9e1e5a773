#!/usr/bin/env bash
# Session 2026-11-28j, call 4: j4 = the tree with bench's --inputs. What wide-range inputs cost:
# cuBLAS, auto and rung 31 in float and double at 4096^3 and 8192^3 on `--inputs wide`, and
# rung 31's kernels under ncu there (its FMA pass's share).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=j4
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
for dt in f32 f64; do
timeout 150 $B/gemmlab bench --dtype $dt --sizes 4096,8192 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-$dt-wide.log 2>&1; echo "bench $dt exit $? at $((SECONDS-t0)) s"
grep -E "^gemmlab|^f(32|64) row|^(0|-|31) " $OUT/bench-$dt-wide.log | cut -c1-110
done
mkdir -p $OUT/ncu; for c in "f32 8192" "f64 8192"; do set -- $c
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 --inputs wide > $OUT/ncu/ncu-$1-$2-wide.csv 2>&1
done; echo "ncu: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
