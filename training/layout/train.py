"""Train the layout detector on synth pages.

  training/layout/run_train.sh <name> --train data/synth/train --val data/synth/val --minutes 40
  /usr/bin/python3 training/layout/train.py --run training/layout/runs/<name> --train ... [--steps N]

Resumes from <run>/ckpt.pt when present, else from --init (default: the committed
public/models/layout/layout.safetensors when it exists; --init none starts from scratch).
Checkpoints every --ckpt_minutes and on SIGTERM/SIGINT; keeps <run>/best.pt (best val mAP@0.5).
Logs: <run>/train.log and <run>/log.jsonl. The lr follows a cosine over --steps, or over
--minutes of training time when --steps is 0 (CPU machines shared with other jobs).
"""
import argparse
import json
import math
import os
import signal
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import CLASSES, LayoutConfig  # noqa: E402
from data import PageSet  # noqa: E402
from metrics import map_report, postprocess  # noqa: E402
from model import LayoutNet, count_params, decode  # noqa: E402
sys.path.insert(1, os.path.dirname(HERE))  # training/: the shared safetensors reader/writer
from gocr.safetensors import load_file  # noqa: E402
from targets import detection_loss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_INIT = os.path.join(REPO, "public/models/layout/layout.safetensors")


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/synth/train")
    p.add_argument("--val", default="data/synth/val")
    p.add_argument("--run", default="training/layout/runs/dev")
    p.add_argument("--init", default="auto", help="safetensors or ckpt.pt; 'auto' = committed weights if any; 'none'")
    p.add_argument("--input_h", type=int, default=640)
    p.add_argument("--input_w", type=int, default=512)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--fpn_dim", type=int, default=96)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--min_lr", type=float, default=5e-5)
    p.add_argument("--warmup", type=int, default=60)
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--steps", type=int, default=0)
    p.add_argument("--minutes", type=float, default=40.0)
    p.add_argument("--ckpt_minutes", type=float, default=4.0)
    p.add_argument("--snapshot_minutes", type=float, default=0.0,
                   help="also keep the weights every M minutes as <run>/snap_<step>.pt, for soup.py (0: off)")
    p.add_argument("--eval_minutes", type=float, default=8.0)
    p.add_argument("--eval_pages", type=int, default=60)
    p.add_argument("--best_metric", default="map50", choices=["map50", "map"],
                   help="val metric that picks best.pt (map = mAP@0.5:0.95, rewards tight boxes)")
    p.add_argument("--limit", type=int, default=0, help="use only the first N train pages")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no_augment", action="store_true")
    p.add_argument("--no_inst_weight", action="store_true", help="plain per-cell positives (no small-box re-weighting)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--workers", type=int, default=0,
                   help="build batches in this many worker processes (a GPU machine); 0 = in the loop")
    return p.parse_args(argv)


class Logger:
    def __init__(self, run):
        self.txt = open(os.path.join(run, "train.log"), "a")
        self.jl = open(os.path.join(run, "log.jsonl"), "a")

    def __call__(self, msg, **rec):
        line = time.strftime("%H:%M:%S ") + msg
        print(line, flush=True)
        self.txt.write(line + "\n")
        self.txt.flush()
        if rec:
            self.jl.write(json.dumps(rec) + "\n")
            self.jl.flush()


@torch.no_grad()
def evaluate(net, pages, cfg, device, n=0, batch=8):
    """Python-side mAP (twin of the TS evaluation) on the first n pages of a PageSet."""
    net.eval()
    n = len(pages) if not n else min(n, len(pages))
    dets, gts = [], []
    for b0 in range(0, n, batch):
        idx = list(range(b0, min(n, b0 + batch)))
        x = torch.stack([pages.sample(i, None, False)[0] for i in idx]).to(device)
        scores, boxes = decode(*net(x), cfg.stride)
        for k, i in enumerate(idx):
            p = pages.pages[i]
            nh, nw = pages.shapes[i]
            s = pages.scales[i]
            pw, ph = p["width"] or nw / s, p["height"] or nh / s
            dets.append(postprocess(scores[k].cpu().numpy(), boxes[k].cpu().numpy(), s, pw, ph, 0.02, cfg.nms_iou, cfg.max_detections))
            gts.append([{"cls": CLASSES.index(r["cls"]), "box": r["box"]} for r in p["regions"]])
    net.train()
    return map_report(dets, gts, cfg.classes)


class Batches(torch.utils.data.IterableDataset):
    """Endless augmented batches from worker processes: each worker walks its own permutations."""

    def __init__(self, pages, batch, augment, seed):
        if len(pages) < batch:
            raise ValueError(f"{len(pages)} training pages are fewer than one batch of {batch}")
        self.pages, self.bs, self.augment, self.seed = pages, batch, augment, seed

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        torch.set_num_threads(1)
        rng = np.random.default_rng([self.seed, wid])
        while True:
            perm = rng.permutation(len(self.pages))
            for b0 in range(0, len(perm) - self.bs + 1, self.bs):
                x, c, t, w = self.pages.batch(perm[b0:b0 + self.bs], rng, self.augment)
                # uint8 through shared memory (a quarter of the bytes); the main process divides
                yield (x * 255).round_().to(torch.uint8), c, t, w


def lr_at(args, step, elapsed):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    prog = step / args.steps if args.steps else elapsed / (args.minutes * 60)
    prog = min(1.0, prog)
    return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * prog))


def load_init(net, path, log):
    if path.endswith(".safetensors"):
        sd, _ = load_file(path)
    else:
        sd = torch.load(path, map_location="cpu")["model"]
    missing, unexpected = net.load_state_dict(sd, strict=False)
    log(f"init from {path} (missing {len(missing)}, unexpected {len(unexpected)})")


