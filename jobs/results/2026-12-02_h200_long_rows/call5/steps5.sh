# Call 5 (2026-12-02, third session): sell-w's top-slice spill on a block of more than 2^31
# nonzeros (BigBlockHubs), then sell-w on the plain band as before.
OUT=$W TARGETS="local_kernels_big_block_test" bash jobs/ab_gpu.sh /dev/null
echo "big hubs $(date +%T)" >>$P
timeout 200 build-gpu/tests/local_kernels/local_kernels_big_block_test --gtest_filter='BigBlockHubs.*:*/gpu_build_sell_w' > $W/big_block_hubs.log 2>&1
echo "  rc $?" >>$P
grep -E "^big |PASSED|FAILED|spill" $W/big_block_hubs.log | cut -c1-200 >>$P
