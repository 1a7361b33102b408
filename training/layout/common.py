"""Layout detector: shared definitions (classes, config, page preprocessing, synth-page reading).

Preprocessing is mirrored bit-for-bit in `src/layout/preprocess.ts` (tested with shared vectors):
  gray = 0.299 R + 0.587 G + 0.114 B (float, no rounding)
  s = min(input_h / H, input_w / W); h' = floor(H*s + 0.5), w' = floor(W*s + 0.5)
  area resize (each output pixel = coverage-weighted mean of the input pixels under it)
  x = (255 - gray) / 255 (ink is positive, white is 0), placed top-left on a zero canvas.
"""
import json
import math
import os
from dataclasses import asdict, dataclass, field

import numpy as np

CLASSES = [
    "title", "section_heading", "text", "list_item", "table", "formula",
    "figure", "caption", "page_header", "page_footer", "page_number", "footnote",
]
CLS_INDEX = {c: i for i, c in enumerate(CLASSES)}


@dataclass
class LayoutConfig:
    """Saved beside the weights (ckpt and public/models/layout/config.json); same names in TS."""
    input_h: int = 640
    input_w: int = 512
    classes: list = field(default_factory=lambda: list(CLASSES))
    stride: int = 8
    width: int = 64          # base channel width of the backbone
    fpn_dim: int = 96
    score_threshold: float = 0.35   # app operating point (mAP is computed from 0.02)
    nms_iou: float = 0.5
    max_detections: int = 100
    cross_class_iou: float = 0.7    # detect(): drop a detection overlapping a better one of another class
    # TS only (src/layout/refine.ts): snap x0/x1 of these one-line classes to the ink
    refine_classes: list = field(default_factory=lambda: ["page_number", "page_header", "page_footer", "table", "formula"])
    # TS only (detect()): per-class operating points replacing score_threshold; page numbers are
    # a few glyphs and score low (val/test end to end 42.5 -> 46.3 % / 38 -> 43 % at 0.25)
    class_thresholds: dict = field(default_factory=lambda: {"page_number": 0.25})
    # TS only (context.ts): a context relabel needs raw evidence >= this x the detector's own score
    context_veto: float = 0.0
    # TS only (detector.ts splitEvidence): [lowest score, combined evidence] for a region whose class
    # evidence is split below threshold (heading 0.48, text 0.45, list 0.43); [] = off
    split_evidence: list = field(default_factory=lambda: [0.35, 0.65])

    def to_json(self):
        return asdict(self)

    @staticmethod
    def from_json(d):
        known = {k: v for k, v in d.items() if k in LayoutConfig.__dataclass_fields__}
        return LayoutConfig(**known)


def fit_scale(h, w, input_h, input_w):
    """Scale and resized size of an h x w page letterboxed into input_h x input_w."""
    s = min(input_h / h, input_w / w)
    nh = max(1, min(input_h, int(math.floor(h * s + 0.5))))
    nw = max(1, min(input_w, int(math.floor(w * s + 0.5))))
    return s, nh, nw


def area_weights(n_in, n_out, s):
    """(n_out, n_in) matrix: output j covers input [j/s, (j+1)/s) clipped to [0, n_in)."""
    m = np.zeros((n_out, n_in), np.float64)
    for j in range(n_out):
        a = j / s
        b = min((j + 1) / s, n_in)
        i0 = int(math.floor(a))
        i1 = min(n_in, int(math.ceil(b)))
        for i in range(i0, i1):
            m[j, i] = min(b, i + 1) - max(a, i)
        tot = m[j].sum()
        if tot > 0:
            m[j] /= tot
    return m


def to_gray(rgb):
    """uint8 (H, W[, C]) -> float32 gray (H, W) with the fixed luma weights."""
    a = np.asarray(rgb)
    if a.ndim == 2:
        return a.astype(np.float32)
    a = a.astype(np.float32)
    return 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]


def _taps(m):
    """dense (n_out, n_in) weights -> (idx (n_out, K), wts (n_out, K)) of the non-zero taps."""
    nz = [np.nonzero(r)[0] for r in m]
    k = max(len(z) for z in nz)
    idx = np.zeros((m.shape[0], k), np.int64)
    wts = np.zeros((m.shape[0], k), np.float32)
    for j, z in enumerate(nz):
        idx[j, :len(z)] = z
        wts[j, :len(z)] = m[j, z]
    return idx, wts


def area_resize(gray, nh, nw, s):
    """float gray (H, W) -> (nh, nw): separable area resampling, rows first then columns."""
    h, w = gray.shape
    iy, wy = _taps(area_weights(h, nh, s))
    ix, wx = _taps(area_weights(w, nw, s))
    g = gray.astype(np.float32)
    rows = (g[iy] * wy[:, :, None]).sum(1)          # (nh, W)
    return (rows[:, ix] * wx[None, :, :]).sum(2)    # (nh, nw)


def preprocess(gray, cfg):
    """float gray (H, W) in 0..255 -> (input tensor (input_h, input_w) float32, scale s)."""
    h, w = gray.shape
    s, nh, nw = fit_scale(h, w, cfg.input_h, cfg.input_w)
    small = area_resize(gray, nh, nw, s)
    out = np.zeros((cfg.input_h, cfg.input_w), np.float32)
    out[:nh, :nw] = (255.0 - small) / 255.0
    return out, s


def load_page_image(path):
    from PIL import Image
    im = Image.open(path)
    if im.mode not in ("L", "RGB"):
        im = im.convert("RGB")
    return to_gray(np.asarray(im))


def read_pages(root):
    """Synth pages under root (page JSONs with an `image` field, or a detector.jsonl).

    Returns [{id, image (abs path), width, height, regions: [{cls, box, order}]}]."""
    pages = []
    jl = os.path.join(root, "detector.jsonl") if os.path.isdir(root) else root
    if os.path.isfile(jl) and jl.endswith(".jsonl"):
        base = os.path.dirname(jl)
        with open(jl) as f:
            for line in f:
                if not line.strip():
                    continue
                d = json.loads(line)
                pages.append(_norm_page(d, base))
        return pages
    for name in sorted(os.listdir(root)):
        if not name.endswith(".json") or name in ("meta.json", "manifest.json"):
            continue
        with open(os.path.join(root, name)) as f:
            d = json.load(f)
        if "regions" not in d:
            continue
        pages.append(_norm_page(d, root))
    return pages


def _norm_page(d, base):
    img = d.get("image") or d.get("page") or d.get("png")
    path = img if os.path.isabs(img) else os.path.join(base, img)
    regs = []
    if "regions" in d:  # page record (gravityocr-synth/1)
        for i, r in enumerate(d["regions"]):
            if r.get("cls") in CLS_INDEX:
                regs.append({"cls": r["cls"], "box": [float(v) for v in r["box"]], "order": r.get("order", i)})
    else:  # detector.jsonl line: parallel lists
        order = d.get("order") or list(range(len(d["boxes"])))
        for b, c, o in zip(d["boxes"], d["classes"], order):
            if c in CLS_INDEX:
                regs.append({"cls": c, "box": [float(v) for v in b], "order": o})
    return {"id": d.get("id", os.path.splitext(os.path.basename(path))[0]), "image": path,
            "width": d.get("width"), "height": d.get("height"), "regions": regs}
