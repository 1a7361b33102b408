"""Synth pages -> letterboxed detector inputs, cached once as uint8, plus cheap augmentation.

Cache: <cache_dir>/<name>.npz with the resized page pixels (ink = 255 - gray, packed row-major),
per page shape/scale and the boxes in input pixels; rebuilt when the page list changes.
"""
import hashlib
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from common import CLS_INDEX, fit_scale, load_page_image, preprocess, read_pages
from targets import assign


class PageSet:
    def __init__(self, root, cfg, cache_dir, limit=0, log=print):
        self.cfg = cfg
        pages = read_pages(root)
        if limit:
            pages = pages[:limit]
        self.pages = pages
        key = hashlib.sha1(json.dumps([[p["id"], p["image"]] for p in pages] + [cfg.input_h, cfg.input_w]).encode()).hexdigest()[:12]
        os.makedirs(cache_dir, exist_ok=True)
        path = os.path.join(cache_dir, f"pages_{os.path.basename(os.path.normpath(root))}_{len(pages)}_{key}.npz")
        if os.path.exists(path):
            z = np.load(path)
            self.pix, self.offs, self.shapes, self.scales = z["pix"], z["offs"], z["shapes"], z["scales"]
        else:
            t0 = time.time()
            chunks, offs, shapes, scales = [], [0], [], []
            for i, p in enumerate(pages):
                gray = load_page_image(p["image"])
                x, s = preprocess(gray, cfg)
                _, nh, nw = fit_scale(gray.shape[0], gray.shape[1], cfg.input_h, cfg.input_w)
                a = np.clip(np.round(x[:nh, :nw] * 255), 0, 255).astype(np.uint8)
                chunks.append(a.reshape(-1))
                offs.append(offs[-1] + a.size)
                shapes.append((nh, nw))
                scales.append(s)
                if (i + 1) % 100 == 0:
                    log(f"cached {i + 1}/{len(pages)} pages ({time.time() - t0:.0f}s)")
            self.pix = np.concatenate(chunks) if chunks else np.zeros(0, np.uint8)
            self.offs, self.shapes, self.scales = np.array(offs), np.array(shapes), np.array(scales)
            np.savez(path, pix=self.pix, offs=self.offs, shapes=self.shapes, scales=self.scales)
        self.boxes = [np.array([r["box"] for r in p["regions"]], np.float32).reshape(-1, 4) * self.scales[i]
                      for i, p in enumerate(pages)]
        self.labels = [np.array([CLS_INDEX[r["cls"]] for r in p["regions"]], np.int64) for p in pages]

    def __len__(self):
        return len(self.pages)

    def image(self, i):
        nh, nw = self.shapes[i]
        return self.pix[self.offs[i]:self.offs[i + 1]].reshape(nh, nw)

    def sample(self, i, rng, augment):
        """-> input (1, H, W) float tensor, boxes (K, 4) input px, labels (K,)."""
        cfg = self.cfg
        img = torch.from_numpy(self.image(i).astype(np.float32) / 255.0)[None, None]
        boxes = self.boxes[i].copy()
        dx = dy = 0
        if augment:
            if rng.random() < 0.4:  # zoom out: page rendered smaller than the canvas
                f = rng.uniform(0.65, 0.97)
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
        xs, cls_ts, ltrb_ts = [], [], []
        h, w = self.cfg.input_h // self.cfg.stride, self.cfg.input_w // self.cfg.stride
        for i in idx:
            x, b, l = self.sample(int(i), rng, augment)
            c, t = assign(b, l, h, w, self.cfg.stride)
            xs.append(x)
            cls_ts.append(torch.from_numpy(c))
            ltrb_ts.append(torch.from_numpy(t))
        return torch.stack(xs), torch.stack(cls_ts), torch.stack(ltrb_ts)
