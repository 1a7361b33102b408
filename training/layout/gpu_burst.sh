#!/bin/sh
# One short burst on a lent GPU machine (no registries, a 64 MiB tree copy): two layout runs side by
# side on packed pages (training/layout/pack.py), checkpoints written straight to $OUT.
#   ft48: the committed detector fine-tuned on new pages; w64: a wider one (64/96) from scratch.
# Usage (device): OUT=/some/dir MIN=6 sh training/layout/gpu_burst.sh
# Needs data/lpack/{train,train_tf,val}.npz (see docs/LAYOUT.md "GPU burst").
set -e
cd "$(dirname "$0")/../.."
OUT=${OUT:-training/layout/runs/gpu}
MIN=${MIN:-6}
DEV=${DEVICE:-cuda}
PY=
for c in python3 python /usr/bin/python3; do
  if command -v "$c" > /dev/null && "$c" -c "import torch" 2> /dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || { echo "no python with torch"; exit 1; }
mkdir -p "$OUT"
$PY -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
# DataLoader workers pass batches through /dev/shm; a small one means batches are built in the loop
SHM=$(df -Pm /dev/shm 2>/dev/null | awk 'NR==2 {print $4}')
W=${WORKERS:-7}
if [ -z "$SHM" ] || [ "$SHM" -lt 4096 ]; then W=0; fi
echo "shm ${SHM:-?} MB free -> $W workers per run; $(nproc) cores"
COMMON="--train data/lpack/train.npz,data/lpack/train_tf.npz --val data/lpack/val.npz --device $DEV --workers $W --threads 2 \
  --batch 32 --minutes $MIN --eval_minutes 0.75 --eval_pages 60 --best_metric map --ckpt_minutes 1.5"
$PY training/layout/train.py --run "$OUT/ft48" $COMMON --lr 1e-3 --warmup 100 \
  --input_h 960 --input_w 768 --width 48 --fpn_dim 80 --init public/models/layout/layout.safetensors > "$OUT/ft48.out" 2>&1 &
P1=$!
$PY training/layout/train.py --run "$OUT/w64" $COMMON --lr 3e-3 --warmup 200 --init none \
  --input_h 960 --input_w 768 --width 64 --fpn_dim 96 > "$OUT/w64.out" 2>&1 &
P2=$!
wait $P1 || echo "ft48 failed"
wait $P2 || echo "w64 failed"
tail -n 4 "$OUT/ft48.out" "$OUT/w64.out"
grep -h "eval step" "$OUT"/*/train.log | tail -n 20
