ab() { OUT=$W TARGETS="distspmv" RUN_TIMEOUT=120 bash jobs/ab_gpu.sh "$1"; }
ab .device-data/cases.txt
