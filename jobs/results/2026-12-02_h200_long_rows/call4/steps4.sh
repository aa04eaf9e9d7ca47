# Call 4 (2026-12-02, third session): sell-w only with a window block per SM (132), checked on
# lognormal shapes not run before (defaults against every candidate format), and the call-3 shape
# that lost (S8); rank blocks timed for panel at 3 ranks (lp) on rmat:21:8 (--check).
OUT=$W TARGETS="distspmv local_kernels_format_selector_cuda_test" bash jobs/ab_gpu.sh /dev/null
gtest local_kernels_format_selector_cuda_test
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
F=sell-w,sell,ellr,csr,csr-split,cusparse
for m in "S8 150000:4.6:0.2:800" "V1 120000:4.8:0.15:1500 --seed 5" "V2 250000:4.1:0.2:2500 --seed 6" \
         "V3 300000:4.0:0.25:2000 --seed 7" "V4 180000:3.6:0.3:1000 --seed 8" "V5 270000:4.3:0.12:3000 --seed 9"; do
  set -- $m; name=$1; shift
  echo "long $name $* $(date +%T)" >>$P
  timeout 90 build-gpu/apps/distspmv gen:lognormal:"$@" --vs-cusparse --check > $W/def_$name.log 2>&1
  grep -E "^    0 |vs cuSPARSE|check:" $W/def_$name.log | cut -c1-240 >>$P
  timeout 90 build-gpu/apps/distspmv gen:lognormal:"$@" --order none --format $F > $W/fmt_$name.log 2>&1
  grep -E "^matrix|^ *($(echo $F | tr , '|')) " $W/fmt_$name.log | cut -c1-100 >>$P
done
cat > $W/cases_d.txt <<'X'
rmat218_r3 3 gen:rmat:21:8 --seed 3 --partition lp
X
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh $W/cases_d.txt
