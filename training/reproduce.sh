#!/bin/sh
# The recognizer from scratch, one command: data -> features -> train -> eval -> export.
#
#   nohup training/reproduce.sh > repro.log 2>&1 &          # RUN=<run name> ID=<model id> STEPS=5200
#
# Times on the 2-core CPU machine this project is built on (measured on parts of the pipeline):
#   corpus ~1 min (needs Debian's linux-doc python3.11-doc wamerican) · synth 1000 train pages ~3 min + 300 val pages ~1 min
#   + 900 table/formula pages ~2.5 min · crops ~2 min
#   features (alone on the machine): ~21 strips/s = ~8.5 region crops/s -> train (18.6 k crops) ~40 min,
#   val (3.2 k) ~7 min (measured 2026-12-03: 8,479 crops of 450 pages in 17 min)
#   train: 0.5-0.7 step/s alone -> 5200 steps ~2.5 h (one process, 2 threads)
#   eval (300 regions per task, exact decoders) ~75 min on one thread · export ~10 s
# On a CUDA machine add DEVICE=cuda (PyTorch 2.x); training then takes minutes.
# Every step resumes: synth/crops are deterministic, features use --resume, training resumes from
# training/runs/$RUN/ckpt.pt. The embedded gocr-v1 was made with these settings, but in segments
# (its manifest says which), so a fresh run lands near it, not on its exact bits.
set -e
cd "$(dirname "$0")/.."
RUN=${RUN:-gocr-repro}
ID=${ID:-$RUN}
STEPS=${STEPS:-5200}
DEVICE=${DEVICE:-cpu}
export OMP_WAIT_POLICY=PASSIVE MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 MALLOC_TOP_PAD_=1073741824

[ -d data/corpus ] || npm run corpus
npm run synth -- --pages 1000 --seed 0 --out data/synth/train
npm run synth -- --pages 300 --seed 0 --split val --out data/synth/val
npm run crops -- --in data/synth/train --out data/crops/train
npm run crops -- --in data/synth/val --out data/crops/val
# tables and formulas are ~6 % of regions on ordinary pages: add pages rich in both (another seed range)
npm run synth -- --pages 900 --seed 100000 --boost table=5,formula=8 --out data/synth/train_tf
npm run crops -- --in data/synth/train_tf --out data/crops/train_tf --tasks table,formula
npm run features -- --in data/crops/train --out data/features/train --resume 1
npm run features -- --in data/crops/train_tf --out data/features/train --resume 1   # appended
npm run features -- --in data/crops/val --out data/features/val --resume 1
# and table/formula-rich val pages, so the eval has >= 300 regions of each type
npm run synth -- --pages 110 --seed 10000 --split val --boost table=5,formula=8 --out data/synth/val_tf
npm run crops -- --in data/synth/val_tf --out data/crops/val_tf --tasks table,formula
npm run features -- --in data/crops/val_tf --out data/features/val --resume 1     # appended

/usr/bin/python3 training/train.py --run "training/runs/$RUN" --device "$DEVICE" \
  --data data/features --line_samples data/synth/train --line_only_text \
  --diff_blocks 2 --guide_weight 1.0 --guide_start 50 --max_tokens 6000 \
  --steps "$STEPS" --warmup 200 --curriculum_steps 2000 --eval_every 250 --eval_n 16 --ckpt_minutes 10
/usr/bin/python3 training/evaluate.py --ckpt "training/runs/$RUN/ckpt.pt" --n_per_task 300 --threads 2 \
  --out "training/runs/$RUN/eval.json"
/usr/bin/python3 training/export.py --ckpt "training/runs/$RUN/ckpt.pt" --id "$ID" --dtype f16

# Formulas: a copy of the PP-OCR backbone fine-tuned through the frozen decoder (train_vision.py;
# ~0.3 step/s here, 1000 steps ~55 min; eval of 300 formulas ~6 min per encoder). Stage 1 on the
# 48-px strips of the 150-dpi crops; stage 2 at input scale 2 (96-px strips) on formula crops of the
# same pages rendered at 300 dpi, which is what the app reads from a PDF (engine PageDetail).
for s in train train_tf val val_tf; do
  npm run strips -- --in "data/crops/$s" --out "data/strips/f_$s" --tasks formula
done
npm run synth -- --pages 900 --seed 100000 --boost table=5,formula=8 --dpi 300 --out data/synth300/train_tf
npm run synth -- --pages 300 --seed 0 --split val --dpi 300 --out data/synth300/val
npm run synth -- --pages 110 --seed 10000 --split val --boost table=5,formula=8 --dpi 300 --out data/synth300/val_tf
for s in train_tf val val_tf; do
  npm run crops -- --in "data/synth300/$s" --out "data/crops300/$s" --tasks formula --margin 8
  npm run strips -- --in "data/crops300/$s" --out "data/strips/f3_$s" --tasks formula --scale 2
