"""Region-by-region comparison of two evaluations of the same val regions (`evaluate.py --dump`).

  /usr/bin/python3 training/compare_records.py --old training/logs/gocr-v1-seg4-records300.jsonl.gz \
      --new records.jsonl --data data/features_tt/val,data/features_f5/val [--out compare.json]

For every region in both (same id and task), the AR-greedy quality of each (text: edit similarity
of the line-joined read; table: TEDS; formula: NES of normalized LaTeX) against the target from the
packed features' index.jsonl; per task: regions better / worse / equal, mean change and its
standard error, and self-spec TPF and accepted drafts per round of each over those regions.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gocr.tokenizer import Tokenizer  # noqa: E402
from select_regions import read_jsonl  # noqa: E402

KEY = {"text": "edit_sim", "table": "teds", "formula": "edit_sim"}


def _evaluate_module():
    spec = importlib.util.spec_from_file_location("gocr_evaluate", os.path.join(HERE, "evaluate.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_records(path):
    return {(r["id"], r["task"]): r for r in read_jsonl(path)}


def read_targets(dirs):
    return {(r["id"], r["task"]): r["target"] for d in dirs for r in read_jsonl(os.path.join(d, "index.jsonl"))}


def read_text(rec, tok):
    """The text of a record's AR read as evaluate.py scored it. Text is read by units (lines): each
    unit's ids end at its EOS or at its token budget (`max_new`); units are stripped and joined by
    one space."""
    ids = rec["ar_ids"]
    if rec["task"] != "text":
        return tok.decode(ids)
    units, i = [], 0
    for mx in rec["max_new"]:
        j = i
        while j < len(ids) and j - i < mx:
            j += 1
            if ids[j - 1] == tok.eos_id:
                break
        units.append(ids[i:j])
        i = j
    if i != len(ids):
        raise ValueError(f"{rec['id']}: ar_ids do not split into its {len(rec['max_new'])} units")
    return " ".join(x for x in (tok.decode(u).strip() for u in units) if x)


def compare(old, new, targets, tok):
    quality = _evaluate_module().quality
    res = {}
    for task in ("text", "table", "formula"):
        keys = sorted(k for k in new if k[1] == task and k in old)
        if not keys:
            continue
        missing = [k for k in keys if k not in targets]
        if missing:
            raise ValueError(f"{len(missing)} {task} regions have no target in the data, e.g. {missing[0]}")
        d = np.array([quality(task, read_text(new[k], tok), targets[k])[KEY[task]]
                      - quality(task, read_text(old[k], tok), targets[k])[KEY[task]] for k in keys])

        def speed(recs):
            tokens = sum(len(recs[k]["sp_ids"]) for k in keys)
            fwd = sum(recs[k]["sp_forwards"] for k in keys)
            acc = [a for k in keys for a in recs[k].get("sp_accepted", [])]
            return {"tpf": tokens / max(1, fwd), "mean_accepted": float(np.mean(acc)) if acc else None}
        res[task] = {"n": len(keys), "metric": KEY[task], "better": int((d > 1e-9).sum()),
                     "worse": int((d < -1e-9).sum()), "equal": int((np.abs(d) <= 1e-9).sum()),
                     "mean_change": float(d.mean()),
                     "se": float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0,
                     "old": speed(old), "new": speed(new)}
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--data", required=True, help="packed feature splits with the targets, comma-separated")
    ap.add_argument("--vocab", default=os.path.join(HERE, "vocab.json"))
    ap.add_argument("--out", default="")
    a = ap.parse_args(argv)
    tok = Tokenizer.load(a.vocab)
    try:
        res = compare(read_records(a.old), read_records(a.new), read_targets(a.data.split(",")), tok)
    except (ValueError, OSError) as e:
        sys.exit(f"compare_records: {e}")
    for t, r in res.items():
        print(f"{t}: n {r['n']}, {r['metric']} better {r['better']} / worse {r['worse']} / equal {r['equal']}, "
              f"mean {r['mean_change']:+.4f} (SE {r['se']:.4f}); TPF {r['old']['tpf']:.2f} -> {r['new']['tpf']:.2f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
