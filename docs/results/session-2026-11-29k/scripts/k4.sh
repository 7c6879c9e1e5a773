#!/usr/bin/env bash
# Session 2026-11-29k, call 4: the SASS of 87bf9aa's rung 31 passes (its 31_int8_emulation.cu.o,
# built here): float's narrow split and its eight-modulus reconstruction.
set -u
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p build/run/k4 && tar -C build/run/k4 -xJf build/k4.txz
for f in _ZN7gemmlab6detail5ozaki12split_kernelIfLb1EEEvPKT_lbllliiPalNS1_15MagnitudeSampleEPNS1_8RowRangeEPd _ZN7gemmlab6detail5ozaki18reconstruct_kernelIfLi8EEEvllT_S3_PS3_lNS1_10NativeRuleEbPKhNS1_13ResidueLayoutEPilPKNS1_8RowScaleESC_NS1_10NativeListE; do
  n=$(echo $f | grep -o "split_kernel\|reconstruct_kernel")
  cuobjdump -sass -fun "$f" build/run/k4/oz.o > $OUT/sass-$n.txt 2>&1; echo "$n: $(wc -l < $OUT/sass-$n.txt) lines"
  grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9]+" $OUT/sass-$n.txt | awk '{print $NF}' | sort | uniq -c | sort -rn | head -25 | tr '\n' ' '; echo
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
