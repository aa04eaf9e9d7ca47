ab() { OUT=$W OLD_SRC=$R/.device-old OLD_REV=8acd120 TARGETS="distspmv local_kernels_panel_build_cuda_test local_kernels_formats_test" RUN_TIMEOUT=90 bash jobs/ab_gpu.sh "$1"; }
ab /dev/null
gtest local_kernels_panel_build_cuda_test
gtest local_kernels_formats_test --gtest_filter=*anel*
ab .device-data/cases.txt
