#!/usr/bin/env bash
# Clocks and power during sustained applies: is the R-MAT product power- or clock-limited?
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
nvidia-smi --query-gpu=power.limit,clocks.max.sm,clocks.max.mem --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 20 > $OUT/smi.csv &
SMI=$!
for it in 20 3000; do
  echo "== iters $it $(date +%T.%N)" | tee -a $OUT/marks.txt
  timeout 200 $B gen:rmat:22:16 --backend cuda --format csr-split,cusparse --iters $it --warmup 10 2>&1 | grep -E "^csr|^cusp" | cut -c1-70
  echo "   end $(date +%T.%N)" | tee -a $OUT/marks.txt
done
echo "== lognormal iters 3000 $(date +%T.%N)" | tee -a $OUT/marks.txt
timeout 200 $B gen:lognormal:4000000:2.5:0.8:2000 --backend cuda --format sell-w,cusparse --iters 3000 --warmup 10 2>&1 | grep -E "^sell|^cusp" | cut -c1-70
echo "   end $(date +%T.%N)" | tee -a $OUT/marks.txt
kill $SMI
python3 - $OUT/smi.csv <<'PY'
import sys
rows=[l.strip().split(', ') for l in open(sys.argv[1]) if l.strip()]
busy=[r for r in rows if float(r[3].split()[0])>250]
print(len(rows),"samples,",len(busy),"above 250 W")
import collections
c=collections.Counter((r[1],r[5]) for r in busy)
for k,v in c.most_common(8): print(" ",v,k)
if busy:
  p=[float(r[3].split()[0]) for r in busy]; print("  power W min/median/max", min(p), sorted(p)[len(p)//2], max(p))
PY
