# Call 4: a gather launched beside a local product on a high-priority stream (jobs/bench_beside):
# does the pack of the halo wait for the whole product where the format's blocks hold every SM?
mkdir -p "$W/runs"
: >"$W/none.txt"
OUT=$W TARGETS=bench_beside bash jobs/ab_gpu.sh "$W/none.txt"
B=build-gpu/jobs/bench_beside
run() { echo "== $*" >>"$P"; timeout 120 $B "$@" >>"$P" 2>&1; echo "  rc $?" >>"$P"; }
run gen:lognormal:1000000:2.0:1.0:300000 panel cusparse csr sell-w csr-split
run gen:lognormal:1000000:2.0:1.0:300000 panel cusparse --gather 1000000
run gen:lognormal:4000000:2.0:1.0:300000 panel cusparse sell-w
run gen:lognormal:2000000:1.5:1.2:100000 panel cusparse
run gen:rmat:20:16 panel cusparse csr-split
run gen:stencil27:100 hdia cusparse
run gen:lognormal:300000:2.0:1.0:100000 panel cusparse csr
