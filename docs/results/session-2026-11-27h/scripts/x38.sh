#!/usr/bin/env bash
# kSplitKNs 10 us (base: 907370f) against 2 us (new: 907370f with that constant changed), one
# packed build per call on the same warm machine ($1: base or new, carried as $1.txz): the rows
# whose pick the change moves (tune --explain), float in TF32 mode and float/double on the mixed
# set, the LLM set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
v=$1
rm -rf $v-x && mkdir $v-x && tar xJf $v.txz -C $v-x
export LD_LIBRARY_PATH=$PWD/$v-x/bin; G=$PWD/$v-x/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $v=$(cat $v-x/bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
S=$(grep -oE 'MIXED_SHAPES:-[0-9x,]+' ../scripts/gpu-check.sh | cut -d- -f2)
timeout 100 $G tune --explain 512x512x512,1024x1024x1024,768x768x768 --op nt,nn --layout row --dtype f32 --precision default,tf32 > $OUT/explain-f32-$v.txt 2>&1; echo "f32 explain exit $?"
timeout 60 $G tune --explain 64x2048x2048,64x4096x4096,64x3584x3584 --op nt --layout row --dtype bf16 > $OUT/explain-bf16-$v.txt 2>&1; echo "bf16 explain exit $?"
grep -E "^(f32|bf16)|auto \(" $OUT/explain-f32-$v.txt $OUT/explain-bf16-$v.txt | sed 's/^.*explain-//'
timeout 100 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/tf32-$v.json > /dev/null 2>&1; echo "tf32 mixed exit $?: $(python3 ../scripts/geomean.py $OUT/tf32-$v.json | tail -1)"
timeout 150 $G bench --dtype f32,f64 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-$v.json > /dev/null 2>&1; echo "mixed exit $?: $(python3 ../scripts/geomean.py $OUT/mixed-$v.json | tr '\n' ' ')"
for c in "" "--cold"; do
timeout 170 $G bench --preset llm --dtype bf16 $c --json $OUT/llm$c-$v.json > /dev/null 2>&1; echo "llm $c exit $?: $(python3 ../scripts/geomean.py $OUT/llm$c-$v.json | tail -1)"
done
echo "total $((SECONDS-t0)) s"
