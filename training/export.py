"""Export a checkpoint to public/models/<id>/: model.safetensors, config.json, vocab.json,
golden.json (PyTorch reference vectors for the TS/WGSL decoders), decoder.onnx (the decoder
with a KV cache for the onnxruntime peer, training/export_onnx.py), manifest.json.

  /usr/bin/python3 training/export.py --ckpt training/runs/<run>/ckpt.pt --id <id> \
      [--eval training/runs/<run>/eval.json] [--dtype f16] [--data data/features]
Golden vectors are computed from the weights as written (after the dtype round trip), in fp32.
vision.onnx (made by tools/vision) is listed in the manifest when present in the folder.
"""
import os

# OpenMP threads that spin-wait are ~10x slower on this shared CPU (measured: a self-spec decode
# 28 s -> 2.7 s); must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json
import os
import shutil
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gocr import decode  # noqa: E402
from gocr.checkpoint import file_sha256 as sha256, load_exported, model_from_ckpt  # noqa: E402
from gocr.data import PackedFeatures  # noqa: E402
from gocr.safetensors import save_file  # noqa: E402
from gocr.tokenizer import Tokenizer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _r(x):
    """floats for JSON with ~7 significant digits (keeps golden.json small)."""
    return [float(f"{v:.7g}") for v in np.asarray(x, np.float64).ravel().tolist()]


def golden_case(model, s, task, max_new=48):
    f = np.asarray(s["feats"], np.float32)
    ar = decode.ar_greedy(model, f, s["strips"], s["task_id"], max_new, trace=True)
    sp = decode.self_spec(model, f, s["strips"], s["task_id"], max_new, keep_windows=True)
    # round 1 when there is one (its cache holds committed tokens), else round 0; a round that
    # stopped on an EOS a0 ran no verify window
    cands = [x for x in sp["rounds"][1:2] + sp["rounds"][:1] if x.get("verify_window") is not None]
    if not cands:
        raise ValueError("golden sample ends at its first token: pick a longer one")
    r = cands[0]
    sess = decode.Session(model, f, s["strips"], s["task_id"], 1)  # for prompt_ids
    cb = r["committed_before"]
    return {
        "task": task, "vision_shape": list(f.shape), "vision": _r(f), "strips": list(s["strips"]),
        "prompt_ids": sess.prompt_ids, "prefix_last_logits": _r(ar["prefix_last_logits"]),
        "greedy_ids": ar["ids"],
        # convention: window starts at prefix_len-1+len(committed); the cache holds the prompt and
        # committed[:-1]; window[0] is committed[-1] (the task token when committed is empty)
        "draft": {"committed": cb, "window": [r["x0"]] + r["draft_window"][1:],
                  "logits": [_r(row) for row in r["draft_logits"]]},
        "verify": {"committed": cb + [r["verify_window"][0]], "window": r["verify_window"],
                   "logits": [_r(row) for row in r["verify_logits"]]},
        "self_spec_ids": sp["ids"],
    }


READ_KEYS = ("val", "val_image_path", "val_base_backbone")  # a task encoder's reads (train_vision.py)


def read_entry(ev, task):
    """One task's numbers of an evaluate.py output, with the settings they were measured at."""
    if task not in ev.get("tasks", {}):
        raise ValueError(f"the eval output has no {task!r} results (tasks: {sorted(ev.get('tasks', {}))})")
    return dict(ev["tasks"][task], block_size=ev["block_size"], exact=ev["exact"], threshold=ev["threshold"])


