"""Keep only the regions named by an eval's records: the pinned val regions, rebuilt on a fresh
machine without extracting features for every crop of the val pages.

  python3 training/select_regions.py --records training/logs/gocr-v1-seg4-records300.jsonl.gz \
      --tasks text,table --crops data/crops/tt_val300,data/crops/tt_val_tf --out data/crops/tt_valsel

Reads `evaluate.py --dump` records (JSON lines, optionally gzipped) and the `index.jsonl` of each
crops folder (`npm run crops`), in order, and writes `<out>/index.jsonl` with the crops whose id and
task are in the records, images pointing back to the source folders. Every wanted region must be
found exactly once; anything else is an error (a different corpus or crop settings).
"""
import argparse
import gzip
import json
import os
import sys


def read_jsonl(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def select(records, crops_dirs, out_dir, tasks=None):
    """-> number of regions written; raises ValueError if a wanted region is missing or repeated."""
    want = {(r["id"], r["task"]) for r in records if tasks is None or r["task"] in tasks}
    os.makedirs(out_dir, exist_ok=True)
    found, rows = set(), []
    for d in crops_dirs:
        for r in read_jsonl(os.path.join(d, "index.jsonl")):
            key = (r["id"], r["task"])
            if key not in want:
                continue
            if key in found:
                raise ValueError(f"region {key} appears twice in {crops_dirs}")
            found.add(key)
            src = r["image"] if os.path.isabs(r["image"]) else os.path.join(d, r["image"])
            rows.append(dict(r, image=os.path.relpath(os.path.abspath(src), os.path.abspath(out_dir))))
    missing = sorted(want - found)
    if missing:
        raise ValueError(f"{len(missing)} of {len(want)} wanted regions not in the crops, e.g. {missing[:3]}")
    with open(os.path.join(out_dir, "index.jsonl"), "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    return len(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", required=True, help="evaluate.py --dump output (.jsonl or .jsonl.gz)")
    ap.add_argument("--crops", required=True, help="crops folders, comma-separated, in order")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tasks", default="", help="comma-separated: only these tasks of the records")
    a = ap.parse_args(argv)
    try:
        n = select(read_jsonl(a.records), a.crops.split(","), a.out, set(a.tasks.split(",")) if a.tasks else None)
    except (ValueError, OSError) as e:
        sys.exit(f"select_regions: {e}")
    print(f"{n} regions -> {a.out}")


if __name__ == "__main__":
    main()
