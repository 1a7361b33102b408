"""Evaluate a checkpoint on the val split: per task AR-greedy quality, self-spec TPF / accepted per
round / AR≡self-spec equality, and direct block diffusion (threshold) quality + TPF.

  /usr/bin/python3 training/evaluate.py --model public/models/<id> --out eval.json
  /usr/bin/python3 training/evaluate.py --ckpt training/runs/<run>/ckpt.pt --out <run>/eval.json
Quality: text CER (and edit similarity), formula normalized edit similarity (whitespace-free
LaTeX), table TEDS and TEDS-struct. TPF (Eq. 5) = committed tokens / (draft + verify forwards),
prefill excluded, pooled over the split.
"""
import os

# OpenMP threads that spin-wait are ~10x slower on this shared CPU (measured: a self-spec decode
# 28 s -> 2.7 s); must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gocr import decode  # noqa: E402
from gocr.checkpoint import load_exported, model_from_ckpt  # noqa: E402
from gocr.data import PackedFeatures  # noqa: E402
from gocr.pack import encoder_of, input_meta, parse_input  # noqa: E402
from gocr.metrics import cer, edit_similarity, normalize_latex  # noqa: E402
from gocr.teds import teds  # noqa: E402
from gocr.tokenizer import Tokenizer  # noqa: E402
from select_regions import read_jsonl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def quality(task, pred, ref):
    if task == "table":
        return {"teds": teds(pred, ref), "teds_struct": teds(pred, ref, struct_only=True)}
    if task == "formula":
        return {"edit_sim": edit_similarity(normalize_latex(pred), normalize_latex(ref))}
    return {"cer": cer(pred, ref), "edit_sim": edit_similarity(pred, ref)}


def _mean_q(qs):
    return {k: float(np.mean([q[k] for q in qs])) for k in qs[0]} if qs else {}


def _sum_q(qs):
    return {k: float(sum(q[k] for q in qs)) for k in qs[0]} if qs else {}


def unit_slices(strips):
    """(row offset, rows) of each strip: a text region is read one line (strip) at a time."""
    out, off = [], 0
    for n in strips:
        out.append((off, n))
        off += n
    return out


def read_units(fn, model, feats, units, task_id, tok, **kw):
    """Runs decoder `fn` on every unit (one strip each) and joins like the engine: unit texts,
    stripped, joined by one space. ids = the units' ids back to back (EOS included per unit);
    forwards and rounds summed."""
    res = {"ids": [], "forwards": 0, "rounds": [], "units": [], "text": ""}
    texts = []
    for off, n in units:
        mx = min(model.cfg.max_positions - n - 2 - 2 * model.cfg.block_size - 4, 200)
        r = fn(model, feats[off:off + n], [n], task_id, mx, **kw)
        res["ids"] += r["ids"]
        res["forwards"] += r["forwards"]
        res["rounds"] += r.get("rounds", [])
        res["units"].append({"max_new": mx, "ids": r["ids"]})
        texts.append(tok.decode(r["ids"]).strip())
    res["text"] = " ".join(t for t in texts if t)
    return res


COUNTS = ("sp_tok", "sp_fwd", "rounds", "acc", "df_tok", "df_fwd", "eq")
SETTINGS = ("block_size", "threshold", "exact", "text_unit")


def task_result(n, sums):
    """A task's entry from its raw sums (COUNTS, plus per-path quality sums "ar"/"diffusion")."""
    return {"n": n, "ar": {k: v / max(1, n) for k, v in sums["ar"].items()},
            "self_spec": {"tpf": sums["sp_tok"] / max(1, sums["sp_fwd"]),
                          "mean_accepted": sums["acc"] / max(1, sums["rounds"]),
                          "equal_to_ar": sums["eq"] / max(1, n)},
            "diffusion": dict({k: v / max(1, n) for k, v in sums["diffusion"].items()},
                              tpf=sums["df_tok"] / max(1, sums["df_fwd"])),
            "sums": sums}


