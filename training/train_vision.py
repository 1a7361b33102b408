"""Fine-tune a copy of the PP-OCRv4 backbone as the vision encoder of one task (formulas) through
the frozen, shipped decoder, with the GravityOCR joint loss.

Why: formula errors are mostly symbols that the frozen 48-px text backbone maps to the same
features (θ/o, ω/w, sub- and superscripts; training/README.md). More decoder steps did not move
formula NES (gocr-v4 trial: 0.629 vs 0.622 on 100 val formulas). Here only the encoder learns; the
decoder, its weights and its golden vectors stay exactly as shipped, so text and table results
cannot change. The runtime runs this encoder on formula regions when public/models/default.json
names it (`"visionTasks": {"formula": "gocr-v1/vision-formula.onnx"}`).

  npm run strips -- --in data/crops/train4_tf --out data/strips/f_train4_tf --tasks formula
  PYTHONPATH=training /usr/bin/python3 -m gocr.ppocr --out data/ppocr.pt
  /usr/bin/python3 training/train_vision.py --decoder public/models/gocr-v1 --backbone data/ppocr.pt \
      --strips data/strips/f_train4_tf,data/strips/f_train4 --val_strips data/strips/f_val300 \
      --run training/runs/fenc1 --steps 1050 --lr 3e-4
  /usr/bin/python3 training/train_vision.py --run training/runs/fenc1 --export public/models/gocr-v1/vision-formula.onnx \
      --manifest public/models/gocr-v1/manifest.json [--eval E.json --base_eval B.json]

Resumes from <run>/ckpt.pt; `--init public/models/gocr-v1/vision-formula.onnx` continues the
committed encoder on a fresh machine (input scale read from the ONNX input height, training record
from the manifest). Batch normalisation keeps the statistics of the original backbone
(the port always runs BN in inference mode); every other float tensor of the graph is trained.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json
import signal
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from gocr import gravity  # noqa: E402
from gocr.checkpoint import load_ckpt, load_exported  # noqa: E402
from gocr.ppocr import PPOCRBackbone, golden_input  # noqa: E402
from gocr.strips import read_strips, to_input  # noqa: E402
from gocr.tokenizer import Tokenizer  # noqa: E402
from export import sha256  # noqa: E402
from train import lr_at  # noqa: E402  (warmup + cosine, the decoder's schedule)

BASE_ONNX = os.path.join(ROOT, "public", "models", "vision", "ppocr-v4-rec-backbone.onnx")


def parse(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--run", required=True)
    p.add_argument("--decoder", default=os.path.join(ROOT, "public", "models", "gocr-v1"))
    p.add_argument("--backbone", default="data/ppocr.pt", help="python3 -m gocr.ppocr output")
    p.add_argument("--init", default="", help="start from another run's ckpt.pt or an exported encoder .onnx (fresh optimizer)")
    p.add_argument("--strips", default="", help="comma-separated npm run strips folders (train)")
    p.add_argument("--val_strips", default="")
    p.add_argument("--task", default="formula")
    p.add_argument("--scale", type=int, default=1,
                   help="input scale: strips s·48 high (npm run strips -- --scale s); the stem conv is "
                        "widened so a scale-1 encoder (--init) carries over exactly (PPOCRBackbone.upscale_stem)")
    p.add_argument("--pool_groups", type=int, default=0,
                   help="learn the pooling of the last feature map's 3 rows (a grouped conv with this many groups, "
                        "initialised to the average; PPOCRBackbone.learn_pool); 0 keeps what the encoder has")
    p.add_argument("--pool_lr_mult", type=float, default=1.0, help="learning-rate multiplier of the learned pooling")
    p.add_argument("--vocab", default=os.path.join(HERE, "vocab.json"))
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--batch", type=int, default=12, help="regions per step")
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--min_lr", type=float, default=1e-5)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--wd", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--max_target", type=int, default=160, help="skip longer targets (tokens)")
    p.add_argument("--val_n", type=int, default=96)
    p.add_argument("--eval_every", type=int, default=250)
    p.add_argument("--ckpt_minutes", type=float, default=10)
    p.add_argument("--max_minutes", type=float, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--export", default="", help="write the trained encoder as ONNX here and exit")
    p.add_argument("--manifest", default="", help="with --export: the recognizer's manifest.json to list it in")
    p.add_argument("--eval", default="", help="with --manifest: evaluate.py output on features of this encoder")
    p.add_argument("--base_eval", default="", help="with --manifest: the same regions read with the base backbone")
    p.add_argument("--image_eval", default="", help="with --manifest: evaluate.py output on the image path's crops of those regions")
    return p.parse_args(argv)


def load_samples(dirs, task, tok, max_target):
    out = []
    for d in [x for x in dirs.split(",") if x]:
        for s in read_strips(d):
            if s["task"] != task:
                continue
            ids = tok.encode(s["target"])
            if 0 < len(ids) <= max_target:
                out.append(dict(s, ids=ids, task_id=tok.task_ids[task]))
    return out


def encode(backbone, sample, device="cpu"):
    """-> (rows, vision_dim) features of all strips of one region, with autograd."""
    return torch.cat([backbone(to_input(a)[None].to(device))[0] for a in sample["strips"]], 0)


def batch_loss(decoder, backbone, samples, rng, jitter=True, device="cpu"):
    feats = [encode(backbone, s, device) for s in samples]
    items = [{"feats": np.zeros((f.shape[0], f.shape[1]), np.float16),
              "strips": [a.shape[2] // (8 * (a.shape[1] // 48)) for a in s["strips"]],
              "task_id": s["task_id"], "ids": s["ids"], "task": s["task"]} for s, f in zip(samples, feats)]
    for it, f in zip(items, feats):
        if sum(it["strips"]) != f.shape[0]:
            raise ValueError(f"backbone gave {f.shape[0]} rows for strips of {it['strips']} columns/8")
    bt = gravity.collate(items, decoder.cfg, rng, jitter=jitter, with_ctc=False)
    vis = bt["is_vis"]
    b_idx, p_idx = torch.nonzero(vis, as_tuple=True)  # row-major: sample by sample, rows in order
    bt["feats"] = torch.zeros(bt["feats"].shape, device=device).index_put(
        (b_idx.to(device), p_idx.to(device)), torch.cat(feats, 0))
    return gravity.gravity_loss(decoder, bt, lam=1.0, device=device)


def init_encoder(backbone, path):
    """Load the encoder to start from into `backbone` (at that encoder's input scale): another
    run's ckpt.pt, or an exported ONNX (e.g. the committed public/models/<id>/vision-formula.onnx,
    so a fresh machine continues the shipped encoder). -> (its training state, its input scale)."""
    if path.endswith(".onnx"):
        exp = PPOCRBackbone.from_onnx(path)
        state = {}
        man = os.path.join(os.path.dirname(path), "manifest.json")
        if os.path.exists(man):
            with open(man) as f:
                entries = json.load(f).get("vision_tasks", {}).values()
            state = next((dict(e["training"]) for e in entries if e.get("file") == os.path.basename(path)), {})
        for k in ("batch", "lr", "train_strips"):
            state.pop(k, None)
        scale, groups, weights = exp.input_scale, exp.pool_groups, exp.state_dict()
    else:
        ck0 = load_ckpt(path)
        state, scale, weights = ck0["state"], ck0["args"].get("scale", 1), ck0["backbone"]
        groups = ck0["args"].get("pool_groups", 0)
    backbone.upscale_stem(scale).learn_pool(groups).load_state_dict(weights)
    return state, scale


def export_onnx(backbone, path, base=BASE_ONNX):
    """The base ONNX graph with the trained tensors in place of its constants (same ops, so
    onnxruntime runs it exactly like the backbone it came from)."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(base)
    params = dict(backbone.named_parameters())

    def trained(name, old):
        key = backbone.names.get(name)
        if key not in params:
            return None
        return numpy_helper.from_array(params[key].detach().cpu().numpy().astype(numpy_helper.to_array(old).dtype), old.name)

    # a widened stem (upscale_stem): the first Conv's attributes and the input height change too
    attrs = {nd["outputs"][0]: nd["attrs"] for nd in backbone.graph["nodes"] if nd["op"] == "Conv"}
    for node in m.graph.node:
        if node.op_type == "Conv":
            for at in node.attribute:
                if at.name in ("kernel_shape", "strides", "pads") and list(at.ints) != attrs[node.output[0]][at.name]:
                    del at.ints[:]
                    at.ints.extend(attrs[node.output[0]][at.name])
    m.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 48 * backbone.input_scale
    n = 0
    for init in m.graph.initializer:
        t = trained(init.name, init)
        if t is not None:
            init.CopyFrom(t)
            n += 1
    for node in m.graph.node:
        if node.op_type == "Constant":
            for at in node.attribute:
                if at.name == "value":
                    t = trained(node.output[0], at.t)
                    if t is not None:
                        at.t.CopyFrom(t)
                        n += 1
    if backbone.pool_groups:  # learn_pool: the AveragePool becomes a grouped Conv with a new weight
        conv = next(nd for nd in backbone.graph["nodes"] if nd["op"] == "Conv" and nd["inputs"][1] == backbone.POOL_W)
        i, old = next((i, nd) for i, nd in enumerate(m.graph.node)
                      if nd.op_type == "AveragePool" and list(nd.output) == conv["outputs"])
        m.graph.node.remove(old)
        m.graph.node.insert(i, onnx.helper.make_node("Conv", [old.input[0], backbone.POOL_W], list(old.output),
                                                     name=old.name or None, **conv["attrs"]))
        m.graph.initializer.append(numpy_helper.from_array(
            params[backbone.names[backbone.POOL_W]].detach().cpu().numpy().astype(np.float32), backbone.POOL_W))
        n += 1
    if n != len(params):
        raise ValueError(f"{n} of {len(params)} trained tensors found in the ONNX graph")
    m.doc_string = "PP-OCRv4 rec backbone fine-tuned for one task by training/train_vision.py"
    tmp = path + ".tmp"
    onnx.save(m, tmp)
    os.replace(tmp, path)
    return n


