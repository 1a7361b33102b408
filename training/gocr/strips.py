"""Packed features from prepared strips (tools/vision/strips.ts) with the PyTorch backbone port.

The same data/features/<split>/ files as `npm run features` (features.f16, index.jsonl, meta.json;
docs/ARCHITECTURE.md "Packed features"), computed where there is PyTorch but no Node, e.g. on a GPU:

  npm run strips -- --in data/crops/val_tf --out data/strips/val_tf           # here (Node)
  PYTHONPATH=training python3 -m gocr.ppocr --out data/ppocr.pt                # here (python3-onnx)
  PYTHONPATH=training python3 -m gocr.strips --strips data/strips/val_tf --backbone data/ppocr.pt \
      --out data/features/val --device cuda                                        # repo root, any machine

Strips of one width are run as one batch (the backbone is per-column up to its attention neck,
and all strips of a batch have the same width, so batching changes nothing but speed).
"""
import argparse
import json
import os
import time
import zlib

import numpy as np
import torch

from .checkpoint import file_sha256, load_ckpt

STRIP_HEIGHT = 48


def read_strips(strip_dir):
    """-> list of {"id","task","target","strips": [uint8 (C, 48·scale, W)]}."""
    with open(os.path.join(strip_dir, "strips.bin"), "rb") as f:
        blob = f.read()
    out = []
    with open(os.path.join(strip_dir, "index.jsonl"), encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            arrs = []
            scale = r.get("scale", 1)  # strips for an encoder of input scale s are s·48 high
            for w, c, off, n in r["strips"]:
                a = np.frombuffer(zlib.decompress(blob[off:off + n]), np.uint8)
                arrs.append(a.reshape(c, STRIP_HEIGHT * scale, w))
            out.append({"id": r["id"], "task": r["task"], "target": r["target"], "strips": arrs})
    return out


def to_input(a):
    """uint8 (1|3, H, W) -> float (3, H, W), (v/255 - 0.5)/0.5 as the runtime feeds the backbone."""
    x = torch.from_numpy(a.astype(np.float32)) / 255.0
    x = (x - 0.5) / 0.5
    return x.expand(3, -1, -1) if x.shape[0] == 1 else x


@torch.no_grad()
def build_features(samples, backbone, out_dir, device="cpu", batch_rows=64, log=print, provenance=None):
    """Writes features.f16 / index.jsonl / meta.json; returns the number of feature rows.
    provenance: what meta.json records as their source ({"model", "model_sha256", "source"}), so
    an eval over these features can say which encoder read them."""
    backbone = backbone.to(device).eval()
    # all strips, grouped by width
    flat = [(i, k, s) for i, smp in enumerate(samples) for k, s in enumerate(smp["strips"])]
    by_w = {}
    for j, (_, _, s) in enumerate(flat):
        by_w.setdefault(s.shape[2], []).append(j)
    feats = [None] * len(flat)
    t0 = time.time()
    for w, js in sorted(by_w.items()):
        for b in range(0, len(js), batch_rows):
            part = js[b:b + batch_rows]
            x = torch.stack([to_input(flat[j][2]) for j in part]).to(device)
            y = backbone(x).float().cpu().numpy()
            for j, f in zip(part, y):
                feats[j] = f
    os.makedirs(out_dir, exist_ok=True)
    rows = 0
    with open(os.path.join(out_dir, "features.f16"), "wb") as ff, \
            open(os.path.join(out_dir, "index.jsonl"), "w", encoding="utf-8") as fi:
        j = 0
        for smp in samples:
            n = len(smp["strips"])
            fs = feats[j:j + n]
            j += n
            for f in fs:
                ff.write(f.astype("<f2").tobytes())
            fi.write(json.dumps({"id": smp["id"], "task": smp["task"], "target": smp["target"], "offset": rows,
                                 "strips": [int(f.shape[0]) for f in fs]}) + "\n")
            rows += sum(int(f.shape[0]) for f in fs)
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump({"vision_dim": int(feats[0].shape[1]) if feats else 120, "dtype": "float16-le", "rows": rows,
                   "samples": len(samples), "strips": len(flat), "strip_height": int(flat[0][2].shape[1]) if flat else STRIP_HEIGHT,
                   "model": "unknown", **(provenance or {}), "device": str(device)}, f, indent=2)
    log(f"{len(samples)} samples, {len(flat)} strips, {rows} rows -> {out_dir} ({time.time() - t0:.0f} s on {device})")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--strips", required=True, help="folder(s) written by npm run strips, comma-separated, "
                                                   "packed in that order")
    ap.add_argument("--backbone", required=True, help="file written by python3 -m gocr.ppocr, an exported encoder .onnx, or a "
                                                     "training/train_vision.py ckpt.pt")
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args(argv)
    samples = [s for d in a.strips.split(",") if d for s in read_strips(d)]
    build_features(samples, load_backbone(a.backbone), a.out, a.device, a.batch,
                   provenance={"model": a.backbone, "model_sha256": file_sha256(a.backbone), "source": a.strips})


def load_backbone(path):
    """A `python3 -m gocr.ppocr` file, a training/train_vision.py checkpoint (its encoder), or an
    exported encoder .onnx (e.g. public/models/gocr-v1/vision-formula.onnx; needs the onnx package)."""
    from gocr.ppocr import PPOCRBackbone
    if path.endswith(".onnx"):
        return PPOCRBackbone.from_onnx(path)
    st = load_ckpt(path)
    if "backbone" in st:  # train_vision.py ckpt.pt: the base graph + trained tensors
        base = st["args"]["backbone"]  # as given to train_vision.py: relative to the repo root there
        if not os.path.isabs(base) and not os.path.exists(base):
            base = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), base)
        m = PPOCRBackbone.load(base).upscale_stem(st["args"].get("scale", 1)).learn_pool(st["args"].get("pool_groups", 0))
        m.load_state_dict(st["backbone"])
        return m
    return PPOCRBackbone.load(path)


if __name__ == "__main__":
    main()
