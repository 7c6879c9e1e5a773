#!/usr/bin/env bash
# Session 2026-11-29s, call 1, one H200: the packed build of build/carry.commit (73dd977, the
# last commit of session r). Every ctest on it (ping-pong included); the ping-pong kernel's SASS
# and tensor-pipe use under ncu beside cuBLAS; the tile sweep's ping-pong row; and, for the
# double rows of the mixed set under 0.9x (512^3, 1000^3), tune --explain and what cuBLAS runs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
CTEST_JOBS=4 scripts/gpu-check.sh $OUT/gc tests > $OUT/gc.out 2>&1; echo "gpu-check tests exit $? at $((SECONDS-t0)) s"
grep -E "tests passed|tests failed|^tests" $OUT/gc.out $OUT/gc/*.log 2>/dev/null | tail -4
grep -hE "\*\*\*Failed|Timeout|\(Failed\)" $OUT/gc/*.log 2>/dev/null | head -10
# the ping-pong kernel's SASS: its instructions of interest, counted
cuobjdump --dump-sass $B/libgemmlab.so 2>/dev/null | awk '/Function : /{keep = ($0 ~ /pingpong/)} keep' > $OUT/sass-pingpong-full.txt
echo "ping-pong functions: $(grep -c 'Function : ' $OUT/sass-pingpong-full.txt)"
grep -oE "HGMMA\.[0-9x]+\.F32(\.BF16)?|UTMALDG[.0-9A-Z]*|UTMASTG[.0-9A-Z]*|SYNCS\.[A-Z.0-9]*|BAR\.SYNC[.A-Z]*|USETMAXREG[.A-Z0-9]*" $OUT/sass-pingpong-full.txt | sort | uniq -c | sort -rn > $OUT/sass-pingpong.txt; head -16 $OUT/sass-pingpong.txt
# tile sweep with the ping-pong row, batched shapes
for sb in "64x64x64:1024" "128x128x64:1024" "256x256x64:256" "512x64x128:256"; do
  s=${sb%%:*}; b=${sb##*:}
  timeout 60 $B/gemmlab_tile_sweep --shapes $s --op nn,nt --reps 20 --batch $b --only persistent > $OUT/sweep-$s-$b.log 2>&1; echo "sweep $s x $b exit $? at $((SECONDS-t0)) s"
  grep -hE "cublas|64x64|pingpong" $OUT/sweep-$s-$b.log | cut -c1-130
done
mkdir -p $OUT/ncu
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,lts__t_sectors_srcunit_tex_op_read.sum
timeout 90 ncu --clock-control none -k regex:"pingpong|warp_specialized|nvjet" --metrics $M --csv $G bench --dtype bf16 --kernels cublas,auto --shapes 64x64x64@1024,128x128x64@1024 --op nt --layout row --reps 1 --min-time 0 > $OUT/ncu/pingpong.csv 2>&1; echo "ncu pingpong exit $?"
python3 - $OUT/ncu/pingpong.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ix = {k: i for i, k in enumerate(h)}
agg = collections.OrderedDict()
for r in rows[1:]:
    if r[ix["Metric Name"]] == "Metric Name": continue
    key = (r[ix["ID"]], r[ix["Kernel Name"]][:70])
    agg.setdefault(key, {})[r[ix["Metric Name"]]] = r[ix["Metric Value"]]
for (i, k), m in agg.items():
    print(i, k, " ".join(f"{n.split('__')[1][:22]}={v}" for n, v in m.items()))
PY
# double: every option auto weighs, beside cuBLAS, warm and cold
timeout 100 $G tune --explain 256x256x256,512x512x512,1000x1000x1000,1024x1024x1024 --op nn,nt --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "explain f64 exit $? at $((SECONDS-t0)) s"
grep -hE "^f64|auto \(|<- |cublas" $OUT/explain-f64.txt | head -70
timeout 100 $G tune --explain 512x512x512,1000x1000x1000 --op nn --layout row --dtype f64 --cold > $OUT/explain-f64-cold.txt 2>&1; echo "explain f64 cold exit $? at $((SECONDS-t0)) s"
grep -hE "^f64|auto \(|<- |cublas" $OUT/explain-f64-cold.txt | head -40
# what cuBLAS runs for those double squares, and auto, under ncu
M2=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block,launch__cluster_dim_x,launch__cluster_dim_y,sm__inst_executed_pipe_fp64.sum,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum
for s in 512x512x512 1000x1000x1000 1024x1024x1024; do
  timeout 90 ncu --clock-control none -c 40 --metrics $M2 --csv $G bench --dtype f64 --kernels cublas,auto --shapes $s --op nn --reps 1 --min-time 0 > $OUT/ncu/f64-$s.csv 2>&1; echo "ncu f64 $s exit $?"
  python3 - $OUT/ncu/f64-$s.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ix = {k: i for i, k in enumerate(h)}
agg = collections.OrderedDict()
for r in rows[1:]:
    if r[ix["Metric Name"]] == "Metric Name": continue
    key = (r[ix["ID"]], r[ix["Kernel Name"]][:90])
    agg.setdefault(key, {})[r[ix["Metric Name"]]] = r[ix["Metric Value"]]
seen = collections.Counter()
for (i, k), m in agg.items():
    seen[k] += 1
    if seen[k] > 2: continue
    print(i, k, " ".join(f"{n.split('__')[1][:26]}={v}" for n, v in m.items()))
PY
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