def carry_vision_tasks(prev, task_evals, decoder_step):
    """Task-encoder entries across a decoder export. Their reads (READ_KEYS) were measured with the
    decoder then shipped: the ones re-measured with the new decoder (task_evals: {task: {key:
    evaluate.py output}}) replace them; the others move to `earlier_decoder`, so the manifest never
    presents a number that the shipped decoder did not produce (an export before its eval followed
    by one with the eval ends with only what was not re-measured there). `decoder_step` (training
    steps of the decoder that measured the reads) is recorded."""
    unknown = set(task_evals) - set(prev)
    if unknown:
        raise ValueError(f"--task_eval for {sorted(unknown)}: no such task encoder in the manifest ({sorted(prev)})")
    out = {}
    for task, e in prev.items():
        new = task_evals.get(task, {})
        bad = set(new) - set(READ_KEYS)
        if bad:
            raise ValueError(f"--task_eval {task}: unknown read {sorted(bad)} (want one of {READ_KEYS})")
        # "decoder": a note on which decoder measured the reads; it goes with them
        old = {k: e[k] for k in READ_KEYS + ("decoder",) if k in e and k not in new}
        if not set(old) - {"decoder"}:
            old = {}
        e = {k: v for k, v in e.items() if k not in READ_KEYS + ("decoder", "decoder_step")}
        if old:
            e["earlier_decoder"] = dict(old, decoder_step=prev[task].get("decoder_step"))
        elif "earlier_decoder" in e:  # reads of a still earlier decoder: keep those not re-measured now
            left = {k: v for k, v in e["earlier_decoder"].items() if k not in new}
            if set(left) & set(READ_KEYS):
                e["earlier_decoder"] = left
            else:
                del e["earlier_decoder"]
        for k, ev in new.items():
            e[k] = read_entry(ev, task)
        if new:
            e["decoder_step"] = decoder_step
        out[task] = e
    return out


def export(model, out_dir, vocab_path, samples=(), dtype="f32", train_state=None, eval_res=None,
           model_id=None, golden_max_bytes=2_000_000, onnx_decoder=True, prior=None, task_evals=None,
           val_note=None):
    """prior: the training record of the export this run was initialised from (--init); the
    manifest then lists both segments and the totals. task_evals: {task: {read key: evaluate.py
    output}} for the task encoders' reads with this decoder (carry_vision_tasks)."""
    # task encoders (train_vision.py --export) are separate artifacts in the same folder: their
    # manifest entries and files stay listed across decoder exports (checked before anything is written)
    prev = {}
    if os.path.exists(os.path.join(out_dir, "manifest.json")):
        with open(os.path.join(out_dir, "manifest.json")) as f:
            prev = json.load(f)
    training = training_record(train_state or {}, prior)
    vision_tasks = None
    if prev.get("vision_tasks") or task_evals:
        vision_tasks = carry_vision_tasks(prev.get("vision_tasks") or {}, task_evals or {}, training["step"])
    os.makedirs(out_dir, exist_ok=True)
    sd = model.export_state_dict()
    tdt = torch.float16 if dtype == "f16" else torch.float32
    save_file({k: v.to(tdt) for k, v in sd.items()}, os.path.join(out_dir, "model.safetensors"),
              metadata={"format": "pt", "gravityocr": "1"})
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        f.write(model.cfg.to_json() + "\n")
    if os.path.abspath(vocab_path) != os.path.abspath(os.path.join(out_dir, "vocab.json")):
        shutil.copyfile(vocab_path, os.path.join(out_dir, "vocab.json"))
    # golden vectors from the weights exactly as written
    m2, _ = load_exported(out_dir)
    m2.eval()
    cases = []
    for s in samples:
        c = golden_case(m2, s, s["task"])
        if len(json.dumps({"cases": cases + [c]})) > golden_max_bytes:
            break
        cases.append(c)
    with open(os.path.join(out_dir, "golden.json"), "w") as f:
        json.dump({"block_size": m2.cfg.block_size, "cases": cases}, f, separators=(",", ":"))
    if onnx_decoder:
        from export_onnx import export_decoder_onnx
        export_decoder_onnx(out_dir)
    names = ["model.safetensors", "config.json", "vocab.json", "golden.json", "vision.onnx", "decoder.onnx"]
    names += [e[k] for e in (prev.get("vision_tasks") or {}).values() for k in ("file", "golden") if e.get(k)]
    files = {}
    for name in names:
        p = os.path.join(out_dir, name)
        if os.path.exists(p):
            files[name] = {"sha256": sha256(p), "size": os.path.getsize(p)}
    manifest = {
        "id": model_id or os.path.basename(os.path.abspath(out_dir)),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "dtype": dtype, "files": files, "params": model.n_params(),
        "config": json.loads(model.cfg.to_json()),
        "training": training,
        "golden_cases": len(cases),
        "val": eval_res,
    }
    if val_note:
        manifest["val_note"] = val_note  # how `val` was measured (which encoder read which task)
    if vision_tasks is not None:
        manifest["vision_tasks"] = vision_tasks
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def training_record(state, prior=None):
    keys = ("step", "tokens", "samples", "train_seconds")
    seg = {k: state.get(k) for k in keys}
    if not prior:
        return seg
    segs = list(prior.get("segments") or [{k: prior.get(k) for k in keys}]) + [seg]
    total = {k: sum((x.get(k) or 0) for x in segs) for k in keys}
    return {**total, "segments": segs}


