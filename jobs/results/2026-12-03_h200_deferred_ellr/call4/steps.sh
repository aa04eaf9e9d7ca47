# Call 4 (2026-12-03 fifth session): the bench set again at c38b4e0 (defaults), then ELLR's threads
# per row on the shared matrices that pick ELLR (--format ellr-tN, double).
mkdir -p "$W/runs"
OUT=$W bash jobs/ab_gpu.sh /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name args...
  local name=$1; shift
  echo "command: build-gpu/apps/distspmv $* --check (ranks 1)" >"$W/runs/$name.log"
  timeout 150 mpirun --allow-run-as-root -np 1 build-gpu/apps/distspmv "$@" --check --json "$W/runs/$name.json" >>"$W/runs/$name.log" 2>&1 </dev/null
  local rc=$?
  echo "$name rc $rc $(grep -E '^    0 ' "$W/runs/$name.log" | awk '{print $9, $10, $11, $12, $13}') | $(grep -E 'vs cuSPARSE' "$W/runs/$name.log" | cut -c1-150)" >>"$P"
  tar -czf "$W/runs.tgz" -C "$W" runs
}
M=.device-data/matrices
one bench_poisson gen:poisson3d:200 --vs-cusparse
one bench_stencil gen:stencil27:150 --vs-cusparse
one bench_lognormal gen:lognormal:4000000:2.5:0.8:2000 --vs-cusparse
one bench_uk2007 $M/uk-2007-05@100000.mtx.gz --vs-cusparse
one bench_slashdot $M/soc-Slashdot0902.mtx.gz --vs-cusparse
one bench_cage11 $M/cage11.mtx.gz --vs-cusparse
for m in cage11 airfoil1 bcsstk24 cs4 data dwt_878 ex14 fe_4elt2 gre_1107 wing uk; do
  for t in 1 2 4 8; do one ${m}_t$t $M/$m.mtx.gz --format ellr-t$t --vs-cusparse; done
done
one bench_rmat gen:rmat:22:16 --seed 11 --vs-cusparse
