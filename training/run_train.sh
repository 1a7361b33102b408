#!/bin/sh
# Background training launcher: glibc malloc settings from DESIGN §4 (one wide CPU step 8.7 s -> 2.4 s),
# nohup, logs in the run folder. Usage: training/run_train.sh <run-name> [train.py args...]
set -e
RUN=${1:?run name}; shift
cd "$(dirname "$0")/.."
mkdir -p "training/runs/$RUN"
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 MALLOC_TOP_PAD_=1073741824
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
nohup /usr/bin/python3 training/train.py --run "training/runs/$RUN" "$@" \
  > "training/runs/$RUN/nohup.out" 2>&1 &
echo $! > "training/runs/$RUN/pid"
echo "started pid $(cat training/runs/$RUN/pid); tail -f training/runs/$RUN/train.log"
