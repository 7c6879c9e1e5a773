#!/usr/bin/env bash
# Final check, part 2 (same machine as part 1, its builds): the LLM set warm and with the L2
# flushed, the medium and odd shapes with HEAD and with the build before the tail split.
set -u
cd "$(dirname "$0")"
B=$PWD/../build/f1; G=$B/gemmlab; G0=$PWD/../build/f1old/gemmlab
ls $G $G0 > /dev/null || exit 3
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
MED=512x512x512,768x768x768,1024x1024x1024,1536x1536x1536,2048x2048x2048,3000x3000x3000,2500x3500x1000,4095x4097x1023,1024x1024x8192,6144x1536x2048,4096x4096x4096,8192x8192x8192
for r in 1 2; do
timeout 40 $G0 bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-old$r.json > $OUT/med-old$r.log 2>&1; echo "med old exit $?"
timeout 40 $G bench --dtype bf16 --kernels cublas,auto --shapes $MED --json $OUT/med-new$r.json > $OUT/med-new$r.log 2>&1; echo "med new exit $?"
done
timeout 60 $G0 bench --dtype bf16 --kernels cublas,auto --shapes $MED --cold --json $OUT/med-old-cold.json > $OUT/med-old-cold.log 2>&1; echo "med old cold exit $?"
timeout 60 $G bench --dtype bf16 --kernels cublas,auto --shapes $MED --cold --json $OUT/med-new-cold.json > $OUT/med-new-cold.log 2>&1; echo "med new cold exit $?"
echo "after med $((SECONDS-t0)) s"
timeout 140 $G bench --preset llm --dtype bf16 --json $OUT/llm-new.json > $OUT/llm-new.log 2>&1; echo "llm warm exit $? $((SECONDS-t0)) s"
timeout 170 $G bench --preset llm --dtype bf16 --cold --json $OUT/llm-new-cold.json > $OUT/llm-new-cold.log 2>&1; echo "llm cold exit $? $((SECONDS-t0)) s"
for f in med-old1 med-new1 med-old2 med-new2 med-old-cold med-new-cold llm-new llm-new-cold; do echo "$f: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf f2.tgz *.log *.json && rm -f *.log *.json
