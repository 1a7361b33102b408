#!/bin/bash
# All the data of a decoder segment on the formula encoder's features (training/README.md,
# "Decoder segments on the formula encoder's features"), in one command; needs `npm run corpus`
# first and the shipped formula encoder. Fresh seeds per segment:
#   TAG=12 F3_SEED=1000000 F2_SEED=1050000 TABLE_SEED=1100000 training/decoder_data.sh
# Env: F3_SETS (1,000-page 300-dpi formula sets, default 2), TABLE_PAGES (extra table-rich pages,
# default 300; 0 = none), TT_LIMIT (at most this many text/table crops of train$((TAG+1))),
# SKIP_VAL=1 (the val sets are there), ENC (formula encoder), RECORDS (the pinned val regions),
# SPLIT (the packed train split, default train), PACK_EXTRA (earlier segments' feature folders,
# space-separated `gocr.pack` inputs, packed first).
# Writes:
#   data/features_joint/$SPLIT formulas of f3_train${TAG}_* (300 dpi, the PDF path) and
#                              f2_train$((TAG+1)) (150 dpi upsampled, the image path) as features of
#                              ENC; text and tables of data/synth/train$((TAG+1)); tables of the
#                              TABLE_PAGES pages (base backbone, `npm run features`)
#   data/features_joint/val    the pinned val regions (the ids in RECORDS): text and tables through
#                              the base backbone, formulas through ENC on the PDF path
#   data/features_f5up/val     the same formulas on the image path
# Train with `--data data/features_joint --line_samples data/synth/train$((TAG+1))`.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
export TAG=${TAG:-12} F3_SEED=${F3_SEED:-1000000} F2_SEED=${F2_SEED:-1050000} F3_SETS=${F3_SETS:-2}
TABLE_SEED=${TABLE_SEED:-1100000}; TABLE_PAGES=${TABLE_PAGES:-300}; T2=$((TAG + 1))
ENC=${ENC:-public/models/gocr-v1/vision-formula.onnx}
RECORDS=${RECORDS:-training/logs/gocr-v1-seg4-records300.jsonl.gz}
# gocr.strips over thousands of mixed-width strips fragments glibc's arenas (one 10 k call was
# OOM-killed at 23 GB): few arenas, one call per set, small batches
export MALLOC_ARENA_MAX=2
PY=/usr/bin/python3
say() { echo "$1: $(( $(date +%s) - t0 )) s"; }
enc_features() { PYTHONPATH=training $PY -m gocr.strips --strips "$1" --backbone "$ENC" --out "$2" --batch 16 > /dev/null; }

training/formula_data.sh
say "formula pages and strips"

if [ -z "${SKIP_VAL:-}" ]; then
  for s in val300 val_tf; do
    npm run -s crops -- --in "data/synth/$s" --out "data/crops/tt_$s" --tasks text,table > /dev/null 2>&1
  done
  $PY training/select_regions.py --records "$RECORDS" --tasks text,table \
    --crops data/crops/tt_val300,data/crops/tt_val_tf --out data/crops/tt_valsel
  rm -rf data/features_tt/val
  npm run -s features -- --in data/crops/tt_valsel --out data/features_tt/val > /dev/null
  enc_features data/strips/f3_val300,data/strips/f3_val_tf data/features_f5/val
  enc_features data/strips/f2_val300,data/strips/f2_val_tf data/features_f5up/val
  rm -rf data/features_joint/val
  PYTHONPATH=training $PY -m gocr.pack --out data/features_joint/val data/features_tt/val data/features_f5/val
  say "val"
fi

inputs=()
for c in $(seq 0 $((F3_SETS - 1))); do
  enc_features "data/strips/f3_train${TAG}_$c" "data/features_fenc/f3_train${TAG}_$c"
  inputs+=("data/features_fenc/f3_train${TAG}_$c")
done
enc_features "data/strips/f2_train$T2" "data/features_fenc/f2_train$T2"
inputs+=("data/features_fenc/f2_train$T2")
say "train formula features"

npm run -s crops -- --in "data/synth/train$T2" --out "data/crops/train$T2" --tasks text,table > /dev/null 2>&1
rm -rf "data/features_tt/train$T2"
npm run -s features -- --in "data/crops/train$T2" --out "data/features_tt/train$T2" ${TT_LIMIT:+--limit "$TT_LIMIT"} > /dev/null
inputs+=("data/features_tt/train$T2:text,table")
say "train text/table features"

if [ "$TABLE_PAGES" -gt 0 ]; then
  d="tables$T2"
  npm run -s synth -- --pages "$TABLE_PAGES" --seed "$TABLE_SEED" --boost table=8 --out "data/synth/$d" > /dev/null
  npm run -s crops -- --in "data/synth/$d" --out "data/crops/$d" --tasks table > /dev/null 2>&1
  rm -rf "data/features_tt/$d"
  npm run -s features -- --in "data/crops/$d" --out "data/features_tt/$d" > /dev/null
  inputs+=("data/features_tt/$d:table")
  say "extra tables"
fi

SPLIT=${SPLIT:-train}
read -r -a extra <<< "${PACK_EXTRA:-}"
rm -rf "data/features_joint/$SPLIT"
PYTHONPATH=training $PY -m gocr.pack --out "data/features_joint/$SPLIT" "${extra[@]}" "${inputs[@]}"
say "done"
