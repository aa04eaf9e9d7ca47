# Call 6 (2026-12-02), `bash .device-src/jobs/device_call.sh .device-data/steps.sh`: --check of rank
# blocks in sell-w with a spill at 2 and 3 ranks on the one GPU (cases6), bd82328.
OUT=$W RUN_TIMEOUT=120 bash jobs/ab_gpu.sh .device-data/cases6.txt
