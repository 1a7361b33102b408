"""Concatenate packed-feature splits (docs/ARCHITECTURE.md, "packed features") into one split.

  PYTHONPATH=training python3 -m gocr.pack --out data/features_joint/train DIR1 DIR2:text,table ...

Each input is a folder with features.f16 + index.jsonl (from `npm run features` or
`python3 -m gocr.strips`). Rows are copied in order and every sample's offset is moved by the rows
before it. `DIR:task,task` keeps only those tasks of that input. An input still being written (a
partial last row or index line, or an index line whose rows are not in the file yet) contributes
only its complete samples. meta.json names the inputs (`packed_from`) and, for each task, the inputs
that hold it and the encoder their meta.json names (`tasks`: model and sha256, "mixed" where the
inputs disagree), so an eval can say which encoder read each task. The row width is each input's
`vision_dim` from its meta.json; an input without one (still being written) takes `--vision_dim`.
Inputs of different widths are refused.
"""
import argparse
import json
import os


def input_dim(d, default=None):
    """vision_dim of a packed split: its meta.json, else `default` (a split still being written)."""
    p = os.path.join(d, "meta.json")
    if os.path.exists(p):
        with open(p) as f:
            return int(json.load(f)["vision_dim"])
    if default is None:
        raise ValueError(f"{d} has no meta.json (still being written?): give its width with --vision_dim")
    return int(default)


def input_meta(d):
    try:
        with open(os.path.join(d, "meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def encoder_of(meta, task):
    """(model, sha256) that made `task`'s features in a split: its own meta.json's, or for a packed
    split the one its per-task map names."""
    if "model" in meta:
        return meta["model"], meta.get("model_sha256")
    t = meta.get("tasks", {}).get(task, {})
    return t.get("model", "unknown"), t.get("model_sha256")


def parse_input(spec):
    """"DIR" or "DIR:task,task" -> (DIR, set of tasks or None)."""
    d, _, tasks = spec.partition(":")
    return d, (set(tasks.split(",")) if tasks else None)


def pack(out_dir, in_dirs, vision_dim=None):
    """in_dirs: folders, each optionally "folder:task,task" (only those tasks). vision_dim: the row
    width of inputs that have no meta.json yet."""
    dims = {d: input_dim(d, vision_dim) for d, _ in map(parse_input, in_dirs)}
    if len(set(dims.values())) != 1:
        raise ValueError(f"inputs of different vision_dim: {dims}")
    dim = next(iter(dims.values()))
    row_bytes = dim * 2  # float16
    os.makedirs(out_dir, exist_ok=True)
    rows = n = 0
    per_task = {}  # task -> {"inputs": [...], "encoders": {(model, sha)}, "samples": n}
    with open(os.path.join(out_dir, "features.f16"), "wb") as ff, \
            open(os.path.join(out_dir, "index.jsonl"), "w", encoding="utf-8") as fi:
        for spec in in_dirs:
            d, tasks = parse_input(spec)
            with open(os.path.join(d, "features.f16"), "rb") as f:
                data = f.read()
            have = len(data) // row_bytes
            ff.write(data[:have * row_bytes])
            in_meta = input_meta(d)
            with open(os.path.join(d, "index.jsonl"), encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue
                    if r["offset"] + sum(r["strips"]) > have or (tasks and r["task"] not in tasks):
                        continue
                    r["offset"] += rows
                    fi.write(json.dumps(r) + "\n")
                    n += 1
                    t = per_task.setdefault(r["task"], {"inputs": [], "encoders": set(), "samples": 0})
                    if d not in t["inputs"]:
                        t["inputs"].append(d)
                        t["encoders"].add(encoder_of(in_meta, r["task"]))
                    t["samples"] += 1
            rows += have
    tasks = {}
    for task, t in sorted(per_task.items()):
        (model, sha), = t["encoders"] if len(t["encoders"]) == 1 else {("mixed", None)}
        tasks[task] = {"samples": t["samples"], "inputs": t["inputs"], "model": model, "model_sha256": sha}
    meta = {"vision_dim": dim, "dtype": "float16-le", "rows": rows, "samples": n, "packed_from": list(in_dirs),
            "tasks": tasks}
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--vision_dim", type=int, default=None, help="row width of inputs without meta.json")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args(argv)
    if os.path.abspath(a.out) in {os.path.abspath(parse_input(d)[0]) for d in a.inputs}:
        ap.error("--out must not be one of the inputs")
    try:
        m = pack(a.out, a.inputs, a.vision_dim)
    except (ValueError, OSError) as e:
        ap.error(str(e))
    print(f"{m['samples']} samples, {m['rows']} rows -> {a.out}")


if __name__ == "__main__":
    main()
