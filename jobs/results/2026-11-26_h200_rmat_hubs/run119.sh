#!/usr/bin/env bash
# ncu of the hub prototype: why x's hubs in shared memory do not cut the time.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
B=build-gpu/apps/distspmv
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M="lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,gpu__time_duration.sum"
for cfg in "1 512" "8192 512" "16384 1024"; do
  read -r K T <<<"$cfg"
  echo "== K=$K threads=$T $(date +%T)" | tee -a $OUT/progress.txt
  DSPMV_SELL_HUB=$K DSPMV_SELL_HUB_THREADS=$T timeout 240 $NCU --clock-control none --kernel-name regex:hub_kernel --launch-skip 3 --launch-count 1 --metrics $M --csv --page raw \
    $B gen:rmat:22:16 --backend cuda --order degree --format sell-c32-s1 --iters 3 --warmup 1 > $OUT/ncu_K${K}_T${T}.csv 2> $OUT/ncu_K${K}_T${T}.err
  echo rc=$?
  python3 - $OUT/ncu_K${K}_T${T}.csv <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if r]
hdr=None
for i,r in enumerate(rows):
    if 'Kernel Name' in r: hdr=i;break
if hdr is None: print(open(sys.argv[1]).read()[-1500:]); sys.exit()
h=rows[hdr]; units=rows[hdr+1]; vals=rows[hdr+2]
for k,u,v in zip(h,units,vals):
    if '__' in k: print(f"  {k:70s} {v} {u}")
PY
done
