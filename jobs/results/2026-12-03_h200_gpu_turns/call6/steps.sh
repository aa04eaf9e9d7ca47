# Call 6 (2026-12-03 sixth session): ELLR's threads-per-row rule (316a7c7) on seven small lognormal
# blocks no earlier run used, which the selector gives ELLR: the defaults, then ELLR at T = 1, 2, 4
# and 8, each against cuSPARSE timed alternately in its run (--vs-cusparse).
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv" RUN_TIMEOUT=60 bash jobs/ab_gpu.sh .device-data/cases6.txt
