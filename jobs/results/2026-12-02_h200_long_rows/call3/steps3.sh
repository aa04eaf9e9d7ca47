# Call 3 at a22f273: the panel GPU builder under compute-sanitizer (memcheck, racecheck); rank
# blocks at 2 and 3 ranks sharing the GPU (--check); then long regular rows (lognormal, mean
# 58-247, sigma 0.1-0.35): every candidate format in the read order, and the defaults.
OUT=$W TARGETS="distspmv local_kernels_panel_build_cuda_test" bash jobs/ab_gpu.sh /dev/null
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  timeout 200 $CS --tool $tool --error-exitcode 9 build-gpu/tests/local_kernels/local_kernels_panel_build_cuda_test > $W/sanitizer_$tool.log 2>&1
done
cat > $W/cases_c.txt <<'X'
rmat2216_r2 2 gen:rmat:22:16 --seed 11
rmat2216_r3 3 gen:rmat:22:16 --seed 11 --partition metis
rmat228_r2 2 gen:rmat:22:8 --seed 11 --partition lp
X
OUT=$W RUN_TIMEOUT=120 bash jobs/ab_gpu.sh $W/cases_c.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
F=sell,sell-w,ellr,ellr-t8,pellr,hll-sorted,ipcsr,csr-vector,csr,csr-split,cusparse,cusparse-sell
for m in "S1 200000:4.4:0.15:3000" "S2 400000:4.2:0.25:2000" "S3 100000:5.0:0.2:5000" "S4 300000:4.7:0.3:10000" \
         "S5 600000:4.3:0.1:1500" "S6 60000:5.5:0.15:4000" "S7 500000:4.0:0.35:50000" "S8 150000:4.6:0.2:800"; do
  set -- $m
  timeout 120 build-gpu/apps/distspmv gen:lognormal:$2 --order none --format $F > $W/long_$1.log 2>&1
  timeout 90 build-gpu/apps/distspmv gen:lognormal:$2 --vs-cusparse --check > $W/longdef_$1.log 2>&1
done
