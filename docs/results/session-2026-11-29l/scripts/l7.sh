#!/usr/bin/env bash
# Session 2026-11-29l, call 7: the SASS of a72047b's float reconstruction (eight moduli) and float
# narrow split, from its 31_int8_emulation.cu.o built here.
set -u
export PATH=$PATH:/usr/local/cuda/bin
for f in _ZN7gemmlab6detail5ozaki12split_kernelIfLb1EEEvPKT_lbllliiPalNS1_15MagnitudeSampleEPNS1_8RowRangeEPd _ZN7gemmlab6detail5ozaki18reconstruct_kernelIfLi8EEEvllT_S3_PS3_lNS1_10NativeRuleEbPKhNS1_13ResidueLayoutEPilPKNS1_8RowScaleESC_NS1_10NativeListE; do
  n=$(echo $f | grep -o "split_kernel\|reconstruct_kernel")
  cuobjdump -sass -fun "$f" build/l7.o > $OUT/sass-$n.txt 2>&1; echo "$n: $(wc -l < $OUT/sass-$n.txt) lines"
done
gzip -9 $OUT/sass-*.txt
