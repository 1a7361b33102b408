"""Tiny synthetic packed dataset for tests (format of data/features/<split>/ in ARCHITECTURE.md).

Each character c has a fixed random code vector; a strip of text becomes `frames_per_char` rows of
code(c) + small noise, like a frozen line recognizer that emits ~1 feature row per glyph slice.
A tiny decoder can learn to read this in a few hundred steps; it is NOT real OCR data.
"""
import json
import os

import numpy as np

CHARSET = "abcdefghijklmnopqrstuvwxyz0123456789 "


def make_split(out_dir, n, seed=0, min_len=3, max_len=12, vision_dim=120, frames_per_char=2,
               noise=0.1, max_strips=2, charset=CHARSET):
    os.makedirs(out_dir, exist_ok=True)
    code_rng = np.random.default_rng(1234)  # the "font": same for every split
    codes = {c: code_rng.standard_normal(vision_dim).astype(np.float32) for c in charset}
    rng = np.random.default_rng(seed)
    rows, index, off = [], [], 0
    for k in range(n):
        n_strips = int(rng.integers(1, max_strips + 1))
        lines, strips = [], []
        for _ in range(n_strips):
            L = int(rng.integers(min_len, max_len + 1))
            s = "".join(rng.choice(list(charset[:-1])) if i in (0, L - 1) else rng.choice(list(charset))
                        for i in range(L))
            f = np.stack([codes[c] for c in s for _ in range(frames_per_char)])
            f = f + noise * rng.standard_normal(f.shape).astype(np.float32)
            rows.append(f)
            strips.append(len(f))
            lines.append(s)
        index.append({"id": f"fake{seed}_{k}", "task": "text", "target": "\n".join(lines),
                      "offset": off, "strips": strips})
        off += sum(strips)
    np.concatenate(rows).astype("<f2").tofile(os.path.join(out_dir, "features.f16"))
    with open(os.path.join(out_dir, "index.jsonl"), "w", encoding="utf-8") as f:
        for r in index:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump({"vision_dim": vision_dim, "dtype": "float16-le", "rows": off, "samples": n}, f)
    return out_dir


if __name__ == "__main__":
    import sys
    make_split(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 512)
