#!/usr/bin/env bash
# Session 2026-11-29n, call 6: the committed code (92d3985), the whole build tree. The SASS of
# rung 24's transposed kernels (wgmma forms, stores, local memory), then memcheck and racecheck
# over auto on rows that take each of the three transposed tiles (BF16 and FP16, row-major nt).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); n6=$(cat build/carry.commit)"
G=build/device/gemmlab
cuobjdump --dump-sass build/device/libgemmlab.so > $OUT/sass-all.txt 2>&1; echo "cuobjdump exit $? at $((SECONDS-t0)) s"
python3 - $OUT/sass-all.txt > $OUT/sass-transposed-summary.txt <<'PY'
import re, sys, subprocess, collections
txt = open(sys.argv[1]).read()
for f in re.split(r'\n\s*Function : ', txt)[1:]:
    name = f.split('\n')[0].strip()
    if 'Transposed' not in name: continue
    dem = subprocess.run(['c++filt', name], capture_output=True, text=True).stdout.strip()
    cfg = re.search(r'BlockConfig<(\d+), (\d+), (\d+)', dem)
    out = re.search(r'Mma16Bit<(\w+)>, (\w+), (true|false|\d), (true|false|\d)', dem)
    gm = collections.Counter(re.findall(r'HGMMA\.(64x\d+x16)\.F32\.(BF16|F16)', f))
    stg = collections.Counter(re.findall(r'\b(STG\.E(?:\.\w+)*)\b', f))
    print(cfg.groups() if cfg else '?', out.groups() if out else '?', dict(gm), dict(stg),
          'STL', len(re.findall(r'\bSTL\b', f)), 'LDL', len(re.findall(r'\bLDL\b', f)))
PY
sort $OUT/sass-transposed-summary.txt | uniq -c | head -40
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --kernel-regex kns=warp_specialized $G bench --kernels auto --dtype bf16,f16 --layout row --op nt --shapes 128x4571x3584,512x3000x2048,500x4571x3584 --reps 1 --min-time 0 > $OUT/$tool-transposed.txt 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASS|FAIL|rror" $OUT/$tool-transposed.txt | head -8
done
timeout 30 $G tune --explain 128x4571x3584,512x3000x2048,500x4571x3584 --op nt --layout row --dtype bf16 > $OUT/explain-ragged.txt 2>&1
grep -E "auto \(" $OUT/explain-ragged.txt
rm -f $OUT/sass-all.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
