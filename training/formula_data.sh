#!/bin/bash
# The formula data of the enc4 segment (training/README.md, "The formula encoder"), in one command:
#   training/formula_data.sh            # ~35 min on the 2-core CPU; needs `npm run corpus` first
#   TAG=8 F3_SEED=800000 F2_SEED=850000 training/formula_data.sh   # enc5's fresh train sets (f3_train8_*, f2_train9)
#   SKIP_VAL=1 …                        # train sets only (the val sets are already there)
#   F3_SETS=1 …                         # one 1,000-page 300-dpi train set instead of two
# val: the 300 + 110 pinned val pages at 300 dpi (PDF path: f3_*) and 150 dpi upsampled (image
# path: f2_*), the same regions as the enc3 evals; train: fresh seeds, 2,000 table/formula-rich
# pages at 300 dpi (8,039 formulas) + 500 at 150 dpi (1,978). Page PNGs of the train sets are
# deleted once cropped (300-dpi pages are ~1 MB each).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
TAG=${TAG:-6}; F3_SEED=${F3_SEED:-600000}; F2_SEED=${F2_SEED:-700000}; T2=$((TAG + 1))
synth() { npm run -s synth -- "$@" > /dev/null; }
strips() {  # <pages dir> <crops dir> <strips dir> [crop args]
  npm run -s crops -- --in "$1" --out "$2" --tasks formula "${@:4}" > /dev/null 2>&1
  npm run -s strips -- --in "$2" --out "$3" --tasks formula --scale 2 > /dev/null 2>&1
}
if [ -z "${SKIP_VAL:-}" ]; then
synth --pages 300 --seed 0 --split val --dpi 300 --out data/synth300/val300
synth --pages 110 --seed 10000 --split val --boost table=5,formula=8 --dpi 300 --out data/synth300/val_tf
synth --pages 300 --seed 0 --split val --out data/synth/val300
synth --pages 110 --seed 10000 --split val --boost table=5,formula=8 --out data/synth/val_tf
for s in val300 val_tf; do
  strips "data/synth300/$s" "data/crops300/$s" "data/strips/f3_$s" --margin 8
  strips "data/synth/$s" "data/crops/$s" "data/strips/f2_$s"
done
echo "val: $(( $(date +%s) - t0 )) s"
fi
for c in $(seq 0 $(( ${F3_SETS:-2} - 1 ))); do
  d="train${TAG}_$c"
  synth --pages 1000 --seed $((F3_SEED + c * 1000)) --boost table=5,formula=8 --dpi 300 --out "data/synth300/$d"
  strips "data/synth300/$d" "data/crops300/$d" "data/strips/f3_$d" --margin 8
  rm -f data/synth300/$d/*.png
  echo "$d: $(( $(date +%s) - t0 )) s"
done
synth --pages 500 --seed "$F2_SEED" --boost table=5,formula=8 --out "data/synth/train$T2"
strips "data/synth/train$T2" "data/crops/train$T2" "data/strips/f2_train$T2"
echo "train$T2: $(( $(date +%s) - t0 )) s"
