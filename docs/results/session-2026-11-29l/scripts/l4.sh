#!/usr/bin/env bash
# Session 2026-11-29l, call 4: l4 = 34914ac + the reconstruction's bytes taken by one PRMT each;
# l3 (= 34914ac's kernels) beside it. Ozaki GPU tests on l4, rung 31's passes under ncu for both
# builds twice (alternating), the squares beside cuBLAS, and one residue GEMM launch's pipes.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for N in l3 l4; do mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l3=$(head -1 build/run/l3/COMMIT) l4=$(head -1 build/run/l4/COMMIT)"
B=$PWD/build/run/l4
LD_LIBRARY_PATH=$B timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2; do for N in l3 l4; do B=$PWD/build/run/$N; mkdir -p $OUT/ncu-$N-$r
for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$B timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|pingpong|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$N-$r/ncu-$1-$2.csv 2>&1
done; echo "ncu $N #$r: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$N-$r 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done; done
for r in 1 2; do for N in l3 l4; do B=$PWD/build/run/$N
LD_LIBRARY_PATH=$B timeout 40 $B/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$N-$r.log 2>&1; echo "$N f32 8192 #$r exit $?: $(grep -E '^(0|31) ' $OUT/bench-f32-8192-$N-$r.log | awk '{print $4, $7}' | tr '\n' ' ')"
done; done
B=$PWD/build/run/l4
M=gpu__time_duration.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second,lts__t_sectors_srcunit_tex_op_read.sum
LD_LIBRARY_PATH=$B timeout 60 ncu --clock-control none -k "regex:warp_specialized" -c 1 --metrics $M $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-l4-residue-gemms.txt 2>&1
echo "residue gemms exit $?: $(grep -E 'duration|pipe_|issue_active|dram|per_second|sectors' $OUT/ncu-l4-residue-gemms.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
