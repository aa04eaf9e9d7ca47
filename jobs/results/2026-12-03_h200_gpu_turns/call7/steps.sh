# Call 7 (2026-12-03 sixth session): an experiment, not the tree (cases.txt here): the order's trial also times panel
# on short-row blocks from 1 Mi nonzeros (trial_panel_nnz 4 Mi -> 1 Mi in .device-src only), on the
# 4-rank blocks of R-MAT 22:16 (local blocks of 4.0-4.2 M, mean 4) and 22:8 on one H200 (turns).
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv" RUN_TIMEOUT=150 bash jobs/ab_gpu.sh .device-data/cases7.txt
for f in "$W"/runs/*.log; do
  echo "$(basename "$f" .log): $(grep -E '^order' "$f" | grep -oE 'local product timed.*' | cut -c1-400)" >>"$P"
done
