"""ONNX export of the decoder with its KV cache as inputs/outputs (for the onnxruntime-web peer).

  /usr/bin/python3 training/export_onnx.py --model public/models/<id> [--out decoder.onnx] [--f32]

The graph is one causal step over a window of S new rows after T cached rows (contract in
docs/ARCHITECTURE.md "decoder.onnx"):
  inputs   inputs_embeds [B, S, d] float32     (token rows = embed[id]; prefix image rows =
                                                 vision_proj(features), done by the caller)
           position_ids  [B, S]    int64
           past_k, past_v [L, B, H, T, hd] float32   (T may be 0)
  outputs  logits        [B, S, V] float32
           present_k, present_v [L, B, H, T+S, hd] float32
Row i of the window attends to every cached row and to window rows <= i. Weights are taken from
the exported model.safetensors (fp16 there is widened to fp32 first), so the graph is the same
model the WGSL runtime runs. By default large weights are stored as float16 initializers followed
by a Cast to float32 (half the file; the arithmetic stays fp32); --f32 keeps them fp32.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gocr.checkpoint import load_exported  # noqa: E402
from gocr.model import apply_rope  # noqa: E402

INPUTS = ["inputs_embeds", "position_ids", "past_k", "past_v"]
OUTPUTS = ["logits", "present_k", "present_v"]


class DecoderStep(nn.Module):
    """The decoder stack of a GravityOCR model as a KV-cached causal step."""

    def __init__(self, model):
        super().__init__()
        self.m = model
        self.h, self.hd = model.cfg.n_heads, model.cfg.head_dim

    def forward(self, x, pos, past_k, past_v):
        B, S, _ = x.shape
        T = past_k.shape[3]
        cos = self.m.rope_cos[pos][:, None]  # (B, 1, S, hd/2)
        sin = self.m.rope_sin[pos][:, None]
        # window row i sees cache rows (j < T) and window rows j - T <= i
        qi = torch.arange(S, device=x.device)[:, None] + T
        kj = torch.arange(T + S, device=x.device)[None, :]
        neg = torch.zeros(S, T + S, dtype=x.dtype, device=x.device).masked_fill(kj > qi, float("-inf"))
        ks, vs = [], []
        for li, layer in enumerate(self.m.layers):
            a = layer.attn
            hn = layer.attn_norm(x)
            q = a.wq(hn).view(B, S, self.h, self.hd).transpose(1, 2)
            k = a.wk(hn).view(B, S, self.h, self.hd).transpose(1, 2)
            v = a.wv(hn).view(B, S, self.h, self.hd).transpose(1, 2)
            q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
            k = torch.cat([past_k[li], k], dim=2)
            v = torch.cat([past_v[li], v], dim=2)
            ks.append(k)
            vs.append(v)
            att = (q * (1.0 / math.sqrt(self.hd))) @ k.transpose(-1, -2) + neg
            y = att.softmax(-1) @ v
            x = x + a.wo(y.transpose(1, 2).reshape(B, S, self.h * self.hd))
            x = x + layer.mlp(layer.mlp_norm(x))
        logits = self.m.lm_head(self.m.norm(x))
        return logits, torch.stack(ks), torch.stack(vs)


def example_inputs(cfg, B=1, S=3, T=2):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(B, S, cfg.d_model, generator=g)
    pos = (torch.arange(S)[None, :] + T).repeat(B, 1)
    pk = torch.randn(cfg.n_layers, B, cfg.n_heads, T, cfg.head_dim, generator=g)
    pv = torch.randn(cfg.n_layers, B, cfg.n_heads, T, cfg.head_dim, generator=g)
    return x, pos, pk, pv


def halve_initializers(path, min_elems=1024):
    """Store float initializers with >= min_elems values as float16 + Cast(to float)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    m = onnx.load(path)
    g = m.graph
    keep, casts = [], []
    for init in g.initializer:
        arr = numpy_helper.to_array(init)
        if init.data_type == TensorProto.FLOAT and arr.size >= min_elems:
            h = numpy_helper.from_array(arr.astype("float16"), init.name + "__f16")
            keep.append(h)
            casts.append(helper.make_node("Cast", [h.name], [init.name], to=TensorProto.FLOAT,
                                          name=init.name + "__cast"))
        else:
            keep.append(init)
    del g.initializer[:]
    g.initializer.extend(keep)
    nodes = casts + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    onnx.checker.check_model(m)
    onnx.save(m, path)


def export_decoder_onnx(model_dir, out=None, f16_weights=True, opset=17):
    model, _ = load_exported(model_dir)
    model.eval()
    out = out or os.path.join(model_dir, "decoder.onnx")
    step = DecoderStep(model)
    args = example_inputs(model.cfg)
    dyn = {"inputs_embeds": {0: "batch", 1: "window"}, "position_ids": {0: "batch", 1: "window"},
           "past_k": {1: "batch", 3: "past"}, "past_v": {1: "batch", 3: "past"},
           "logits": {0: "batch", 1: "window"},
           "present_k": {1: "batch", 3: "total"}, "present_v": {1: "batch", 3: "total"}}
    with torch.no_grad():
        torch.onnx.export(step, args, out, input_names=INPUTS, output_names=OUTPUTS,
                          dynamic_axes=dyn, opset_version=opset, do_constant_folding=True)
    if f16_weights:
        halve_initializers(out)
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True, help="public/models/<id>")
    p.add_argument("--out", default="")
    p.add_argument("--f32", action="store_true", help="keep weights fp32 in the file")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    path = export_decoder_onnx(a.model, a.out or None, f16_weights=not a.f32)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