@torch.no_grad()
def write_golden(backbone, path, onnx_path, widths=(64, 100, 168)):
    """The port's features on fixed inputs: the ONNX export must give the same (src test).
    Widths and height are those of a 48-px strip times the encoder's input scale."""
    cases = []
    s = backbone.input_scale
    for w in widths:
        y = backbone(torch.from_numpy(golden_input(w * s, height=48 * s))).numpy()
        cases.append({"width": w * s, "height": 48 * s, "dims": list(y.shape),
                      "features": [round(float(v), 6) for v in y.ravel()]})
    with open(path, "w") as f:
        json.dump({"model": os.path.basename(onnx_path), "source": "PyTorch port (training/gocr/ppocr.py)",
                   "formula": "sin(0.37*w + 0.11*h*(c+1) + n) * 0.9", "cases": cases}, f)
        f.write("\n")


def update_manifest(manifest, onnx_path, golden_path, ck, n_params, eval_path="", base_eval_path="", image_eval_path=""):
    """Lists the encoder (sha256, size) in the recognizer's manifest with how it was trained and,
    when given, its val metrics beside the base backbone's on the same regions (`val`: the PDF
    path's crops; `val_image_path`: the same regions as the app reads them from an image)."""
    from export import read_entry
    with open(manifest) as f:
        man = json.load(f)
    if os.path.dirname(os.path.abspath(onnx_path)) != os.path.dirname(os.path.abspath(manifest)):
        raise ValueError("the task encoder must be exported into the recognizer's folder")
    for p in (onnx_path, golden_path):
        man["files"][os.path.basename(p)] = {"sha256": sha256(p), "size": os.path.getsize(p)}
    args = ck["args"]
    entry = {"file": os.path.basename(onnx_path), "golden": os.path.basename(golden_path),
             "base": "vision/ppocr-v4-rec-backbone.onnx", "task": args["task"],
             "recipe": "training/train_vision.py: base backbone fine-tuned through the frozen decoder "
                       "(GravityOCR joint loss, AR + diffusion, lambda 1); BN statistics kept",
             "params": int(n_params), "input_scale": int(args.get("scale", 1)),
             "pool_groups": int(args.get("pool_groups", 0)),
             "training": dict(ck["state"], batch=args["batch"], lr=args["lr"], train_strips=args["strips"])}
    if image_eval_path:
        entry["val_paths"] = {
            "val": "PDF path: formula crops of the val pages rendered at 300 dpi (what the app re-renders from a PDF)",
            "val_image_path": "image path: the same regions cropped from 150-dpi pages, upsampled 2x"}
    if entry["pool_groups"]:
        entry["recipe"] += (f"; the average pooling of the last 3 feature rows replaced by a learned grouped conv "
                            f"({entry['pool_groups']} groups, initialised to that average; PPOCRBackbone.learn_pool)")
    for key, path in (("val", eval_path), ("val_base_backbone", base_eval_path), ("val_image_path", image_eval_path)):
        if path:
            with open(path) as f:
                ev = json.load(f)
            entry[key] = read_entry(ev, args["task"])
    man.setdefault("vision_tasks", {})[args["task"]] = entry
    tmp = manifest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(man, f, indent=1)
        f.write("\n")
    os.replace(tmp, manifest)


