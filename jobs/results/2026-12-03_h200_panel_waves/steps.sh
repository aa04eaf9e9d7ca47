ab() { OUT=$W OLD_SRC=$R/.device-old OLD_REV=aa3fdc1 TARGETS="distspmv local_kernels_panel_build_cuda_test" RUN_TIMEOUT=90 bash jobs/ab_gpu.sh "$1"; }
ab /dev/null
gtest local_kernels_panel_build_cuda_test
ab .device-data/cases.txt