def overall(tasks):
    """Pooled over the task entries: TPF and accepted per round over all rounds, equality over all regions."""
    t = {k: sum(r["sums"][k] for r in tasks.values()) for k in COUNTS}
    n = sum(r["n"] for r in tasks.values())
    return {"n": n, "self_spec_tpf": t["sp_tok"] / max(1, t["sp_fwd"]), "mean_accepted": t["acc"] / max(1, t["rounds"]),
            "equal_to_ar": t["eq"] / max(1, n), "diffusion_tpf": t["df_tok"] / max(1, t["df_fwd"])}


def evaluate(model, ds, tok, n_per_task=100, max_new=None, block_size=None, threshold=0.9,
             exact=True, log=print, seed=0, dump=None, text_unit="line", tasks=None, shard=(0, 1), ids=None):
    """dump: a writable file that gets one JSON line per region (ids of every decoder, forwards,
    max_new) so the TypeScript runtimes can be replayed on the same inputs (tools/parity).
    tasks: only these tasks; shard (k, n): every n-th selected region of each task from the k-th, so
    n processes read disjoint parts of the same selection and `merge` pools their outputs exactly.
    ids: only regions with these ids (e.g. those of an earlier eval's records), so that an eval on
    rebuilt features reads the same regions even where the packed order differs."""
    model.eval()
    B = block_size or model.cfg.block_size
    by_task = {}
    order = np.random.default_rng(seed).permutation(len(ds))
    if ids is not None:
        order = [i for i in order if ds.items[int(i)]["id"] in ids]
    for i in order:
        t = ds.items[int(i)]["task"]
        if len(by_task.setdefault(t, [])) < n_per_task:
            by_task[t].append(int(i))
    by_task = {t: idx[shard[0]::shard[1]] for t, idx in by_task.items() if tasks is None or t in tasks}
    out = {"block_size": B, "threshold": threshold, "exact": exact, "text_unit": text_unit, "tasks": {},
           "shard": f"{shard[0]}/{shard[1]}"}
    t0 = time.time()
    for task, idx in sorted(by_task.items()):
        qa, qd = [], []
        st = dict.fromkeys(COUNTS, 0)
        for k, i in enumerate(idx):
            s = ds.get(i)
            mx = max_new or min(model.cfg.max_positions - s["P"] - 2 * B - 4, len(s["ids"]) * 2 + 32)
            f = s["feats"].astype(np.float32)
            if task == "text" and text_unit == "line":
                units = unit_slices(s["strips"])
                ar = read_units(decode.ar_greedy, model, f, units, s["task_id"], tok, exact=exact)
                sp = read_units(decode.self_spec, model, f, units, s["task_id"], tok, block_size=B, exact=exact)
                df = read_units(decode.diffusion, model, f, units, s["task_id"], tok, block_size=B, threshold=threshold)
                mx = [u["max_new"] for u in ar["units"]]
            else:
                ar = decode.ar_greedy(model, f, s["strips"], s["task_id"], mx, exact=exact)
                sp = decode.self_spec(model, f, s["strips"], s["task_id"], mx, B, exact=exact)
                df = decode.diffusion(model, f, s["strips"], s["task_id"], mx, B, threshold)
            qa.append(quality(task, ar.get("text", tok.decode(ar["ids"])), s["target"]))
            qd.append(quality(task, df.get("text", tok.decode(df["ids"])), s["target"]))
            st["eq"] += ar["ids"] == sp["ids"]
            st["sp_tok"] += len(sp["ids"]); st["sp_fwd"] += sp["forwards"]
            st["rounds"] += len(sp["rounds"]); st["acc"] += sum(r["accepted"] for r in sp["rounds"])
            st["df_tok"] += len(df["ids"]); st["df_fwd"] += df["forwards"]
            if dump is not None:
                dump.write(json.dumps({"id": s["id"], "task": task, "max_new": mx, "block_size": B,
                                       "units": [list(u) for u in units] if "units" in ar else None,
                                       "ar_ids": ar["ids"], "sp_ids": sp["ids"], "sp_forwards": sp["forwards"],
                                       "sp_rounds": len(sp["rounds"]),
                                       "sp_accepted": [r["accepted"] for r in sp["rounds"]], "df_ids": df["ids"],
                                       "df_forwards": df["forwards"], "threshold": threshold}) + "\n")
            if (k + 1) % 20 == 0:
                log(f"{task} {k + 1}/{len(idx)} ar {_mean_q(qa)} tpf {st['sp_tok'] / st['sp_fwd']:.2f} "
                    f"({time.time() - t0:.0f}s)")
        out["tasks"][task] = task_result(len(idx), dict(st, ar=_sum_q(qa), diffusion=_sum_q(qd)))
    out["overall"] = overall(out["tasks"])
    out["seconds"] = time.time() - t0
    return out


