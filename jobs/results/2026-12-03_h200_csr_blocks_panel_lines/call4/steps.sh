ab() { OUT=$W TARGETS="distspmv local_kernels_formats_test" RUN_TIMEOUT=90 bash jobs/ab_gpu.sh "$1"; }
ab /dev/null
gtest local_kernels_formats_test "--gtest_filter=Cuda*csr_s*:Cuda*/csr_cuda*"
ab .device-data/cases.txt
