"""Train GravityOCR (joint AR + block diffusion, + CTC aid) on packed vision features.

  /usr/bin/python3 training/train.py --data data/features --run training/runs/<name> [--steps N]
Resumes automatically from <run>/ckpt.pt; --init public/models/<id> (or a ckpt.pt) starts from
exported weights. Checkpoints every --ckpt_minutes and on SIGTERM/SIGINT. Logs: <run>/train.log
(text) and <run>/log.jsonl (one JSON object per log line). Use training/run_train.sh for the
malloc settings of DESIGN §4 and nohup.
"""
import os

# OpenMP threads that spin-wait are ~10x slower on this shared CPU (measured: a self-spec decode
# 28 s -> 2.7 s); must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json
import math
import os
import signal
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gocr import decode, gravity  # noqa: E402
from gocr.checkpoint import load_ckpt, load_exported, save_ckpt  # noqa: E402
from gocr.data import BatchStream, PackedFeatures, add_line_samples  # noqa: E402
from gocr.metrics import cer  # noqa: E402
from gocr.model import GOCRConfig, GravityOCR  # noqa: E402
from gocr.tokenizer import Tokenizer  # noqa: E402
from evaluate import read_units, unit_slices  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/features")
    p.add_argument("--train_split", default="train")
    p.add_argument("--val_split", default="val")
    p.add_argument("--run", default="training/runs/dev")
    p.add_argument("--init", default="", help="public/models/<id> folder or a ckpt.pt")
    p.add_argument("--vocab", default=os.path.join(HERE, "vocab.json"))
    p.add_argument("--d_model", type=int, default=256)
    p.add_argument("--n_layers", type=int, default=4)
    p.add_argument("--n_heads", type=int, default=4)
    p.add_argument("--head_dim", type=int, default=64)
    p.add_argument("--ffn_dim", type=int, default=768)
    p.add_argument("--block_size", type=int, default=32)
    p.add_argument("--max_positions", type=int, default=2048)
    p.add_argument("--max_len", type=int, default=1400, help="max prefix+response length admitted")
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min_lr", type=float, default=1e-4)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--wd", type=float, default=0.05)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--max_tokens", type=int, default=12000, help="batch budget: Bs * packed length")
    p.add_argument("--curriculum_steps", type=int, default=3000)
    p.add_argument("--lam", type=float, default=1.0)
    p.add_argument("--ctc_weight", type=float, default=1.0)
    p.add_argument("--ctc_decay_steps", type=int, default=0, help="linearly decay CTC weight to 0.1x")
    p.add_argument("--guide_weight", type=float, default=0.0, help="guided attention from the CTC alignment")
    p.add_argument("--guide_layer", type=int, default=1)
    p.add_argument("--guide_start", type=int, default=50, help="step from which the guide is on (CTC first)")
    p.add_argument("--no_jitter", action="store_true")
    p.add_argument("--reload_minutes", type=float, default=0,
                   help="re-read the train index when it grew (features still being written)")
    p.add_argument("--line_samples", default="", help="synth page JSON dir(s), comma-separated (data/synth/train): add per-line samples")
    p.add_argument("--line_only_text", action="store_true",
                   help="with --line_samples: drop the split text regions (train text as lines, as the engine reads it); "
                        "quick eval reads text line by line too")
    p.add_argument("--diff_blocks", type=int, default=0, help="corrupted streams on a random run of this many blocks (0 = all)")
    p.add_argument("--ckpt_minutes", type=float, default=10)
    p.add_argument("--log_every", type=int, default=20)
    p.add_argument("--eval_every", type=int, default=500)
    p.add_argument("--eval_n", type=int, default=24)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max_minutes", type=float, default=0, help="stop (with a checkpoint) after this")
    return p.parse_args(argv)


class Logger:
    def __init__(self, run):
        self.txt = open(os.path.join(run, "train.log"), "a", buffering=1)
        self.js = open(os.path.join(run, "log.jsonl"), "a", buffering=1)

    def __call__(self, msg, **rec):
        line = time.strftime("%H:%M:%S ") + msg
        print(line, flush=True)
        self.txt.write(line + "\n")
        if rec:
            rec["time"] = time.time()
            self.js.write(json.dumps(rec) + "\n")


