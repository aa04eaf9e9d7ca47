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
#   jobs/model_machine.sh derive DIR [NAME [RUNS...]]  # writes jobs/machines/NAME.json (default: the
#                                                # GPU's model, h100_ib or h200_ib) and
#                                                # jobs/results/<date>_<gpu>_model_check/ (in- and
#                                                # out-of-sample: fitted on 1-2 GPUs, checked on 4;
#                                                # RUNS: more runs of the machine, checked only)
#
# Stages other than derive pass through to jobs/dist_gpu.sh with OUT=$OUT/<stage>, so every call's
# runs.tgz stays apart. derive needs only Python 3 (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = derive ]; then
  dir=${2:?usage: jobs/model_machine.sh derive DIR (holding */runs.tgz) [NAME]}
  inputs=$(ls "$dir"/*/runs.tgz)
  first=$(echo "$inputs" | head -1)
  gpu=$(tar xzOf "$first" --wildcards '*.json' 2>/dev/null | grep -o '"gpu": "[^"(]*' | head -1 | cut -d'"' -f4 | sed 's/ *$//')
  rev=$(tar xzOf "$first" --wildcards '*.json' 2>/dev/null | grep -o '"git_revision": "[^"]*' | head -1 | cut -d'"' -f4)
  # The description is named for the machine: NAME, else the GPU's model (NVIDIA H200 -> h200_ib).
  name=${3:-$(echo "${gpu:-gpu}" | grep -o 'H[0-9]*' | head -1 | tr 'H' 'h')_ib}
  more=("${@:4}")  # further runs of the same machine: checked, not fitted
  out=jobs/results/$(date +%F)_${name%_ib}_model_check
  python3 jobs/model_check.py derive $inputs -o "jobs/machines/$name.json" \
    --header "${gpu:-GPU}, $(echo "$inputs" | wc -l) stages of jobs/model_machine.sh in $dir, double precision, rev ${rev:-?}: fitted by jobs/model_check.py derive ($(date +%F)). Across hosts ('network'): ASSUMED InfiniBand-class figures (25 GB/s per GPU, 3 us latency), not measured."
  python3 jobs/model_check.py check --machine "jobs/machines/$name.json" -o "$out" $inputs "${more[@]}"
  # Out of sample: fitted on the 1- and 2-GPU runs only, checked on all (the 4-GPU ones are new to it).
  python3 jobs/model_check.py derive $inputs --fit-ranks 1,2 -o "$out/fit_1_2.json"
  python3 jobs/model_check.py check --machine "$out/fit_1_2.json" -o "$out/out_of_sample" $inputs "${more[@]}"
  echo "wrote jobs/machines/$name.json and $out/{table.md,model_check.json,out_of_sample/}: add its README.md"
  exit 0
fi
for stage in "$@"; do
  OUT="${OUT:-jobs/results/local}/$stage" jobs/dist_gpu.sh "$stage"
done