def main(argv=None):
    args = parse(argv)
    torch.set_num_threads(args.threads)
    os.makedirs(args.run, exist_ok=True)
    log = Logger(args.run)
    ck_path = os.path.join(args.run, "ckpt.pt")
    state = torch.load(ck_path, map_location="cpu") if os.path.exists(ck_path) else None
    cfg = LayoutConfig.from_json(state["cfg"]) if state else LayoutConfig(
        input_h=args.input_h, input_w=args.input_w, width=args.width, fpn_dim=args.fpn_dim)
    device = torch.device(args.device)
    net = LayoutNet(len(cfg.classes), cfg.width, cfg.fpn_dim, cfg.stride).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.wd)
    step, elapsed, best = 0, 0.0, -1.0
    if state:
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, elapsed, best = state["step"], state["elapsed"], state.get("best", -1.0)
        log(f"resumed {ck_path} at step {step} ({elapsed / 60:.1f} min trained)")
    else:
        init = DEFAULT_INIT if args.init == "auto" else args.init
        if init != "none" and os.path.exists(init):
            load_init(net, init, log)
    log(f"params {count_params(net)} cfg {json.dumps(cfg.to_json())} args {vars(args)}")

    cache = os.path.join(os.path.dirname(os.path.normpath(args.run)), "cache")
    train = PageSet(args.train, cfg, cache, args.limit, log)
    val = PageSet(args.val, cfg, cache, args.eval_pages, log) if args.val and (os.path.isdir(args.val) or args.val.endswith(".npz")) else None
    log(f"train pages {len(train)}, val pages {len(val) if val else 0}")
    rng = np.random.default_rng(args.seed + step)

    def save(path=ck_path):
        tmp = path + ".tmp"
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step, "elapsed": elapsed,
                    "best": best, "cfg": cfg.to_json(), "args": vars(args)}, tmp)
        os.replace(tmp, path)

    stop = {"flag": False}

    def on_signal(sig, frame):
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    net.train()
    t_ck = t_ev = t_snap = time.time()
    perm, pi = rng.permutation(len(train)), 0
    loader = None
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # one input size
    if args.workers:
        loader = iter(torch.utils.data.DataLoader(
            Batches(train, args.batch, not args.no_augment, args.seed + step), batch_size=None,
            num_workers=args.workers, pin_memory=device.type == "cuda", prefetch_factor=4))
    agg, t_log = [], time.time()
    while not stop["flag"]:
        if (args.steps and step >= args.steps) or (not args.steps and elapsed >= args.minutes * 60):
            break
        t0 = time.time()
        batch = None
        if loader is not None:
            try:
                batch = next(loader)
                batch = (batch[0].to(device, non_blocking=True).float() / 255.0,) + tuple(batch[1:])
            except Exception as e:  # e.g. a worker killed for lack of shared memory
                log(f"batch workers failed ({type(e).__name__}: {e}); building batches in the loop")
                loader = batch = None
        if batch is not None:
            x, cls_t, ltrb_t, inst_w = batch
        else:
            if pi + args.batch > len(perm):
                perm, pi = rng.permutation(len(train)), 0
            idx = perm[pi:pi + args.batch]
            pi += args.batch
            x, cls_t, ltrb_t, inst_w = train.batch(idx, rng, not args.no_augment)
        nb = loader is not None
        x, cls_t, ltrb_t, inst_w = (x.to(device, non_blocking=nb), cls_t.to(device, non_blocking=nb),
                                    ltrb_t.to(device, non_blocking=nb), inst_w.to(device, non_blocking=nb))
        lr = lr_at(args, step, elapsed)
        for g in opt.param_groups:
            g["lr"] = lr
        loss, parts = detection_loss(*net(x), cls_t, ltrb_t, None if args.no_inst_weight else inst_w)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()
        step += 1
        elapsed += time.time() - t0
        agg.append([float(loss), parts["cls"], parts["box"], parts["ctr"]])
        if step % 20 == 0:
            m = np.mean(agg, 0)
            log(f"step {step} loss {m[0]:.4f} cls {m[1]:.4f} box {m[2]:.4f} ctr {m[3]:.4f} lr {lr:.2e} "
                f"{(time.time() - t_log) / len(agg):.2f}s/step trained {elapsed / 60:.1f}min",
                step=step, loss=m[0], cls=m[1], box=m[2], ctr=m[3], lr=lr, elapsed=elapsed)
            agg, t_log = [], time.time()
        if time.time() - t_ck > args.ckpt_minutes * 60:
            save()
            t_ck = time.time()
        if args.snapshot_minutes and time.time() - t_snap > args.snapshot_minutes * 60:
            torch.save({"model": net.state_dict(), "step": step, "cfg": cfg.to_json()},
                       os.path.join(args.run, f"snap_{step:06d}.pt"))
            t_snap = time.time()
        if val and time.time() - t_ev > args.eval_minutes * 60:
            rep = evaluate(net, val, cfg, device)
            log(f"eval step {step}: mAP50 {rep['map50']:.4f} mAP {rep['map']:.4f} "
                + " ".join(f"{k}:{v['ap50']:.2f}" for k, v in rep["per_class"].items()), step=step, eval=rep)
            if rep[args.best_metric] > best:
                best = rep[args.best_metric]
                save(os.path.join(args.run, "best.pt"))
            t_ev = time.time()
    save()
    if val:
        rep = evaluate(net, val, cfg, device)
        log(f"final eval step {step}: mAP50 {rep['map50']:.4f} mAP {rep['map']:.4f}", step=step, eval=rep)
        if rep[args.best_metric] >= best:
            best = rep[args.best_metric]
            save(os.path.join(args.run, "best.pt"))
    log(f"done at step {step}, {elapsed / 60:.1f} min trained")


if __name__ == "__main__":
    main()
