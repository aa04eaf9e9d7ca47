# Call 2 (new = a22f273 plus the sell-w variants of 0163375, switch DSPMV_EXP_SELLW: 0 as
# committed; 1 unroll 8 at 2 blocks/SM; 2 staging loads 8 at a time; 3 both; 4 unroll 4 at 2
# blocks/SM), then issue 37's bench set and rmat:22:8 with the defaults (switch unset: a22f273).
OUT=$W TARGETS="distspmv" bash jobs/ab_gpu.sh /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
for rep in 1 2; do
for m in "bench gen:lognormal:4000000:2.5:0.8:2000" "s015 gen:lognormal:4000000:2.5:0.15:1000" "L6 gen:lognormal:2000000:2.8:1.4:2500 --seed 8" "L4 gen:lognormal:5000000:1.8:1.0:2000 --seed 3"; do
  set -- $m; name=$1; shift
  for v in 0 1 2 3 4; do
    DSPMV_EXP_SELLW=$v timeout 60 build-gpu/apps/distspmv "$@" --format sell-w,cusparse > $W/sellw_${name}_v${v}_r$rep.log 2>&1
  done
done
done
cat > $W/cases_b.txt <<'X'
poisson200 1 gen:poisson3d:200 --vs-cusparse
stencil150 1 gen:stencil27:150 --vs-cusparse
rmat2216 1 gen:rmat:22:16 --seed 11 --vs-cusparse
lognbench 1 gen:lognormal:4000000:2.5:0.8:2000 --vs-cusparse
uk2007 1 .device-data/matrices/uk-2007-05@100000.mtx.gz --vs-cusparse
slashdot 1 .device-data/matrices/soc-Slashdot0902.mtx.gz --vs-cusparse
cage11 1 .device-data/matrices/cage11.mtx.gz --vs-cusparse
rmat228 1 gen:rmat:22:8 --seed 11 --vs-cusparse
X
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh $W/cases_b.txt
