# Call 5 (2026-12-02), `bash .device-src/jobs/device_call.sh .device-data/steps.sh`: sell-w (and sell)
# on one block of 2,156,653,714 nonzeros (big_block_test, built on the GPU), bd82328.
OUT=$W TARGETS="local_kernels_big_block_test" bash jobs/ab_gpu.sh /dev/null
for f in sell_w sell; do
  echo "big $f $(date +%T)" >>"$P"
  timeout 200 build-gpu/tests/local_kernels/local_kernels_big_block_test --gtest_filter="*/gpu_build_$f" >"$W/big_$f.log" 2>&1
  echo "  rc $?" >>"$P"
  grep -E "^big |PASSED|FAILED" "$W/big_$f.log" | tail -6 >>"$P"
done