done
PYTHONPATH=training /usr/bin/python3 -m gocr.ppocr --out data/ppocr.pt
/usr/bin/python3 training/train_vision.py --decoder "public/models/$ID" --backbone data/ppocr.pt \
  --strips data/strips/f_train_tf,data/strips/f_train --val_strips data/strips/f_val \
  --run "training/runs/$RUN-formula" --steps 1000 --lr 3e-4
/usr/bin/python3 training/train_vision.py --decoder "public/models/$ID" --init "training/runs/$RUN-formula/ckpt.pt" --scale 2 \
  --strips data/strips/f3_train_tf --val_strips data/strips/f3_val \
  --run "training/runs/$RUN-formula2" --steps 2000 --lr 1.5e-4 --warmup 50
# the base backbone on the 150-dpi strips, the trained encoder on the 300-dpi ones (same regions)
PYTHONPATH=training /usr/bin/python3 -m gocr.strips --strips data/strips/f_val,data/strips/f_val_tf \
  --backbone data/ppocr.pt --out data/features_fbase/val --device "$DEVICE"
PYTHONPATH=training /usr/bin/python3 -m gocr.strips --strips data/strips/f3_val,data/strips/f3_val_tf \
  --backbone "training/runs/$RUN-formula2/ckpt.pt" --out data/features_fformula/val --device "$DEVICE"
for enc in base formula; do
  /usr/bin/python3 training/evaluate.py --model "public/models/$ID" --data "data/features_f$enc" --n_per_task 300 \
    --out "training/runs/$RUN-formula2/eval_$enc.json"
done
/usr/bin/python3 training/train_vision.py --run "training/runs/$RUN-formula2" \
  --export "public/models/$ID/vision-formula.onnx" --manifest "public/models/$ID/manifest.json" \
  --eval "training/runs/$RUN-formula2/eval_formula.json" --base_eval "training/runs/$RUN-formula2/eval_base.json"

# The decoder, so far trained on base-backbone features only, then learns to read the formula
# encoder's (the app reads formulas with it): formula features of the trained encoder + the
# text/table features of the train pages as replay (~40 min for 1,400 steps here, 0.6-0.8 step/s).
PYTHONPATH=training /usr/bin/python3 -m gocr.strips --strips data/strips/f3_train_tf \
  --backbone "training/runs/$RUN-formula2/ckpt.pt" --out data/features_fformula/train --device "$DEVICE"
PYTHONPATH=training /usr/bin/python3 -m gocr.pack --out data/features_dec/train \
  data/features_fformula/train data/features/train:text,table
PYTHONPATH=training /usr/bin/python3 -m gocr.pack --out data/features_dec/val \
  data/features/val:text,table data/features_fformula/val
cp "public/models/$ID/manifest.json" "training/runs/$RUN-formula2/manifest-before-dec.json"
/usr/bin/python3 training/train.py --run "training/runs/$RUN-dec" --init "public/models/$ID" --device "$DEVICE" \
  --data data/features_dec --line_samples data/synth/train --line_only_text --diff_blocks 2 \
  --guide_weight 1.0 --guide_start 0 --max_tokens 6000 --warmup 50 --curriculum_steps 0 \
  --lr 3e-4 --min_lr 3e-5 --steps 1400 --eval_every 350 --eval_n 16
/usr/bin/python3 training/export.py --ckpt "training/runs/$RUN-dec/ckpt.pt" --id "$ID" --dtype f16 \
  --data data/features_dec --init_manifest "training/runs/$RUN-formula2/manifest-before-dec.json"
E="/usr/bin/python3 training/evaluate.py --model public/models/$ID --n_per_task 300 --threads 1"
$E --data data/features --tasks text,table --out "training/runs/$RUN-dec/eval_tt.json" &
$E --data data/features_fformula --tasks formula --out "training/runs/$RUN-dec/eval_f.json"
wait
/usr/bin/python3 training/evaluate.py --merge "training/runs/$RUN-dec/eval_tt.json" "training/runs/$RUN-dec/eval_f.json" \
  --out "training/runs/$RUN-dec/eval.json"
/usr/bin/python3 training/export.py --ckpt "training/runs/$RUN-dec/ckpt.pt" --id "$ID" --dtype f16 \
  --data data/features_dec --init_manifest "training/runs/$RUN-formula2/manifest-before-dec.json" \
  --eval "training/runs/$RUN-dec/eval.json" --task_eval "formula:val=training/runs/$RUN-dec/eval_f.json"
echo "exported public/models/$ID: point public/models/default.json's \"recognizer\" at it and"
echo "\"visionTasks\": {\"formula\": \"$ID/vision-formula.onnx\"} to use it"
