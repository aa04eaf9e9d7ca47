# Call 4 (2026-12-02), run as `bash .device-src/jobs/device_call.sh .device-data/steps.sh`:
# bd82328 (sell-w priced without its spill in float) against 2de74e7 (cases4a) after the GPU
# statistics test; then, new only, issue 37's bench set with the defaults and long regular rows
# in blocks that stay in L2 (cases4b).
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 TARGETS="distspmv local_kernels_format_selector_cuda_test" \
  bash jobs/ab_gpu.sh /dev/null
gtest local_kernels_format_selector_cuda_test
OUT=$W OLD_SRC=$R/.device-old OLD_REV=2de74e7 RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases4a.txt
OUT=$W RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases4b.txt