def merge(parts):
    """One result from evaluate() outputs over disjoint regions (shards, or tasks run apart): each
    mean and ratio recomputed from the pooled sums, exactly as one process would have reported it."""
    out = {k: parts[0][k] for k in SETTINGS}
    if any(p[k] != out[k] for p in parts for k in SETTINGS):
        raise ValueError("merge: the parts were run with different settings")
    shards = {}  # task -> shards seen: the same regions twice would be counted twice
    for p in parts:
        for t in p["tasks"] if "shard" in p else ():  # (outputs made before shards were recorded: unchecked)
            seen = shards.setdefault(t, set())
            if p["shard"] in seen or "0/1" in seen or (p["shard"] == "0/1" and seen):
                raise ValueError(f"merge: {t} appears twice for the same regions (shard {p['shard']})")
            seen.add(p["shard"])
    out["tasks"] = {}
    for task in sorted({t for p in parts for t in p["tasks"]}):
        rs = [p["tasks"][task] for p in parts if task in p["tasks"]]
        if any("sums" not in r for r in rs):
            raise ValueError(f"merge: a part of {task} has no sums (made before evaluate.py kept them)")
        sums = {k: sum(r["sums"][k] for r in rs) for k in COUNTS}
        for path in ("ar", "diffusion"):
            sums[path] = {m: sum(r["sums"][path][m] for r in rs) for m in rs[0]["sums"][path]}
        out["tasks"][task] = task_result(sum(r["n"] for r in rs), sums)
        feats = {json.dumps(r["features"], sort_keys=True) for r in rs if "features" in r}
        if len(feats) > 1:
            raise ValueError(f"merge: the parts of {task} read different features: {sorted(feats)}")
        if feats:
            out["tasks"][task]["features"] = json.loads(feats.pop())
    out["overall"] = overall(out["tasks"])
    out["seconds"] = sum(p.get("seconds", 0) for p in parts)
    out["source"] = sorted({p.get("source", "") for p in parts})
    return out


