#!/bin/sh
# Export a checkpoint to public/models/layout, evaluate the shipped files on the val split with the
# TS pipeline (onnxruntime-node), and put the metrics into manifest.json.
# Usage: training/layout/publish.sh <ckpt> [val dir] [score threshold] [context veto] [class thresholds cls=t,…]
set -e
CKPT=${1:?checkpoint}; VAL=${2:-data/synth/val}; THR=${3:-}; VETO=${4:-}; CTHR=${5:-}
cd "$(dirname "$0")/../.."
/usr/bin/python3 training/layout/export.py --ckpt "$CKPT" ${THR:+--score_threshold $THR} ${VETO:+--context_veto $VETO} ${CTHR:+--class_thresholds $CTHR}
mkdir -p training/layout/runs
npm run --silent layout:eval -- --data "$VAL" --out training/layout/runs/eval_node.json > /dev/null
/usr/bin/python3 training/layout/export.py --ckpt "$CKPT" --update_metrics training/layout/runs/eval_node.json
cat training/layout/runs/eval_node.json
