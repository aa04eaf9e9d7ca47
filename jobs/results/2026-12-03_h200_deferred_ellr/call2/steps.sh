# Call 2 (2026-12-03 fifth session): the tree (ELLR first trip, sell-w deferred list, CSR block
# offsets) tested; adaptive CSR with and without row_block_nnz (csrold: HEAD's kernel) and ELLR
# in float against HEAD's (ellrold), alternately; then the bench set on the tree.
mkdir -p "$W/runs" "$W/bin"
V=.device-data/var
OUT=$W TARGETS="distspmv local_kernels_formats_test local_kernels_csr_build_cuda_test local_kernels_ell_family_build_cuda_test" bash jobs/ab_gpu.sh /dev/null
cp build-gpu/apps/distspmv "$W/bin/new"
gtest local_kernels_formats_test "--gtest_filter=Cuda*/FormatTest.*/ellr*:Cuda*/FormatTest.*/csr*:Cuda*/FormatTest.*/sell_w*"
gtest local_kernels_csr_build_cuda_test
gtest local_kernels_ell_family_build_cuda_test
rebuild() {  # name
  echo "rebuild $1 $(date +%T)" >>"$P"
  cmake --build build-gpu -j 16 --target distspmv >"$W/build_$1.log" 2>&1
  echo "  rc $?" >>"$P"
  cp build-gpu/apps/distspmv "$W/bin/$1"
}
cp local_kernels/csr/csr_cuda.cu $V/csr_new.cu
cp $V/csr_head.cu local_kernels/csr/csr_cuda.cu
rebuild csrold
cp $V/csr_new.cu local_kernels/csr/csr_cuda.cu
cp local_kernels/ellr/ellr_cuda.cu $V/ellr_new.cu
cp $V/ellr_old.cu local_kernels/ellr/ellr_cuda.cu
rebuild ellrold
cp $V/ellr_new.cu local_kernels/ellr/ellr_cuda.cu
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one() {  # name binary args...
  local name=$1 bin=$2; shift 2
  echo "$name $(date +%T)" >>"$P"
  echo "command: $bin $* --check (ranks 1)" >"$W/runs/$name.log"
  timeout 150 mpirun --allow-run-as-root -np 1 "$W/bin/$bin" "$@" --check --json "$W/runs/$name.json" >>"$W/runs/$name.log" 2>&1 </dev/null
  echo "  rc $?" >>"$P"
  grep -E "^    [0-9]+ |vs cuSPARSE|cuSPARSE in a CUDA graph" "$W/runs/$name.log" | cut -c1-220 >>"$P"
  tar -czf "$W/runs.tgz" -C "$W" runs
}
M=.device-data/matrices
for r in 1 2; do
  for b in new csrold; do
    one slashdot_${b}_$r $b $M/soc-Slashdot0902.mtx.gz --vs-cusparse
    one uk2007_${b}_$r $b $M/uk-2007-05@100000.mtx.gz --vs-cusparse
    one enron_${b}_$r $b $M/email-Enron.mtx.gz --vs-cusparse
  done
done
for r in 1 2; do
  for b in new ellrold; do one cage11f_${b}_$r $b $M/cage11.mtx.gz --precision float --vs-cusparse; done
done
one bench_poisson new gen:poisson3d:200 --vs-cusparse
one bench_stencil new gen:stencil27:150 --vs-cusparse
one bench_lognormal new gen:lognormal:4000000:2.5:0.8:2000 --vs-cusparse
one bench_cage11 new $M/cage11.mtx.gz --vs-cusparse
one bench_rmat new gen:rmat:22:16 --seed 11 --vs-cusparse
