"""Average detector weights (a uniform "soup" / stochastic weight averaging) into one checkpoint.

  /usr/bin/python3 training/layout/soup.py --out runs/soup.pt runs/a/best.pt runs/b/snap_*.pt \
      [--bn_batches 40 --train data/synth/train,...]

Every floating-point tensor is the mean over the inputs (which must share one shape: checkpoints
of one run, or of runs continued from each other). BatchNorm running statistics of an average are
not the average of the statistics, so with --bn_batches N they are measured again on N training
batches (augmented as in training, model in train mode, no gradient; cumulative averages).
The output is a checkpoint that export.py and train.py --init read.
"""
import argparse
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import LayoutConfig  # noqa: E402
from data import PageSet  # noqa: E402
from model import LayoutNet  # noqa: E402


def average(states):
    """Mean of each floating-point tensor over `states` (state dicts); other tensors from the first."""
    keys = list(states[0].keys())
    for s in states[1:]:
        if list(s.keys()) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("checkpoints differ in their tensors: only weights of one architecture can be averaged")
    return {k: (sum(s[k].double() for s in states) / len(states)).to(states[0][k].dtype)
            if states[0][k].dtype.is_floating_point else states[0][k].clone() for k in keys}


def recalibrate_bn(net, pages, batches, batch_size, seed=0):
    """Running mean/var of every BatchNorm from `batches` training batches (cumulative average)."""
    bns = [m for m in net.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    rng = np.random.default_rng(seed)
    net.train()
    with torch.no_grad():
        for _ in range(batches):
            idx = rng.choice(len(pages), batch_size, replace=False)
            x, *_ = pages.batch(idx, rng, True)
            net(x)
    net.eval()


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("inputs", nargs="+", help="checkpoints (train.py's best.pt / ckpt.pt / snap_*.pt)")
    p.add_argument("--out", required=True)
    p.add_argument("--bn_batches", type=int, default=0)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--train", default="data/synth/train")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    cks = [torch.load(path, map_location="cpu") for path in args.inputs]
    cfg = LayoutConfig.from_json(cks[0]["cfg"])
    sd = average([c["model"] for c in cks])
    if args.bn_batches:
        net = LayoutNet(len(cfg.classes), cfg.width, cfg.fpn_dim, cfg.stride)
        net.load_state_dict(sd)
        cache = os.path.join(HERE, "runs", "cache")
        recalibrate_bn(net, PageSet(args.train, cfg, cache), args.bn_batches, args.batch)
        sd = net.state_dict()
    steps = [int(c.get("step", 0)) for c in cks]
    torch.save({"model": sd, "step": max(steps), "elapsed": 0.0, "best": -1.0, "cfg": cks[0]["cfg"],
                "args": {"soup": args.inputs, "bn_batches": args.bn_batches}}, args.out)
    print(f"averaged {len(cks)} checkpoints (steps {steps}) into {args.out}")


if __name__ == "__main__":
    main()
