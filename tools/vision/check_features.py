#!/usr/bin/python3
"""Check a packed features split with numpy: /usr/bin/python3 tools/vision/check_features.py data/features/val

Reads features.f16 (little-endian float16, rows of 120) with np.fromfile(dtype='<f2') and
index.jsonl, checks offsets are contiguous and cover the file, and prints a summary.
"""
import json
import sys

import numpy as np

VISION_DIM = 120


def check(d):
    feats = np.fromfile(f"{d}/features.f16", dtype="<f2")
    assert feats.size % VISION_DIM == 0, "file is not whole rows of 120"
    feats = feats.reshape(-1, VISION_DIM)
    idx = [json.loads(l) for l in open(f"{d}/index.jsonl", encoding="utf-8") if l.strip()]
    row = 0
    for r in idx:
        assert set(r) >= {"id", "task", "target", "offset", "strips"}, r.keys()
        assert r["offset"] == row, (r["id"], r["offset"], row)
        assert all(n > 0 for n in r["strips"]), r["id"]
        row += sum(r["strips"])
    assert row == feats.shape[0], (row, feats.shape)
    f32 = feats.astype(np.float32)
    assert np.isfinite(f32).all(), "non-finite features"
    nstrips = [len(r["strips"]) for r in idx]
    tasks = {}
    for r in idx:
        tasks[r["task"]] = tasks.get(r["task"], 0) + 1
    print(f"{d}: {len(idx)} samples {tasks}, {sum(nstrips)} strips, {feats.shape[0]} rows x {VISION_DIM} "
          f"({feats.nbytes / 2**20:.1f} MiB), rows/sample mean {feats.shape[0] / max(1, len(idx)):.1f}, "
          f"value range [{f32.min():.3f}, {f32.max():.3f}], mean {f32.mean():.4f}")
    # Example: the rows of the first sample, strip by strip.
    if idx:
        r = idx[0]
        x = f32[r["offset"]:r["offset"] + sum(r["strips"])]
        print(f"first sample {r['id']!r} ({r['task']}): rows {x.shape}, strips {r['strips']}")


if __name__ == "__main__":
    for d in sys.argv[1:] or ["data/features/val"]:
        check(d)
