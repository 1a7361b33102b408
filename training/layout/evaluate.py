"""Evaluate a layout checkpoint with PyTorch on a synth split: mAP per class + reading order.

  /usr/bin/python3 training/layout/evaluate.py --ckpt training/layout/runs/<name>/best.pt \
      --data data/synth/val [--out eval_py.json]

mAP uses the Python twin of the TS post-processing (training/layout/metrics.py). Reading order is
computed by the TS code itself (`node --import tsx src/layout/node/order.ts`), on ground-truth
boxes and end to end on detections at the config's operating threshold. The shipped-model
evaluation (TS preprocessing + onnxruntime-node + TS post-processing) is `npm run layout:eval`;
both should agree to a few 1e-3 (the TS side sees float, not 8-bit, inputs).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import CLASSES, load_page_image, preprocess, read_pages  # noqa: E402
from export import load_any  # noqa: E402
from metrics import iou_matrix, map_report, postprocess, suppress_across_classes  # noqa: E402
from model import decode  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


def ts_reading_order(pages):
    """pages: [{width, height, regions: [{cls, box}]}] -> per page, input indices in reading order."""
    r = subprocess.run(["node", "--import", "tsx", "src/layout/node/order.ts"], cwd=REPO,
                       input=json.dumps({"pages": pages}).encode(), capture_output=True, check=True)
    return json.loads(r.stdout)["pages"]


def match(preds, gts, thr=0.5):
    """greedy same-class IoU matching -> gt index per prediction (or -1)."""
    out = [-1] * len(preds)
    if not preds or not gts:
        return out
    m = iou_matrix([p["box"] for p in preds], [g["box"] for g in gts])
    pairs = [(m[i, j], i, j) for i in range(len(preds)) for j in range(len(gts))
             if preds[i]["cls"] == gts[j]["cls"] and m[i, j] >= thr]
    used = set()
    for _, i, j in sorted(pairs, key=lambda t: -t[0]):
        if out[i] < 0 and j not in used:
            out[i] = j
            used.add(j)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--data", default="data/synth/val")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--out", default="")
    a = p.parse_args()
    torch.set_num_threads(1)
    net, cfg, _ = load_any(a.ckpt)
    pages = read_pages(a.data)[: a.limit or None]
    dets, gts, op_pages, gt_pages = [], [], [], []
    t_model = 0.0
    for pg in pages:
        gray = load_page_image(pg["image"])
        x, s = preprocess(gray, cfg)
        t0 = time.time()
        with torch.no_grad():
            scores, boxes = decode(*net(torch.from_numpy(x)[None, None]), cfg.stride)
        t_model += time.time() - t0
        h, w = gray.shape
        d = postprocess(scores[0].numpy(), boxes[0].numpy(), s, w, h, 0.02, cfg.nms_iou, cfg.max_detections)
        dets.append(d)
        gt = [{"cls": CLASSES.index(r["cls"]), "box": r["box"], "order": r["order"]} for r in pg["regions"]]
        gts.append(gt)
        kept = suppress_across_classes([x for x in d if x["score"] >= cfg.score_threshold], cfg.cross_class_iou)
        op = [{"cls": cfg.classes[x["cls"]], "box": x["box"]} for x in kept]
        op_pages.append({"width": w, "height": h, "regions": op})
        gt_pages.append({"width": w, "height": h, "regions": [{"cls": r["cls"], "box": r["box"]} for r in pg["regions"]]})
    rep = map_report(dets, gts, cfg.classes)
    ro_gt = ts_reading_order(gt_pages)
    ro_op = ts_reading_order(op_pages)
    n = len(pages)
    gt_ok = e2e_ok = 0
    for pg, gt, seq_gt, opp, seq_op in zip(pages, gts, ro_gt, op_pages, ro_op):
        want = sorted(range(len(gt)), key=lambda i: gt[i]["order"])
        gt_ok += seq_gt == want
        preds = [opp["regions"][i] for i in seq_op]
        m = match(preds, [{"cls": r["cls"], "box": r["box"]} for r in pg["regions"]])
        orders = [gt[j]["order"] for j in m if j >= 0]
        e2e_ok += all(j >= 0 for j in m) and len(orders) == len(gt) and orders == sorted(orders)
    out = {"data": a.data, "ckpt": a.ckpt, "pages": n, **rep,
           "reading_order": {"gt_boxes_exact": round(gt_ok / max(n, 1), 4), "end_to_end_exact": round(e2e_ok / max(n, 1), 4),
                             "operating_threshold": cfg.score_threshold},
           "pytorch_ms_per_page": round(1000 * t_model / max(n, 1), 1)}
    print(json.dumps(out, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
