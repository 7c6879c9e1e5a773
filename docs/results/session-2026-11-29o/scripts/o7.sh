#!/usr/bin/env bash
# Session 2026-11-29o, call 7: the committed code (see build/carry.commit), the whole build tree.
# Every ctest, the mixed and batched sets (gpu-check), ncu of auto's new rung 15 tiles beside
# cuBLAS DGEMM at 512^3 and 1024^3 (caches flushed, one launch), and their SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); o7=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 420 scripts/gpu-check.sh $OUT/gc tests bench-mixed bench-batched > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -6 $OUT/gpu-check.out | cut -c1-700
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
NS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy"
for shape in 512x512x512 1024x1024x1024; do
  for k in auto cublas; do
    re=$( [ $k = auto ] && echo "regex:mma_gemm_kernel" || echo "regex:xmma|gemm" )
    timeout 40 ncu --clock-control none --kernel-name-base demangled -k "$re" -c 1 $NS $G bench --kernels $k --dtype f64 --layout row --op nt --shapes $shape --reps 1 --min-time 0 > $OUT/ncu-$k-$shape.log 2>&1
    echo "ncu $k $shape exit $? at $((SECONDS-t0)) s: $(grep -E 'mma_gemm_kernel<|xmma|Duration|Grid Size|Block Size|highest-utilized|Registers Per|Achieved Occupancy' $OUT/ncu-$k-$shape.log | sed 's/  */ /g' | cut -c1-200 | tr '\n' ';')"
  done
done
cuobjdump --dump-sass build/device/libgemmlab.so > $OUT/sass-all.txt 2>/dev/null
python3 - $OUT/sass-all.txt <<'PY' | tee $OUT/sass-summary.txt
import sys,re,collections
cur=None; stats=collections.OrderedDict()
for line in open(sys.argv[1], errors='replace'):
    m=re.search(r'Function : (\S+)', line)
    if m:
        cur=m.group(1) if ('mma_gemm_kernel' in m.group(1) and re.search(r'GemmShapeILi(32ELi32ELi32|128ELi64ELi16EEENS4_ILi32ELi32|64ELi64ELi16EEENS4_ILi32ELi16)', m.group(1))) else None
        if cur: stats[cur]=collections.Counter()
        continue
    if cur:
        for op in ('DMMA','LDS','LDGSTS','STL','LDL','BAR','SYNCS'):
            if re.search(r'\b'+op+r'[\.\s]', line): stats[cur][op]+=1
for f,c in stats.items():
    print(re.sub(r'.*MmaConfigINS0_9GemmShapeILi(\d+)ELi(\d+)ELi(\d+)EEENS4_ILi(\d+)ELi(\d+).*DmmaMathILi(\d+)ELb(\d)EEELb(\d)ELb(\d)ELb(\d).*', r'\1x\2x\3 w\4x\5 k\6 rot\7 ta\8 tb\9 vec\10', f), dict(c))
PY
rm -f $OUT/sass-all.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
