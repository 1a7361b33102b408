"""Synth pages -> letterboxed detector inputs (cached per page as uint8), plus cheap augmentation."""
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from common import CLS_INDEX, fit_scale, load_page_image, preprocess, read_pages
from pack import read_pack, unpack_image
from targets import assign


class PageSet:
    """Pages of one or more roots (comma-separated). Each page is resized once and cached as
    <cache_dir>/<input_h>x<input_w>/<page id>.npy (uint8 ink), so growing data sets load fast."""

    def __init__(self, roots, cfg, cache_dir, limit=0, log=print):
        self.cfg = cfg
        pages, packed = [], {}
        for root in str(roots).split(","):
            if root.endswith(".npz"):  # training/layout/pack.py: pages already letterboxed
                meta, pp, blobs = read_pack(root)
                if (meta["input_h"], meta["input_w"]) != (cfg.input_h, cfg.input_w):
                    raise ValueError(f"{root} was packed for {meta['input_h']}x{meta['input_w']}, "
                                     f"not {cfg.input_h}x{cfg.input_w}")
                for p, b in zip(pp, blobs):
                    packed[p["id"]] = (b, tuple(p["shape"]), meta["levels"], p["scale"])
                    pages.append(p)
            elif root:
                pages += read_pages(root)
        if limit:
            pages = pages[:limit]
        self.pages = pages
        cdir = os.path.join(cache_dir, f"{cfg.input_h}x{cfg.input_w}")
        os.makedirs(cdir, exist_ok=True)
        t0 = time.time()
        self.imgs, self.scales, kept = [], [], []
        for i, p in enumerate(pages):
            if p["id"] in packed:
                blob, shape, levels, s = packed[p["id"]]
                self.imgs.append(unpack_image(blob, shape, levels))
                self.scales.append(s)
                kept.append(p)
                continue
            if not os.path.exists(p["image"]):
                continue
            path = os.path.join(cdir, f'{p["id"]}_{os.path.getsize(p["image"])}.npy')
            if os.path.exists(path):
                a = np.load(path)
                s = fit_scale(int(p["height"]), int(p["width"]), cfg.input_h, cfg.input_w)[0]
            else:
                try:
                    gray = load_page_image(p["image"])
                except Exception as e:  # a page still being written by the generator
                    log(f"skip {p['id']}: {e}")
                    continue
                p["height"], p["width"] = gray.shape
                x, s = preprocess(gray, cfg)
                _, nh, nw = fit_scale(gray.shape[0], gray.shape[1], cfg.input_h, cfg.input_w)
                a = np.clip(np.round(x[:nh, :nw] * 255), 0, 255).astype(np.uint8)
                np.save(path + ".tmp.npy", a)
                os.replace(path + ".tmp.npy", path)
            self.imgs.append(a)
            self.scales.append(s)
            kept.append(p)
            if (i + 1) % 200 == 0:
                log(f"loaded {i + 1}/{len(pages)} pages ({time.time() - t0:.0f}s)")
        self.pages = pages = kept
        self.shapes = [a.shape for a in self.imgs]
        self.boxes = [np.array([r["box"] for r in p["regions"]], np.float32).reshape(-1, 4) * self.scales[i]
                      for i, p in enumerate(pages)]
        self.labels = [np.array([CLS_INDEX[r["cls"]] for r in p["regions"]], np.int64) for p in pages]

    def __len__(self):
        return len(self.pages)

    def image(self, i):
        return self.imgs[i]

    def sample(self, i, rng, augment):
        """-> input (1, H, W) float tensor, boxes (K, 4) input px, labels (K,)."""
        cfg = self.cfg
        img = torch.from_numpy(self.image(i).astype(np.float32) / 255.0)[None, None]
        boxes = self.boxes[i].copy()
        dx = dy = 0
        if augment:
            if rng.random() < 0.2:  # zoom out: page rendered smaller than the canvas
                f = rng.uniform(0.75, 0.97)
                nh, nw = max(8, int(img.shape[2] * f)), max(8, int(img.shape[3] * f))
                fy, fx = nh / img.shape[2], nw / img.shape[3]
                img = F.adaptive_avg_pool2d(img, (nh, nw))
                boxes = boxes * np.array([fx, fy, fx, fy], np.float32)
            if rng.random() < 0.4:
                dx = int(rng.integers(0, cfg.input_w - img.shape[3] + 1))
                dy = int(rng.integers(0, cfg.input_h - img.shape[2] + 1))
            img = img * rng.uniform(0.6, 1.15)
            if rng.random() < 0.3:
                img = img + torch.randn_like(img) * rng.uniform(0.01, 0.06)
            img = img.clamp(0, 1)
        out = torch.zeros(1, cfg.input_h, cfg.input_w)
        out[:, dy:dy + img.shape[2], dx:dx + img.shape[3]] = img[0]
        boxes = boxes + np.array([dx, dy, dx, dy], np.float32)
        return out, boxes, self.labels[i]

    def batch(self, idx, rng, augment):
        xs, cls_ts, ltrb_ts, ws = [], [], [], []
        h, w = self.cfg.input_h // self.cfg.stride, self.cfg.input_w // self.cfg.stride
        for i in idx:
            x, b, l = self.sample(int(i), rng, augment)
            c, t, iw = assign(b, l, h, w, self.cfg.stride, with_weights=True)
            xs.append(x)
            cls_ts.append(torch.from_numpy(c))
            ltrb_ts.append(torch.from_numpy(t))
            ws.append(torch.from_numpy(iw))
        return torch.stack(xs), torch.stack(cls_ts), torch.stack(ltrb_ts), torch.stack(ws)
