#!/usr/bin/env bash
# The machine description of `distspmv model` (issue 39), measured: the bench set at 1, 2 and 4 GPUs
# with the existing benchmark (jobs/dist_gpu.sh's floor, small and table stages: distspmv --check
# --json, default options), then the description fitted to those reports and the model checked
# against them (jobs/model_check.py). One stage per device call (a call runs at most 600 s):
#
#   # on the GPU machine (kind nvidia-h100-x4; carry .device-data and .device-deps as dist_gpu.sh does):
#   OUT=$OUT jobs/model_machine.sh build floor    # then, in further calls:
#   OUT=$OUT jobs/model_machine.sh small
#   OUT=$OUT jobs/model_machine.sh table
#   # here, with each call's runs.tgz saved under DIR/<stage>/:
#   jobs/model_machine.sh derive DIR             # writes jobs/machines/h100_ib.json and
#                                                # jobs/results/<date>_model_check/
#
# Stages other than derive pass through to jobs/dist_gpu.sh with OUT=$OUT/<stage>, so every call's
# runs.tgz stays apart. derive needs only Python 3 (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = derive ]; then
  dir=${2:?usage: jobs/model_machine.sh derive DIR (holding */runs.tgz)}
  inputs=$(ls "$dir"/*/runs.tgz)
  gpu=$(tar xzOf $(echo "$inputs" | head -1) --wildcards '*.json' 2>/dev/null | grep -o '"gpu": "[^"(]*' | head -1 | cut -d'"' -f4)
  rev=$(tar xzOf $(echo "$inputs" | head -1) --wildcards '*.json' 2>/dev/null | grep -o '"git_revision": "[^"]*' | head -1 | cut -d'"' -f4)
  python3 jobs/model_check.py derive $inputs -o jobs/machines/h100_ib.json \
    --header "${gpu:-GPU} x$(ls "$dir" | wc -l) stages, double precision, rev ${rev:-?}: measured by jobs/model_machine.sh ($(date +%F)), fitted by jobs/model_check.py derive. Across hosts ('network'): ASSUMED InfiniBand-class figures (25 GB/s per GPU, 3 us latency), not measured."
  out=jobs/results/$(date +%F)_model_check
  python3 jobs/model_check.py check --machine jobs/machines/h100_ib.json -o "$out" $inputs
  echo "wrote jobs/machines/h100_ib.json and $out/{table.md,model_check.json}: add its README.md"
  exit 0
fi
for stage in "$@"; do
  OUT="${OUT:-jobs/results/local}/$stage" jobs/dist_gpu.sh "$stage"
done
