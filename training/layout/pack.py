"""Pack synth pages into one compact file of detector inputs, for training on another machine.

  python3 training/layout/pack.py --roots data/synth/train,data/synth/train_x --out data/lpack/train.npz
  python3 training/layout/train.py --train data/lpack/train.npz ...      # a pack is a --train/--val root

Each page is letterboxed exactly as training sees it (`common.preprocess`, uint8 ink), quantized to
`--levels` grey levels and LZMA-compressed; the regions go beside it as JSON. A 960 x 768 page is
~56 kB at 16 levels (~105 kB at 256), so a thousand pages travel in a 64 MiB tree copy. 16 levels
(steps of 1/15 of full ink) are within the brightness and noise augmentation the detector already
trains with; `unpack_image` adds no dither, the training noise does that.
"""
import argparse
import json
import lzma
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LayoutConfig, fit_scale, load_page_image, preprocess, read_pages  # noqa: E402


def pack_image(a, levels):
    """uint8 ink (h, w) -> bytes of levels-level codes, LZMA-compressed."""
    q = np.round(a.astype(np.float32) * (levels - 1) / 255.0).astype(np.uint8)
    return lzma.compress(q.tobytes(), preset=6)


def unpack_image(blob, shape, levels):
    q = np.frombuffer(lzma.decompress(blob), np.uint8).reshape(shape)
    return np.round(q.astype(np.float32) * 255.0 / (levels - 1)).astype(np.uint8)


def read_pack(path):
    """-> (meta dict, pages [{id, width, height, regions, shape, scale}], blobs [bytes])."""
    z = np.load(path, allow_pickle=False)
    meta = json.loads(bytes(z["meta"]).decode("utf-8"))
    offs = z["offsets"]
    data = z["data"].tobytes()
    blobs = [data[offs[i]:offs[i + 1]] for i in range(len(offs) - 1)]
    return meta, meta["pages"], blobs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--roots", required=True, help="synth page folders, comma-separated")
    ap.add_argument("--out", required=True)
    ap.add_argument("--config", default="public/models/layout/config.json")
    ap.add_argument("--levels", type=int, default=16)
    ap.add_argument("--limit", type=int, default=0, help="first N pages of each root")
    a = ap.parse_args(argv)
    if not 2 <= a.levels <= 256:
        raise SystemExit("--levels must be 2..256")
    with open(a.config) as f:
        cfg = LayoutConfig.from_json(json.load(f))
    pages, blobs, t0 = [], [], time.time()
    for root in a.roots.split(","):
        if not root:
            continue
        rp = read_pages(root)
        if not rp:
            raise SystemExit(f"{root}: no synth pages")
        for p in rp[:a.limit or None]:
            gray = load_page_image(p["image"])
            x, s = preprocess(gray, cfg)
            _, nh, nw = fit_scale(gray.shape[0], gray.shape[1], cfg.input_h, cfg.input_w)
            img = np.clip(np.round(x[:nh, :nw] * 255), 0, 255).astype(np.uint8)
            blobs.append(pack_image(img, a.levels))
            pages.append({"id": p["id"], "width": gray.shape[1], "height": gray.shape[0],
                          "regions": p["regions"], "shape": [nh, nw], "scale": s})
            if len(pages) % 100 == 0:
                print(f"{len(pages)} pages, {sum(map(len, blobs)) / 1e6:.1f} MB, {time.time() - t0:.0f}s",
                      flush=True)
    offs = np.zeros(len(blobs) + 1, np.int64)
    offs[1:] = np.cumsum([len(b) for b in blobs])
    meta = {"format": "gocr-layout-pack/1", "levels": a.levels, "input_h": cfg.input_h,
            "input_w": cfg.input_w, "roots": a.roots, "pages": pages}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    np.savez(a.out, meta=np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8), offsets=offs,
             data=np.frombuffer(b"".join(blobs), np.uint8))
    print(f"{a.out}: {len(pages)} pages, {os.path.getsize(a.out) / 1e6:.1f} MB, {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
