#!/bin/sh
# Background launcher for the layout detector: DESIGN §4 malloc settings, one thread, nohup.
# Usage: training/layout/run_train.sh <run-name> [train.py args...]
set -e
RUN=${1:?run name}; shift
cd "$(dirname "$0")/../.."
mkdir -p "training/layout/runs/$RUN"
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 MALLOC_TOP_PAD_=1073741824
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
nohup /usr/bin/python3 training/layout/train.py --run "training/layout/runs/$RUN" "$@" \
  > "training/layout/runs/$RUN/nohup.out" 2>&1 &
echo $! > "training/layout/runs/$RUN/pid"
echo "started pid $(cat training/layout/runs/$RUN/pid); tail -f training/layout/runs/$RUN/train.log"