def features_provenance(split_dir, task=None):
    """Which features a task was read from: the split folder and the encoder its meta.json names
    (`npm run features` and gocr.strips record the model file and its sha256). A split packed by
    gocr.pack names, per task, the inputs that hold it and their encoder (`tasks`); a split packed
    before that map existed names only its inputs (`packed_from`, "dir[:tasks]"), and the task's
    encoder is then worked out from the inputs that hold it. Either way `packed_from` in the result
    names those inputs."""
    meta = input_meta(split_dir)
    if "model" not in meta and task and task in meta.get("tasks", {}):  # gocr.pack's per-task map
        t = meta["tasks"][task]
        return {"data": split_dir, "packed_from": t["inputs"], "model": t["model"], "model_sha256": t["model_sha256"]}
    if "model" not in meta and meta.get("packed_from") and task:  # packed before the map existed
        found = []
        for spec in meta["packed_from"]:
            d, only = parse_input(spec)
            if only and task not in only:
                continue
            try:
                with open(os.path.join(d, "index.jsonl")) as f:
                    if any(json.loads(line).get("task") == task for line in f if line.strip()):
                        found.append(d)
            except (OSError, ValueError):
                found.append(d)  # an input that cannot be read any more: unknown encoder below
        models = {encoder_of(input_meta(d), task) for d in found}
        if len(models) == 1:
            (model, sha), = models
            return {"data": split_dir, "packed_from": found, "model": model, "model_sha256": sha}
        return {"data": split_dir, "packed_from": found, "model": "unknown" if not models else "mixed",
                "model_sha256": None}
    return {"data": split_dir, "model": meta.get("model", "unknown"), "model_sha256": meta.get("model_sha256")}


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="", help="exported folder public/models/<id>")
    p.add_argument("--ckpt", default="", help="training/runs/<run>/ckpt.pt")
    p.add_argument("--data", default="data/features")
    p.add_argument("--split", default="val")
    p.add_argument("--vocab", default=os.path.join(HERE, "vocab.json"))
    p.add_argument("--n_per_task", type=int, default=30)
    p.add_argument("--block_size", type=int, default=32)
    p.add_argument("--threshold", type=float, default=0.9)
    p.add_argument("--fast", action="store_true", help="batched window rows (not bit-exact)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--text_unit", default="line", choices=["line", "region"],
                   help="read text regions one strip (line) at a time, as the engine does, or whole")
    p.add_argument("--dump", default="", help="per-region JSON lines (ids, forwards) for tools/parity")
    p.add_argument("--tasks", default="", help="comma-separated: only these tasks")
    p.add_argument("--shard", default="0/1", help="k/n: every n-th selected region per task from the k-th")
    p.add_argument("--ids", default="", help="evaluate.py --dump records (.jsonl or .jsonl.gz): read only the regions they name")
    p.add_argument("--merge", nargs="+", default=[], help="pool these evaluate.py outputs into --out; runs nothing")
    a = p.parse_args(argv)
    if a.merge:
        parts = []
        for f in a.merge:
            with open(f) as fh:
                parts.append(json.load(fh))
        res = merge(parts)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
        print(json.dumps(res, indent=1))
        return
    try:
        k, n = (int(v) for v in a.shard.split("/"))
    except ValueError:
        p.error(f"--shard {a.shard}: want k/n, e.g. 0/2")
    if not 0 <= k < n:
        p.error(f"--shard {a.shard}: want k/n with 0 <= k < n")
    torch.set_num_threads(a.threads)
    if a.model:
        model, _ = load_exported(a.model)
        vocab = os.path.join(a.model, "vocab.json")
    else:
        model, _ = model_from_ckpt(a.ckpt)
        vocab = a.vocab
    tok = Tokenizer.load(vocab)
    ds = PackedFeatures(os.path.join(a.data, a.split), tok, model.cfg)
    ids = {r["id"] for r in read_jsonl(a.ids) if not a.tasks or r["task"] in a.tasks.split(",")} if a.ids else None
    if ids is not None:
        missing = ids - {it["id"] for it in ds.items}
        if missing:
            p.error(f"--ids: {len(missing)} of {len(ids)} regions are not in {a.data}/{a.split}, e.g. {sorted(missing)[:3]}")
    dump = open(a.dump, "w") if a.dump else None
    res = evaluate(model, ds, tok, a.n_per_task, None, a.block_size, a.threshold, exact=not a.fast, dump=dump,
                   text_unit=a.text_unit, tasks=set(a.tasks.split(",")) if a.tasks else None, shard=(k, n),
                   ids=ids)
    if dump:
        dump.close()
    res["source"] = a.model or a.ckpt
    for task, r in res["tasks"].items():
        r["features"] = features_provenance(os.path.join(a.data, a.split), task)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