def lr_at(step, a):
    if step < a.warmup:
        return a.lr * (step + 1) / a.warmup
    f = min(1.0, (step - a.warmup) / max(1, a.steps - a.warmup))
    return a.min_lr + 0.5 * (a.lr - a.min_lr) * (1 + math.cos(math.pi * f))


@torch.no_grad()
def quick_eval(model, val, tok, a, n):
    """Val joint loss on a few batches + AR-greedy CER / self-spec TPF on n samples."""
    model.eval()
    rng = np.random.default_rng(123)
    idx = np.random.default_rng(7).permutation(len(val))[:n]
    samples = [val.get(int(i)) for i in idx]
    logs = []
    for c in range(0, len(samples), 8):
        b = gravity.collate(samples[c:c + 8], model.cfg, rng, with_ctc=False)
        logs.append(gravity.gravity_loss(model, b, lam=a.lam, device=a.device)[1])
    res = {k: float(np.mean([l[k] for l in logs])) for k in ("ar", "diff", "loss")}
    cers, tpfs, acc = [], [], []
    for k, s in enumerate(samples):
        mx = len(s["ids"]) + 16
        if a.line_only_text and s["task"] == "text" and len(s["strips"]) > 1:
            r = read_units(decode.ar_greedy, model, s["feats"], unit_slices(s["strips"]), s["task_id"], tok, exact=False)
            cers.append(cer(r["text"], s["target"]))
        else:
            r = decode.ar_greedy(model, s["feats"], s["strips"], s["task_id"], mx, exact=False)
            cers.append(cer(tok.decode(r["ids"]), s["target"]))
        if k < 6:
            sp = decode.self_spec(model, s["feats"], s["strips"], s["task_id"], mx, exact=False)
            tpfs.append(sp["tpf"])
            acc.append(sp["mean_accepted"])
    res.update(cer=float(np.mean(cers)), tpf=float(np.mean(tpfs)), accepted=float(np.mean(acc)))
    model.train()
    return res


