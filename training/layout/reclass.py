"""Second look at each region's class: a small CNN that sees the region's top-left corner at a fixed
physical scale (glyphs, markers, font size) plus the box's place on the page.

The detector sees the whole page at ~0.6x; a page number ("221 of 232") and a footer ("Revision 9")
are then a few blurred strokes of the same shape. This classifier sees the first lines of the
region at 0.75x of a 150-dpi page, where digits, bullets, "Figure 3:" and footnote sizes differ.
The TypeScript twin of `window()` is src/layout/reclass.ts (same sampling, float64).

  python3 training/layout/reclass.py --train data/synth/train,data/synth/train_tf --val data/synth/val \
      --out training/layout/runs/reclass      # ~25 min here: windows ~10, 8000 steps ~15
  python3 training/layout/reclass.py --export training/layout/runs/reclass/reclass.pt --out public/models/layout
  npm run layout:regions -- --data data/synth/dev2 --out data/reclass/dev2-regions.jsonl
  python3 training/layout/reclass.py --eval_regions training/layout/runs/reclass/reclass.pt --regions data/reclass/dev2-regions.jsonl

Input `window` (N, 2, WIN_H, WIN_W): channel 0 ink (255 − gray)/255, channel 1 the box mask;
input `geom` (N, 6): x0/W, y0/H, x1/W, y1/H, box height·s/100, box width·s/1000 (s = REF_W/W).
Output `logits` (N, C) over the detector's classes.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CLASSES, CLS_INDEX, load_page_image, read_pages  # noqa: E402

REF_W = 1275.0      # page width the window scale is defined against (US letter at 150 dpi)
ZOOM = 0.75         # window pixels per reference pixel
WIN_H, WIN_W = 72, 288
PAD_X, PAD_Y = 24.0, 8.0   # reference pixels of context left of / above the box


def window(gray, box):
    """float gray (H, W) 0..255, box [x0,y0,x1,y1] page px -> ((2, WIN_H, WIN_W) f32, (6,) f32).

    Bilinear samples (pixel centres, outside the page = white) on a grid of step
    W / (REF_W · ZOOM) page px starting PAD_X, PAD_Y reference px left of / above the box."""
    H, W = gray.shape
    x0, y0, x1, y1 = [float(v) for v in box]
    u = W / REF_W                       # page px per reference px
    step = u / ZOOM
    ox, oy = x0 - PAD_X * u, y0 - PAD_Y * u
    px = ox + (np.arange(WIN_W, dtype=np.float64) + 0.5) * step
    py = oy + (np.arange(WIN_H, dtype=np.float64) + 0.5) * step
    sx, sy = px - 0.5, py - 0.5
    ix, iy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    fx, fy = sx - ix, sy - iy

    def tap(yy, xx):
        ok = (yy[:, None] >= 0) & (yy[:, None] < H) & (xx[None, :] >= 0) & (xx[None, :] < W)
        v = gray[np.clip(yy, 0, H - 1)[:, None], np.clip(xx, 0, W - 1)[None, :]].astype(np.float64)
        return np.where(ok, v, 255.0)

    top = tap(iy, ix) * (1 - fx)[None, :] + tap(iy, ix + 1) * fx[None, :]
    bot = tap(iy + 1, ix) * (1 - fx)[None, :] + tap(iy + 1, ix + 1) * fx[None, :]
    g = top * (1 - fy)[:, None] + bot * fy[:, None]
    ink = (255.0 - g) / 255.0
    mask = ((py[:, None] >= y0) & (py[:, None] < y1) & (px[None, :] >= x0) & (px[None, :] < x1)).astype(np.float64)
    geom = np.array([x0 / W, y0 / H, x1 / W, y1 / H, (y1 - y0) / u / 100.0, (x1 - x0) / u / 1000.0])
    return np.stack([ink, mask]).astype(np.float32), geom.astype(np.float32)


class ReClass(nn.Module):
    def __init__(self, n_cls=len(CLASSES), width=16):
        super().__init__()
        w = width

        def block(i, o, s):
            return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.body = nn.Sequential(
            block(2, w, 2),                                  # 36 x 144
            block(w, 2 * w, 2), block(2 * w, 2 * w, 1),      # 18 x 72
            block(2 * w, 4 * w, 2), block(4 * w, 4 * w, 1),  # 9 x 36
            block(4 * w, 6 * w, 2),                          # 5 x 18
        )
        self.geom = nn.Sequential(nn.Linear(6, 32), nn.ReLU(inplace=True))
        self.head = nn.Sequential(nn.Linear(12 * w + 32, 128), nn.ReLU(inplace=True), nn.Linear(128, n_cls))

    def forward(self, window, geom):
        f = self.body(window)
        f = torch.cat([f.mean((2, 3)), f.amax((2, 3)), self.geom(geom)], 1)
        return self.head(f)


def jitter(box, rng, u, amount):
    if amount <= 0:
        return list(box)
    x0, y0, x1, y1 = box
    h = y1 - y0
    d = rng.normal(0, 1, 4)
    dx = amount * 4 * u                 # the detector's left/right edges wander by ~10 reference px
    dy = amount * min(2 * u, 0.1 * h)
    nx0, ny0 = x0 + d[0] * dx, y0 + d[1] * dy
    # at least 2 px wide and tall after the move (a thin page number must not turn inside out)
    return [nx0, ny0, max(nx0 + 2, x1 + d[2] * dx), max(ny0 + 2, y1 + d[3] * dy)]


def load_or_build(roots, cache, copies, seed, amount, log=print):
    """Windows of every region of the pages under `roots` (`copies` per region, all but the first
    jittered), cached in `cache` together with what they were built from; a cache built from other
    inputs is rebuilt."""
    key = json.dumps({"roots": list(roots), "copies": copies, "seed": seed, "jitter": amount, "ref_w": REF_W,
                      "zoom": ZOOM, "win": [WIN_H, WIN_W], "pad": [PAD_X, PAD_Y], "v": 2}, sort_keys=True)
    if cache and os.path.isfile(cache):
        z = np.load(cache)
        if "key" in z.files and str(z["key"]) == key:
            return z["win"], z["mask"], z["geom"], z["y"]
        log(f"{cache} was built from other inputs; rebuilding it")
    rng = np.random.default_rng(seed)
    win, mask, geom, ys = [], [], [], []
    t0 = time.time()
    pages = [p for r in roots for p in read_pages(r)]
    for k, p in enumerate(pages):
        gray = load_page_image(p["image"])
        u = gray.shape[1] / REF_W
        for reg in p["regions"]:
            for c in range(copies):
                w, g = window(gray, jitter(reg["box"], rng, u, amount if c > 0 else 0))
                win.append(np.round(w[0] * 255).astype(np.uint8))
                mask.append(w[1].astype(np.bool_))
                geom.append(g)
                ys.append(CLS_INDEX[reg["cls"]])
        if (k + 1) % 100 == 0:
            log(f"  {k + 1}/{len(pages)} pages, {len(ys)} windows, {time.time() - t0:.0f} s")
    out = np.stack(win), np.stack(mask), np.stack(geom).astype(np.float32), np.array(ys, np.int64)
    if cache:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        np.savez(cache, win=out[0], mask=out[1], geom=out[2], y=out[3], key=np.array(key))
    return out


def tensors(win, mask, geom, idx):
    w = torch.from_numpy(win[idx]).float().div_(255.0)
    m = torch.from_numpy(mask[idx]).float()
    return torch.stack([w, m], 1), torch.from_numpy(geom[idx])


def evaluate(model, data, bs=256):
    win, mask, geom, y = data
    model.eval()
    pred = []
    with torch.no_grad():
        for i in range(0, len(y), bs):
            idx = np.arange(i, min(len(y), i + bs))
            x, g = tensors(win, mask, geom, idx)
            pred.append(model(x, g).argmax(1).numpy())
    pred = np.concatenate(pred)
    per = {}
    for c, name in enumerate(CLASSES):
        sel = y == c
        if sel.any():
            per[name] = {"n": int(sel.sum()), "acc": float((pred[sel] == c).mean())}
    conf = {}
    for t, p in zip(y, pred):
        if t != p:
            k = f"{CLASSES[t]}->{CLASSES[p]}"
            conf[k] = conf.get(k, 0) + 1
    return {"acc": float((pred == y).mean()), "per_class": per, "confusions": dict(sorted(conf.items(), key=lambda kv: -kv[1]))}


def train(a):
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    logf = open(os.path.join(a.out, "train.log"), "a")

    def log(s):
        print(s, flush=True)
        logf.write(s + "\n")
        logf.flush()

    log(f"reclass: {vars(a)}")
    tr = load_or_build(a.train.split(","), os.path.join(a.cache, "train.npz"), a.copies, a.seed, a.jitter, log)
    va = load_or_build(a.val.split(","), os.path.join(a.cache, "val.npz"), 1, a.seed + 1, 0, log)
    log(f"train {len(tr[3])} windows, val {len(va[3])}")
    model = ReClass(width=a.width)
    ck = os.path.join(a.out, "reclass.pt")
    step = 0
    if os.path.isfile(ck) and not a.fresh:
        st = torch.load(ck)
        model.load_state_dict(st["model"])
        step = st["step"]
        log(f"resumed at step {step}")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    counts = np.bincount(tr[3], minlength=len(CLASSES)).astype(np.float64)
    wts = torch.tensor((counts.max() / np.maximum(counts, 1)) ** 0.5, dtype=torch.float32)
    rng = np.random.default_rng(a.seed + step)
    t0 = time.time()
    total = a.steps
    best = -1.0
    while step < total and (time.time() - t0) < a.minutes * 60:
        model.train()
        idx = rng.integers(0, len(tr[3]), a.batch)
        x, g = tensors(tr[0], tr[1], tr[2], idx)
        lr = a.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, step / total)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        loss = F.cross_entropy(model(x, g), torch.from_numpy(tr[3][idx]), weight=wts)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            log(f"step {step} loss {loss.item():.4f} lr {lr:.2e} {time.time() - t0:.0f} s")
        if step % a.eval_every == 0 or step == total:
            m = evaluate(model, va)
            log(f"  val acc {m['acc']:.4f} {json.dumps(m['confusions'])}")
            torch.save({"model": model.state_dict(), "step": step, "width": a.width, "val": m}, ck)
            if m["acc"] > best:
                best = m["acc"]
    m = evaluate(model, va)
    torch.save({"model": model.state_dict(), "step": step, "width": a.width, "val": m}, ck)
    log(f"done step {step} val acc {m['acc']:.4f} {json.dumps(m)}")


def eval_regions(a):
    """Accuracy on the pipeline's own regions (npm run layout:regions), beside the detector's."""
    st = torch.load(a.eval_regions)
    model = ReClass(width=st["width"])
    model.load_state_dict(st["model"])
    model.eval()
    torch.set_num_threads(a.threads)
    n = ok = det_ok = 0
    conf, det_conf = {}, {}
    for path in a.regions.split(","):
        for line in open(path):
            p = json.loads(line)
            if not p["regions"]:
                continue
            gray = load_page_image(p["image"])
            ws, gs = zip(*[window(gray, r["box"]) for r in p["regions"]])
            with torch.no_grad():
                pred = model(torch.from_numpy(np.stack(ws)), torch.from_numpy(np.stack(gs))).argmax(1).numpy()
            for r, c in zip(p["regions"], pred):
                n += 1
                ok += CLASSES[c] == r["cls"]
                det_ok += r["detected"] == r["cls"]
                if CLASSES[c] != r["cls"]:
                    k = f"{r['cls']}->{CLASSES[c]}"
                    conf[k] = conf.get(k, 0) + 1
                if r["detected"] != r["cls"]:
                    k = f"{r['cls']}->{r['detected']}"
                    det_conf[k] = det_conf.get(k, 0) + 1
    top = lambda d: dict(sorted(d.items(), key=lambda kv: -kv[1])[:15])  # noqa: E731
    print(json.dumps({"regions": n, "reclass_acc": ok / max(1, n), "detector_acc": det_ok / max(1, n),
                      "reclass_errors": top(conf), "detector_errors": top(det_conf)}, indent=1))


def rehash(out, m=None):
    """sha256 and size of every file the layout manifest lists (after an export or a config edit)."""
    import hashlib
    man = os.path.join(out, "manifest.json")
    if m is None:
        with open(man) as f:
            m = json.load(f)
    for name in m["files"]:
        with open(os.path.join(out, name), "rb") as f:
            b = f.read()
        m["files"][name] = {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
    with open(man, "w") as f:
        json.dump(m, f, indent=1)


def export(a):
    st = torch.load(a.export)
    model = ReClass(width=st["width"])
    model.load_state_dict(st["model"])
    model.eval()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "reclass.onnx")
    x = torch.zeros(1, 2, WIN_H, WIN_W)
    g = torch.zeros(1, 6)
    torch.onnx.export(model, (x, g), path, input_names=["window", "geom"], output_names=["logits"],
                      dynamic_axes={"window": {0: "n"}, "geom": {0: "n"}, "logits": {0: "n"}}, opset_version=17)
    # golden: a synthetic page (formula below, rebuilt in src/layout/reclass.test.ts) and two boxes
    H, W = 97, 131
    yy, xx = np.mgrid[0:H, 0:W]
    gray = ((xx * 7 + yy * 13) % 256).astype(np.float32)
    boxes = [[10.0, 12.0, 60.5, 30.0], [100.25, 80.0, 131.0, 97.0]]
    wins, geoms = zip(*[window(gray, b) for b in boxes])
    xw = torch.from_numpy(np.stack(wins))
    xg = torch.from_numpy(np.stack(geoms))
    with torch.no_grad():
        logits = model(xw, xg).numpy()
    golden = {
        "page": {"height": H, "width": W, "formula": "(x*7 + y*13) % 256"},
        "boxes": boxes,
        "geom": np.stack(geoms).tolist(),
        "window_sums": [[float(w[0].sum()), float(w[1].sum())] for w in wins],
        "window_probe": [[float(w[0, 5, 7]), float(w[0, 40, 100]), float(w[0, 71, 287])] for w in wins],
        "logits": logits.tolist(),
    }
    with open(os.path.join(a.out, "reclass_golden.json"), "w") as f:
        json.dump(golden, f)
    man = os.path.join(a.out, "manifest.json")
    if os.path.isfile(man):
        with open(man) as f:
            m = json.load(f)
        m["reclass"] = {
            "model": "reclass.onnx", "params": sum(p.numel() for p in model.parameters()), "opset": 17,
            "inputs": {"window": ["n", 2, WIN_H, WIN_W], "geom": ["n", 6]}, "outputs": {"logits": ["n", len(CLASSES)]},
            "training": {"steps": st["step"], "checkpoint": a.export},
            "val_gt_boxes": {"acc": st.get("val", {}).get("acc"), "per_class": st.get("val", {}).get("per_class")},
        }
        for name in ("reclass.onnx", "reclass_golden.json"):
            m["files"][name] = {}
        rehash(a.out, m)
    print(f"wrote {path} ({os.path.getsize(path)} bytes), {sum(p.numel() for p in model.parameters())} params, val {st.get('val', {}).get('acc')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", default="data/synth/train,data/synth/train_tf")
    ap.add_argument("--val", default="data/synth/val")
    ap.add_argument("--out", default="training/layout/runs/reclass")
    ap.add_argument("--cache", default="data/reclass")
    ap.add_argument("--export", default="")
    ap.add_argument("--rehash", action="store_true", help="only rewrite the sha256/bytes of --out/manifest.json")
    ap.add_argument("--eval_regions", default="", help="a checkpoint: its accuracy on --regions")
    ap.add_argument("--regions", default="", help="JSONL files written by npm run layout:regions")
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--jitter", type=float, default=3.0)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--minutes", type=float, default=40)
    ap.add_argument("--eval_every", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fresh", action="store_true")
    a = ap.parse_args()
    if a.rehash:
        rehash(a.out)
    elif a.export:
        export(a)
    elif a.eval_regions:
        eval_regions(a)
    else:
        train(a)


if __name__ == "__main__":
    main()
