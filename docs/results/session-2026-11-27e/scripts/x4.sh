#!/usr/bin/env bash
# 128x192 tiles beside the others (tune --explain) on medium and prefill shapes; every option's
# bound; the odd shapes again under the model's rung 19 factor.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 100 bin/test_tune_gpu --gtest_filter='TuneGpu.EveryOption*' > $OUT/tune-tests.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tune-tests.txt | head
M=1536x1536x1536,2048x2048x2048,3000x3000x3000,3072x3072x3072,4096x4096x4096,6144x1536x2048,4096x1024x1000,5120x5120x5120,8192x8192x8192,2000x2000x2000,2560x2560x2560
timeout 200 $G tune --explain $M --op nn > $OUT/medium.txt 2>&1; echo "medium exit $? at $((SECONDS-t0)) s"
timeout 200 $G tune --explain $M --op nn --cold > $OUT/medium-cold.txt 2>&1; echo "medium cold exit $? at $((SECONDS-t0)) s"
L=512x4608x3584,512x14336x4096,2048x4096x4096,2048x3584x18944,2048x14336x4096,8192x4096x4096,8192x6144x4096,2048x28672x8192,512x8192x28672
timeout 200 $G tune --explain $L --op nt > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
O=255x255x255,511x511x511,1023x1023x1023,1000x1000x1001
timeout 100 $G tune --explain $O --op nn > $OUT/odd.txt 2>&1; echo "odd exit $? at $((SECONDS-t0)) s"
for f in medium medium-cold llm odd; do echo "== $f"; awk '/^bf16/{s=$4} /auto \(/{a=$0} /128x192x64 ws  /{print s": "a" || 192: "$0}' $OUT/$f.txt | sed 's/  */ /g' | cut -c1-190; done
tar -C $OUT -czf $OUT/all.tgz $(cd $OUT && ls *.txt) && rm -f $OUT/*.txt
echo "total $((SECONDS-t0)) s"