def main(argv=None):
    a = parse(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    os.makedirs(a.run, exist_ok=True)
    log = Logger(a.run)
    tok = Tokenizer.load(a.vocab)
    ckpt_path = os.path.join(a.run, "ckpt.pt")
    state = {"step": 0, "tokens": 0, "samples": 0, "train_seconds": 0.0}
    ck = None
    if os.path.exists(ckpt_path):
        ck = load_ckpt(ckpt_path)
        cfg = GOCRConfig.from_dict(ck["config"])
        model = GravityOCR(cfg, ctc_head=True)
        model.load_state_dict(ck["model"], strict=False)
        state = ck["state"]
        log(f"resumed {ckpt_path} at step {state['step']}")
    elif a.init and os.path.isdir(a.init):
        model, _ = load_exported(a.init, ctc_head=True)
        cfg = model.cfg
        log(f"initialised from exported {a.init}")
    elif a.init:
        ck0 = load_ckpt(a.init)
        cfg = GOCRConfig.from_dict(ck0["config"])
        model = GravityOCR(cfg, ctc_head=True)
        model.load_state_dict(ck0["model"], strict=False)
        log(f"initialised from checkpoint {a.init} (fresh optimizer)")
    else:
        cfg = GOCRConfig(vocab_size=tok.vocab_size, d_model=a.d_model, n_layers=a.n_layers,
                         n_heads=a.n_heads, head_dim=a.head_dim, ffn_dim=a.ffn_dim,
                         block_size=a.block_size, max_positions=a.max_positions,
                         eos_id=tok.eos_id, mask_id=tok.mask_id, sep_id=tok.sep_id, pad_id=tok.pad_id,
                         bos_id=tok.bos_id, task_ids=dict(tok.task_ids))
        model = GravityOCR(cfg, ctc_head=True)
    if cfg.vocab_size != tok.vocab_size:
        raise ValueError(f"vocab size {tok.vocab_size} != model {cfg.vocab_size}")
    model.to(a.device).train()
    with open(os.path.join(a.run, "config.json"), "w") as f:
        f.write(cfg.to_json())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": a.wd},
                             {"params": no_decay, "weight_decay": 0.0}], lr=a.lr, betas=(0.9, 0.95))
    if ck is not None and "opt" in ck:
        opt.load_state_dict(ck["opt"])
    train_dir = os.path.join(a.data, a.train_split)

    def load_train():
        ds = PackedFeatures(train_dir, tok, cfg, max_len=a.max_len, diff_blocks=a.diff_blocks)
        if a.line_samples:
            add_line_samples(ds, a.line_samples, tok, cfg, log=log, drop_regions=a.line_only_text)
        return ds
    train = load_train()
    index_size = os.path.getsize(os.path.join(train_dir, "index.jsonl"))
    t_reload = time.time()
    val_dir = os.path.join(a.data, a.val_split)
    val = PackedFeatures(val_dir, tok, cfg, max_len=a.max_len) if os.path.isdir(val_dir) else None
    log(f"params {model.n_params()} (exported) | train {len(train)} (skipped {train.skipped}) | "
        f"val {len(val) if val else 0} | cfg {json.dumps(json.loads(cfg.to_json()))}")
    stream = BatchStream(train, a.max_tokens, seed=a.seed + state["step"],
                         curriculum_steps=a.curriculum_steps)
    rng = np.random.default_rng(a.seed * 7919 + state["step"])
    struct_ids = {i for i in range(tok.vocab_size) if tok.is_structure(i)}

    stop = {"flag": False}

    def on_signal(sig, frame):
        stop["flag"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    def checkpoint():
        save_ckpt(ckpt_path, model, opt, state, vars(a))
        log(f"checkpoint step {state['step']} -> {ckpt_path}")

    t_start, t_ck = time.time(), time.time()
    t_run0 = t_start
    t_log, acc = time.time(), []
    while state["step"] < a.steps and not stop["flag"]:
        step = state["step"]
        lr = lr_at(step, a)
        for g in opt.param_groups:
            g["lr"] = lr
        samples = stream.next(step)
        batch = gravity.collate(samples, cfg, rng, jitter=not a.no_jitter, struct_ids=struct_ids,
                                diff_blocks=a.diff_blocks)
        cw = a.ctc_weight
        if a.ctc_decay_steps:
            cw *= max(0.1, 1 - 0.9 * step / a.ctc_decay_steps)
        gw = a.guide_weight if step >= a.guide_start else 0.0
        loss, logs = gravity.gravity_loss(model, batch, lam=a.lam, ctc_weight=cw, device=a.device,
                                          guide_weight=gw, guide_layer=a.guide_layer)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        opt.step()
        state["step"] += 1
        state["tokens"] += batch["n_tokens"]
        state["samples"] += len(samples)
        logs["gnorm"] = float(gn)
        acc.append(logs)
        if state["step"] % a.log_every == 0:
            dt = time.time() - t_log
            t_log = time.time()
            m = {k: float(np.mean([l.get(k, 0.0) for l in acc])) for k in acc[-1]}
            ntok = sum(l["n_ar"] for l in acc)
            acc = []
            log(f"step {state['step']} lr {lr:.2e} loss {m['loss']:.3f} ar {m['ar']:.3f} "
                f"diff {m['diff']:.3f} (a {m['diff_a']:.3f} b {m['diff_b']:.3f}) ctc {m.get('ctc', 0):.3f} "
                f"guide {m.get('guide', 0):.3f} "
                f"gn {m['gnorm']:.2f} | {a.log_every / dt:.2f} step/s {ntok / dt:.0f} tgt tok/s "
                f"cap {stream.cap(step):.0f}",
                kind="train", step=state["step"], lr=lr, **m, sec_per_step=dt / a.log_every)
        if val is not None and a.eval_every and state["step"] % a.eval_every == 0:
            ev = quick_eval(model, val, tok, a, a.eval_n)
            log(f"eval step {state['step']} " + " ".join(f"{k} {v:.4f}" for k, v in ev.items()),
                kind="eval", step=state["step"], **ev)
        now = time.time()
        if a.reload_minutes and now - t_reload > a.reload_minutes * 60:
            t_reload = now
            sz = os.path.getsize(os.path.join(train_dir, "index.jsonl"))
            if sz != index_size:
                index_size = sz
                train = load_train()
                stream = BatchStream(train, a.max_tokens, seed=a.seed + state["step"],
                                     curriculum_steps=a.curriculum_steps)
                log(f"reloaded train index: {len(train)} samples (skipped {train.skipped})")

            state["train_seconds"] += now - t_start
            t_start = now
            checkpoint()
            t_ck = now
        if a.max_minutes and now - t_run0 > a.max_minutes * 60:
            break
    state["train_seconds"] += time.time() - t_start
    checkpoint()
    log(f"done at step {state['step']}")
    return model, state


if __name__ == "__main__":
    main()
