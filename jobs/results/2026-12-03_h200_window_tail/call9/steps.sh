mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv local_kernels_formats_test" bash jobs/ab_gpu.sh /dev/null
cuobjdump -res-usage build-gpu/apps/distspmv 2>/dev/null | grep -A1 "adaptive_kernel" | grep -o "REG:[0-9]* STACK:[0-9]*\|kernelI[^(]*" | paste - - | head -24 >>"$P"
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/csr*"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name args...
  local name=$1; shift
  echo "$name $(date +%T)" >>"$P"
  echo "command: build-gpu/apps/distspmv $* --check (ranks 1)" >"$W/runs/$name.log"
  timeout 40 mpirun --allow-run-as-root -np 1 build-gpu/apps/distspmv "$@" --check --json "$W/runs/$name.json" >>"$W/runs/$name.log" 2>&1 </dev/null
  echo "  rc $?" >>"$P"
  grep -E "^    [0-9]+ |vs cuSPARSE" "$W/runs/$name.log" | cut -c1-200 >>"$P"
  tar -czf "$W/runs.tgz" -C "$W" runs
}
M=.device-data/matrices
one slashdot $M/soc-Slashdot0902.mtx.gz --vs-cusparse
one uk2007 $M/uk-2007-05@100000.mtx.gz --vs-cusparse
one enron $M/email-Enron.mtx.gz --vs-cusparse
one hepph $M/cit-HepPh.mtx.gz --vs-cusparse
one caida $M/as-caida.mtx.gz --vs-cusparse
one deezer $M/musae-deezer.mtx.gz --vs-cusparse
