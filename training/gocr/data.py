"""Packed vision features (data/features/<split>/features.f16 + index.jsonl) and length batching.

features.f16: little-endian float16 rows of vision_dim; index.jsonl lines:
{"id","task":"text|table|formula","target","offset":row0,"strips":[rows_strip0, ...]}.
Batches are grouped by length under a token budget (Bs * Lmax, Lmax = P + 3R of the gravity
layout); the curriculum admits short samples first and widens the length cap linearly.
"""
import json
import os

import numpy as np


class PackedFeatures:
    def __init__(self, split_dir, tok, cfg, max_len=None, max_target=None, diff_blocks=0):
        self.dir = split_dir
        self.diff_blocks = diff_blocks
        vd = cfg.vision_dim
        path = os.path.join(split_dir, "features.f16")
        self.feats = np.memmap(path, dtype="<f2", mode="r")
        if self.feats.size % vd:
            raise ValueError(f"{path}: size {self.feats.size} is not a multiple of vision_dim {vd}")
        self.feats = self.feats.reshape(-1, vd)
        self.items, self.skipped = [], 0
        B = cfg.block_size
        max_len = max_len or cfg.max_positions
        with open(os.path.join(split_dir, "index.jsonl"), encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError:  # a line being written right now
                    self.skipped += 1
                    continue
                ids = tok.encode(r["target"])
                n_rows = int(sum(r["strips"]))
                P = n_rows + len(r["strips"])  # rows + (strips-1) seps + task
                if (max_target and len(ids) > max_target) or P + len(ids) + B > max_len \
                        or r["offset"] + n_rows > len(self.feats):
                    self.skipped += 1
                    continue
                self.items.append({"id": r["id"], "task": r["task"], "target": r["target"],
                                   "offset": int(r["offset"]), "strips": [int(s) for s in r["strips"]],
                                   "ids": ids, "task_id": tok.task_ids[r["task"]],
                                   "P": P, "R": len(ids) + B})
        # packed training length (gravity layout); with diff_blocks the corrupted streams are shorter
        rc = [it["R"] if not diff_blocks else min(it["R"], (diff_blocks + 1) * B) for it in self.items]
        self.lengths = np.array([it["P"] + it["R"] + 2 * c for it, c in zip(self.items, rc)])

    def __len__(self):
        return len(self.items)

    def get(self, i):
        it = dict(self.items[i])
        n = sum(it["strips"])
        it["feats"] = np.asarray(self.feats[it["offset"]:it["offset"] + n])
        return it


class BatchStream:
    """Endless length-bucketed batches; curriculum over the first `curriculum_steps` steps."""

    def __init__(self, ds, max_tokens, seed=0, curriculum_steps=0, start_quantile=0.3, max_batch=64):
        self.ds, self.max_tokens, self.max_batch = ds, max_tokens, max_batch
        self.rng = np.random.default_rng(seed)
        self.curriculum_steps = curriculum_steps
        L = ds.lengths
        self.cap0 = float(np.quantile(L, start_quantile)) if len(L) else 0
        self.cap1 = float(L.max()) if len(L) else 0
        self.queue = []

    def cap(self, step):
        if self.curriculum_steps <= 0:
            return self.cap1
        f = min(1.0, step / self.curriculum_steps)
        return self.cap0 + f * (self.cap1 - self.cap0)

    def _refill(self, step):
        cap = self.cap(step)
        pool = np.nonzero(self.ds.lengths <= cap)[0]
        pool = self.rng.permutation(pool)
        chunk = 2048
        batches = []
        for c in range(0, len(pool), chunk):
            part = pool[c:c + chunk]
            part = part[np.argsort(self.ds.lengths[part], kind="stable")]
            cur, lmax = [], 0
            for i in part:
                l = int(self.ds.lengths[i])
                if cur and (max(lmax, l) * (len(cur) + 1) > self.max_tokens or len(cur) >= self.max_batch):
                    batches.append(cur)
                    cur, lmax = [], 0
                cur.append(int(i))
                lmax = max(lmax, l)
            if cur:
                batches.append(cur)
        order = self.rng.permutation(len(batches))
        # during the curriculum refill often so the cap keeps moving
        keep = len(batches) if step >= self.curriculum_steps else max(1, min(len(batches), 50))
        self.queue = [batches[j] for j in order[:keep]]

    def next(self, step):
        if not self.queue:
            self._refill(step)
        return [self.ds.get(i) for i in self.queue.pop()]


def _synth_page(dirs, page):
    """Regions by `order` of <dir>/<page>.json in the first of dirs that has the file; None when
    there is none or it cannot be read."""
    for d in dirs:
        p = os.path.join(d, page + ".json")
        if os.path.exists(p):
            try:
                with open(p, encoding="utf-8") as f:
                    return {r["order"]: r for r in json.load(f)["regions"]}
            except (OSError, ValueError, KeyError):
                return None
    return None


def add_line_samples(ds, synth_dir, tok, cfg, log=print, drop_regions=False):
    """Curriculum aid: split multi-line text regions into one sample per strip when the synth page
    JSON (<synth_dir>/<page>.json, region `order`) has exactly as many text lines as the region has
    strips. Sample ids are "<page>_<order>" (tools/synth/crops.ts); new ids get "#<line>".
    synth_dir: one folder or several, comma-separated (a page id names its seed, so ids of different
    runs never collide; a page is read from the first folder that has it).
    drop_regions: remove the regions that were split (the engine reads text line by line, so the
    whole-region samples only repeat their lines at a higher cost)."""
    pages, checked = {}, 0
    dirs = [d for d in synth_dir.split(",") if d]
    B = cfg.block_size
    new, split = [], set()
    for it in ds.items:
        if it["task"] != "text" or len(it["strips"]) < 2 or "_" not in it["id"]:
            continue
        page, order = it["id"].rsplit("_", 1)
        if page not in pages:
            pages[page] = _synth_page(dirs, page)
        reg = (pages[page] or {}).get(int(order)) if order.isdigit() else None
        checked += 1
        if not reg or len(reg.get("lines", [])) != len(it["strips"]):
            continue
        off = it["offset"]
        split.add(it["id"])
        for k, (n, line) in enumerate(zip(it["strips"], reg["lines"])):
            ids = tok.encode(line["text"])
            if ids:
                new.append({"id": f"{it['id']}#{k}", "task": "text", "target": line["text"], "offset": off,
                            "strips": [n], "ids": ids, "task_id": it["task_id"], "P": n + 1,
                            "R": len(ids) + B})
            off += n
    if drop_regions:
        ds.items = [it for it in ds.items if it["id"] not in split]
    ds.items += new
    diff_blocks = getattr(ds, "diff_blocks", 0)
    rc = [it["R"] if not diff_blocks else min(it["R"], (diff_blocks + 1) * B) for it in ds.items]
    ds.lengths = np.array([it["P"] + it["R"] + 2 * c for it, c in zip(ds.items, rc)])
    log(f"line samples: {len(new)} from {checked} multi-strip text regions"
        + (f" ({len(split)} split regions dropped)" if drop_regions else ""))
    return len(new)