def pick_golden_samples(ds, n=3):
    """One short sample per task (smallest vision length), up to n."""
    best = {}
    for i, it in enumerate(ds.items):
        t = it["task"]
        if t not in best or it["P"] + it["R"] < ds.items[best[t]]["P"] + ds.items[best[t]]["R"]:
            best[t] = i
    out = []
    for t in ("text", "formula", "table"):
        if t in best:
            s = ds.get(best[t])
            out.append(s)
    return out[:n]


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt", required=True)
    p.add_argument("--id", required=True)
    p.add_argument("--out_root", default=os.path.join(ROOT, "public", "models"))
    p.add_argument("--vocab", default=os.path.join(HERE, "vocab.json"))
    p.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    p.add_argument("--data", default=os.path.join(ROOT, "data", "features"))
    p.add_argument("--split", default="val")
    p.add_argument("--eval", default="")
    p.add_argument("--init_manifest", default="",
                   help="manifest.json of the export the run started from (train.py --init): kept as a segment")
    p.add_argument("--task_eval", action="append", default=[], metavar="TASK:READ=EVAL.json",
                   help="a task encoder's read with this decoder, e.g. formula:val=eval_f.json "
                        f"(READ one of {', '.join(READ_KEYS)}); reads not given move to earlier_decoder")
    p.add_argument("--val_note", default="", help="how --eval was measured, kept beside it in the manifest")
    a = p.parse_args(argv)
    task_evals = {}
    for spec in a.task_eval:
        task, _, rest = spec.partition(":")
        key, _, path = rest.partition("=")
        if not (task and key and path):
            p.error(f"--task_eval {spec}: want TASK:READ=EVAL.json")
        try:
            with open(path) as f:
                task_evals.setdefault(task, {})[key] = json.load(f)
        except (OSError, ValueError) as e:
            p.error(f"--task_eval {spec}: {e}")
    prior = None
    if a.init_manifest:
        with open(a.init_manifest) as f:
            prior = json.load(f)["training"]
    torch.set_num_threads(2)
    model, ck = model_from_ckpt(a.ckpt)
    tok = Tokenizer.load(a.vocab)
    samples = []
    split = os.path.join(a.data, a.split)
    if os.path.isdir(split):
        samples = pick_golden_samples(PackedFeatures(split, tok, model.cfg))
    ev = None
    evp = a.eval or os.path.join(os.path.dirname(a.ckpt), "eval.json")
    if os.path.exists(evp):
        with open(evp) as f:
            ev = json.load(f)
    out = os.path.join(a.out_root, a.id)
    try:
        man = export(model, out, a.vocab, samples, a.dtype, ck.get("state"), ev, a.id, prior=prior,
                     task_evals=task_evals, val_note=a.val_note or None)
    except ValueError as e:
        p.error(str(e))
    print(json.dumps({k: man[k] for k in ("id", "files", "params", "training", "golden_cases")}, indent=1))


if __name__ == "__main__":
    main()
