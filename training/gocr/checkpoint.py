"""Checkpoints (training/runs/<run>/ckpt.pt) and initialisation from an exported model folder."""
import hashlib
import json
import os

import torch

from .model import GOCRConfig, GravityOCR
from .safetensors import load_file


def file_sha256(path):
    """sha256 of a file (manifests, feature provenance), read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_ckpt(path, model, opt, state, args):
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "state": state,
                "config": json.loads(model.cfg.to_json()), "args": args}, tmp)
    os.replace(tmp, path)


def load_ckpt(path, map_location="cpu"):
    try:  # PyTorch >= 2.6 defaults to weights_only=True; our checkpoints hold plain python state too
        return torch.load(path, map_location=map_location, weights_only=False)
    except TypeError:  # PyTorch 1.13
        return torch.load(path, map_location=map_location)


def load_exported(model_dir, ctc_head=False, map_location="cpu"):
    """public/models/<id>/ (config.json + model.safetensors) -> GravityOCR (fp32)."""
    cfg = GOCRConfig.load(os.path.join(model_dir, "config.json"))
    model = GravityOCR(cfg, ctc_head=ctc_head)
    sd, meta = load_file(os.path.join(model_dir, "model.safetensors"), dtype=torch.float32)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    missing = [k for k in missing if not k.startswith("ctc_head.")]
    if missing or unexpected:
        raise ValueError(f"{model_dir}: weights do not match config (missing {missing[:5]}, "
                         f"unexpected {unexpected[:5]}); re-run training/export.py")
    return model.to(map_location), meta


def model_from_ckpt(path, ctc_head=False, map_location="cpu"):
    ck = load_ckpt(path, map_location)
    cfg = GOCRConfig.from_dict(ck["config"])
    model = GravityOCR(cfg, ctc_head=ctc_head)
    sd = ck["model"]
    if not ctc_head:
        sd = {k: v for k, v in sd.items() if not k.startswith("ctc_head.")}
    model.load_state_dict(sd, strict=ctc_head)
    return model, ck
