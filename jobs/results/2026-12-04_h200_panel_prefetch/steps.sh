# Call 1: the panel kernel with each round's loads issued during the round before (new) against
# b7bdb74 (old); panel's GPU tests on new; the kernel's SASS (loads and barrier order).
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv local_kernels_formats_test local_kernels_panel_build_cuda_test" RUN_TIMEOUT=120 \
  OLD_SRC=.device-old OLD_REV=b7bdb74 bash jobs/ab_gpu.sh .device-data/cases.txt
for f in "$W"/runs/*.log; do
  echo "$(basename "$f" .log): $(grep -oE '^order [a-z]+' "$f")" >>"$P"
  grep -E "^(panel|cusparse) |vs cuSPARSE" "$f" | cut -c1-200 >>"$P"
done
gtest local_kernels_formats_test --gtest_filter='Cuda*/*panel*'
gtest local_kernels_panel_build_cuda_test
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
for b in build-gpu build-old; do
  o=$(find $b -name 'panel_cuda.cu.o' | head -1)
  echo "== $b $o" >>"$W/sass.log"
  "$CUOBJ" -sass "$o" 2>&1 | awk '/Function : .*panel_kernelId/{f=1;next} /Function :/{f=0} f' | grep -E "LDG|BAR|LDS|STS|DFMA|DMUL|DADD|BRA" | head -80 >>"$W/sass.log"
done
