# Call 1, run as `bash .device-src/jobs/device_call.sh .device-data/steps.sh` (new = the working
# tree that became a22f273, plus the carveout switch of e6fc309; old = d11114d).
OUT=$W OLD_SRC=$R/.device-old OLD_REV=d11114d TARGETS="distspmv local_kernels_panel_build_cuda_test" \
  bash jobs/ab_gpu.sh /dev/null
gtest local_kernels_panel_build_cuda_test
cat > $W/cases_a.txt <<'X'
rmat2216 1 gen:rmat:22:16 --seed 11 --vs-cusparse
X
OUT=$W OLD_SRC=$R/.device-old OLD_REV=d11114d RUN_TIMEOUT=120 REPEAT=2 bash jobs/ab_gpu.sh $W/cases_a.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M=.device-data/matrices
for b in new old; do  # the build kernels' durations over a whole run (3 panel builds: the order's trial)
  bin=build-gpu/apps/distspmv; [ $b = old ] && bin=build-old/apps/distspmv
  timeout 200 $NCU --clock-control none --kernel-name regex:"rounds_kernel|slots_kernel|sort_keys|place_kernel|pad_kernel|check_columns|Onesweep|Histogram" \
    --metrics gpu__time_duration.sum --print-units base --csv $bin gen:rmat:22:16 --seed 11 --iters 5 --warmup 1 > $W/ncu_build_$b.log 2>&1
  # (summed per kernel name into progress.txt)
done
for c in -1 20 40; do  # DSPMV_EXP_CARVEOUT: the adaptive kernel's preferred carveout (-1: the driver's)
  for m in soc-Slashdot0902:degree uk-2007-05@100000:none cit-HepPh:degree email-Enron:degree soc-Slashdot0902-u:degree; do
    f=${m%%:*}; o=${m##*:}
    DSPMV_EXP_CARVEOUT=$c timeout 60 build-gpu/apps/distspmv $M/$f.mtx.gz --order $o --format csr,csr-vector,csr-split,cusparse > $W/fmt_${f}_c$c.log 2>&1
  done
  for f in soc-Slashdot0902 uk-2007-05@100000; do
    DSPMV_EXP_CARVEOUT=$c timeout 60 build-gpu/apps/distspmv $M/$f.mtx.gz --vs-cusparse --check > $W/def_${f}_c$c.log 2>&1
  done
done
for c in -1 40; do
  DSPMV_EXP_CARVEOUT=$c timeout 120 $NCU --clock-control none --kernel-name regex:adaptive_kernel --launch-skip 40 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
    build-gpu/apps/distspmv $M/soc-Slashdot0902.mtx.gz --order degree --format csr > $W/ncu_adaptive_slashdot_c$c.log 2>&1
done
timeout 200 $NCU --clock-control none --kernel-name regex:window_kernel --launch-skip 20 --launch-count 1 --set full \
  build-gpu/apps/distspmv gen:lognormal:4000000:2.5:0.8:2000 --format sell-w > $W/ncu_sellw_logn.log 2>&1