def main(argv=None):
    a = parse(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    os.makedirs(a.run, exist_ok=True)
    ckpt = os.path.join(a.run, "ckpt.pt")
    logf = open(os.path.join(a.run, "train.log"), "a", buffering=1)

    def log(msg):
        line = time.strftime("%H:%M:%S ") + msg
        print(line, flush=True)
        logf.write(line + "\n")

    backbone = PPOCRBackbone.load(a.backbone)
    ck = load_ckpt(ckpt) if os.path.exists(ckpt) else None
    if ck is not None:
        a.scale = ck["args"].get("scale", 1)  # a run keeps the input scale it started with
        a.pool_groups = ck["args"].get("pool_groups", 0)
        backbone.upscale_stem(a.scale).learn_pool(a.pool_groups).load_state_dict(ck["backbone"])
        a.decoder = ck["decoder"]
    elif a.init:
        state0, _ = init_encoder(backbone, a.init)
        backbone.upscale_stem(a.scale)  # a scale-1 encoder widened exactly; else the scales must match
        a.pool_groups = backbone.learn_pool(a.pool_groups).pool_groups  # the run records what it trains
        init_state = dict(state0, run=a.init if a.init.endswith(".onnx") else os.path.dirname(a.init))
    else:
        backbone.upscale_stem(a.scale).learn_pool(a.pool_groups)
    if a.export:
        if ck is None:
            raise SystemExit(f"{ckpt}: no checkpoint to export")
        n = export_onnx(backbone, a.export)
        golden = os.path.splitext(a.export)[0] + ".golden.json"
        write_golden(backbone, golden, a.export)
        log(f"exported {n} tensors (step {ck['state']['step']}) -> {a.export}; PyTorch features -> {golden}")
        if a.manifest:
            update_manifest(a.manifest, a.export, golden, ck, sum(p.numel() for p in backbone.parameters()),
                            a.eval, a.base_eval, a.image_eval)
            log(f"listed in {a.manifest}")
        return
    tok = Tokenizer.load(a.vocab)
    decoder, _ = load_exported(a.decoder, map_location=a.device)
    backbone.to(a.device)
    decoder.eval()
    for p in decoder.parameters():
        p.requires_grad_(False)
    train = load_samples(a.strips, a.task, tok, a.max_target)
    val = load_samples(a.val_strips, a.task, tok, a.max_target)[:a.val_n]
    if not train:
        raise SystemExit(f"no {a.task} samples in {a.strips!r}")
    params = [p for p in backbone.parameters()]
    pool_key = backbone.names.get(backbone.POOL_W)
    groups = [{"params": params, "lr_mult": 1.0}]
    # the learned pooling starts at the average and moves ~lr per step: it may get a larger rate
    # (in a group of its own, unless this run was saved with one group)
    if pool_key and not (ck is not None and len(ck["opt"]["param_groups"]) == 1):
        groups = [{"params": [p for k, p in backbone.named_parameters() if k != pool_key], "lr_mult": 1.0},
                  {"params": [getattr(backbone, pool_key)], "lr_mult": a.pool_lr_mult}]
    opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.98), weight_decay=a.wd)
    state = {"step": 0, "samples": 0, "train_seconds": 0.0}
    if ck is None and a.init:
        state["init"] = init_state  # the segment(s) this run continues
    if ck is not None:
        opt.load_state_dict(ck["opt"])
        state = ck["state"]
        log(f"resumed {ckpt} at step {state['step']}")
    log(f"decoder {a.decoder} (frozen) | encoder params {sum(p.numel() for p in params)} | "
        f"train {len(train)} {a.task} regions | val {len(val)}")

    def save():
        tmp = ckpt + ".tmp"
        torch.save({"backbone": backbone.state_dict(), "opt": opt.state_dict(), "state": state,
                    "decoder": a.decoder, "args": vars(a)}, tmp)
        os.replace(tmp, ckpt)
        log(f"checkpoint step {state['step']} -> {ckpt}")

    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))

    @torch.no_grad()
    def val_loss():
        rng = np.random.default_rng(123)
        logs = [batch_loss(decoder, backbone, val[i:i + 8], rng, jitter=False, device=a.device)[1] for i in range(0, len(val), 8)]
        return {k: float(np.mean([x[k] for x in logs])) for k in ("ar", "diff", "loss")}

    if val and state["step"] == 0:
        log(f"val step 0 {json.dumps(val_loss())}")
    rng = np.random.default_rng(a.seed * 7919 + state["step"])
    t_start, t_ck = time.time(), time.time()
    t_seg = state["train_seconds"]
    while state["step"] < a.steps and not stop["now"]:
        if a.max_minutes and time.time() - t_start > a.max_minutes * 60:
            log("max_minutes reached")
            break
        for g in opt.param_groups:
            g["lr"] = lr_at(state["step"], a) * g.get("lr_mult", 1.0)
        idx = rng.choice(len(train), size=min(a.batch, len(train)), replace=False)
        loss, lg = batch_loss(decoder, backbone, [train[int(i)] for i in idx], rng, device=a.device)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = float(torch.nn.utils.clip_grad_norm_(params, a.clip))
        opt.step()
        state["step"] += 1
        state["samples"] += len(idx)
        state["train_seconds"] = t_seg + time.time() - t_start
        if state["step"] % 20 == 0:
            log(f"step {state['step']} lr {lr_at(state['step'], a):.2e} loss {lg['loss']:.3f} ar {lg['ar']:.3f} "
                f"diff {lg['diff']:.3f} gn {gn:.2f} | {state['step'] / max(1e-9, state['train_seconds']):.2f} step/s")
        if val and state["step"] % a.eval_every == 0:
            log(f"val step {state['step']} {json.dumps(val_loss())}")
        if time.time() - t_ck > a.ckpt_minutes * 60:
            save()
            t_ck = time.time()
    save()


if __name__ == "__main__":
    main()
