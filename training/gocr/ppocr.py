"""The PP-OCRv4 text-line backbone (public/models/vision/ppocr-v4-rec-backbone.onnx) as a PyTorch module.

The ONNX graph (opset 9, 761 nodes, weights as Constant nodes) is run node by node with torch ops,
so the same features come out (`training/tests/ppocr_golden.json`, made with onnxruntime-node by
tools/vision/ppocr_golden.ts, checks it to 1e-4) and the weights can be fine-tuned: convolution,
MatMul and norm weights become parameters, BatchNorm statistics buffers.

  PYTHONPATH=training python3 -m gocr.ppocr --out data/ppocr.pt          # from the repo root
  m = PPOCRBackbone.load("data/ppocr.pt")      # no onnx package needed (a GPU machine may lack it)
  feats = m(x)                                 # x (N, 3, 48, W) float, (v/255 - 0.5)/0.5 -> (N, W//8, 120)

Only the ops this graph uses are implemented; another graph fails with the op's name.
"""
import argparse
import os
import re

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .checkpoint import load_ckpt

_DTYPES = {1: torch.float32, 6: torch.int32, 7: torch.int64, 9: torch.bool, 11: torch.float64}


def golden_input(width, n=0, height=48):
    """Golden backbone input: x[n][c][h][w] = sin(0.37·w + 0.11·h·(c + 1) + n) · 0.9, as
    tools/vision/ppocr_golden.ts computes it (1×3×height×width float32)."""
    c, h, w = np.meshgrid(np.arange(3), np.arange(height), np.arange(width), indexing="ij")
    return (np.sin(0.37 * w + 0.11 * h * (c + 1) + n) * 0.9).astype(np.float32)[None]


def _param_name(s):
    return "t_" + re.sub(r"[^0-9A-Za-z_]", "_", s)


class PPOCRBackbone(nn.Module):
    def __init__(self, graph, tensors):
        """graph: {"input", "output", "nodes": [{"op", "inputs", "outputs", "attrs"}]};
        tensors: {constant name: np.ndarray}."""
        super().__init__()
        self.graph = graph
        buffers = set()
        for n in graph["nodes"]:
            if n["op"] == "BatchNormalization":
                buffers.update(n["inputs"][3:5])
        self.names = {}
        self.small = {}
        for k, v in tensors.items():
            t = torch.from_numpy(np.array(v))
            key = _param_name(k)
            self.names[k] = key
            if t.is_floating_point() and t.numel() > 1 and k not in buffers:
                self.register_parameter(key, nn.Parameter(t.float()))
            elif t.is_floating_point() or t.numel() > 64:
                self.register_buffer(key, t)
            else:
                self.small[k] = t  # shape arithmetic: stays on the CPU

    @staticmethod
    def from_onnx(path):
        import onnx
        from onnx import helper, numpy_helper
        m = onnx.load(path)
        nodes, tensors = [], {}
        for init in m.graph.initializer:
            tensors[init.name] = numpy_helper.to_array(init)
        for n in m.graph.node:
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            if n.op_type == "Constant":
                tensors[n.output[0]] = numpy_helper.to_array(attrs["value"])
                continue
            attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in attrs.items()}
            nodes.append({"op": n.op_type, "inputs": list(n.input), "outputs": list(n.output),
                          "attrs": {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in attrs.items()}})
        graph = {"input": m.graph.input[0].name, "output": m.graph.output[0].name, "nodes": nodes}
        # an encoder exported at input scale s (train_vision.py) declares a fixed height of s·48
        h = m.graph.input[0].type.tensor_type.shape.dim[2].dim_value
        if h and h != 48:
            if h % 48:
                raise ValueError(f"{path}: input height {h} is not a multiple of 48")
            graph["input_scale"] = h // 48
        return PPOCRBackbone(graph, tensors)

    def save(self, path):
        params = [k for k, _ in self.named_parameters()]
        torch.save({"graph": self.graph, "names": self.names, "small": self.small, "params": params,
                    "state": self.state_dict()}, path)

    @staticmethod
    def load(path):
        """A module saved by `save` (no onnx package needed)."""
        st = load_ckpt(path)
        m = PPOCRBackbone.__new__(PPOCRBackbone)
        nn.Module.__init__(m)
        m.graph, m.names, m.small = st["graph"], st["names"], st["small"]
        params = set(st["params"])
        for k, key in m.names.items():
            if k in m.small:
                continue
            t = st["state"][key]
            if key in params:
                m.register_parameter(key, nn.Parameter(t))
            else:
                m.register_buffer(key, t)
        return m

    @property
    def input_scale(self):
        return self.graph.get("input_scale", 1)

    def upscale_stem(self, s):
        """Make the backbone take strips s times larger (s·48 high, s·W wide) and give the same W/8
        rows: the first convolution (k×k, stride 2, pad p) becomes (s·k)×(s·k), stride 2s, pad s·p,
        with each weight spread over an s×s block divided by s². On an input that is the s×
        upscale of a 48-px strip it computes exactly what the original did on that strip (an
        s×s box-filter downscale folded into the convolution), so training starts from the
        trained encoder and can learn what the sharper pixels add. Idempotent per scale."""
        if s == self.input_scale:
            return self
        if self.input_scale != 1 or s < 1:
            raise ValueError(f"upscale_stem: the stem is at scale {self.input_scale}, asked for {s}")
        stem = next(n for n in self.graph["nodes"] if n["op"] == "Conv" and n["inputs"][0] == self.graph["input"])
        at = stem["attrs"]
        k, st, pads = at["kernel_shape"], at.get("strides", [1, 1]), at.get("pads", [0, 0, 0, 0])
        if len(stem["inputs"]) > 2 or at.get("group", 1) != 1 or list(at.get("dilations", [1, 1])) != [1, 1]:
            raise ValueError("upscale_stem: the first convolution must be a plain conv without bias")
        key = self.names[stem["inputs"][1]]
        w = getattr(self, key).detach()
        w2 = w.repeat_interleave(s, 2).repeat_interleave(s, 3) / (s * s)
        delattr(self, key)
        self.register_parameter(key, nn.Parameter(w2.contiguous()))
        # the graph dict may be shared with another module loaded from the same file: copy it
        nodes = [dict(n, attrs=dict(n["attrs"])) if n is stem else n for n in self.graph["nodes"]]
        new = nodes[self.graph["nodes"].index(stem)]["attrs"]
        new["kernel_shape"] = [v * s for v in k]
        new["strides"] = [v * s for v in st]
        new["pads"] = [v * s for v in pads]
        self.graph = dict(self.graph, nodes=nodes, input_scale=s)
        return self

    POOL_W = "gocr.pool.w"

    @property
    def pool_groups(self):
        """0 for the backbone's own average pooling of the last feature map, else the group count of
        the learned pooling convolution that `learn_pool` put in its place."""
        n = next((n for n in self.graph["nodes"] if n["op"] == "Conv" and n["inputs"][1:2] == [self.POOL_W]), None)
        return n["attrs"]["group"] if n else 0

    def learn_pool(self, groups):
        """Replace the height-collapsing AveragePool ([3, 2] over the last 3-row map, before the
        neck) by a grouped convolution of the same kernel and stride, initialised to that average
        (each output channel: 1/6 on its own input channel), so the output is unchanged at step 0.
        Trained, it can weigh the top, middle and bottom thirds of the strip differently per channel
        and mix channels within a group: where a symbol sits (superscript, fraction bar, subscript)
        can then reach the one feature row per column the decoder reads. Idempotent per group
        count; groups = 0 leaves the module as it is."""
        if not groups or groups == self.pool_groups:
            return self
        if self.pool_groups:
            raise ValueError(f"learn_pool: the pooling is already learned with {self.pool_groups} groups, asked for {groups}")
        pools = [n for n in self.graph["nodes"] if n["op"] == "AveragePool"]
        if len(pools) != 1 or pools[0]["attrs"]["kernel_shape"] != [3, 2]:
            raise ValueError("learn_pool: expected one [3, 2] AveragePool in the graph")
        pool = pools[0]
        if any(pool["attrs"].get("pads", [0, 0, 0, 0])):
            raise ValueError("learn_pool: a padded AveragePool is not supported")
        nxt = next(n for n in self.graph["nodes"] if pool["outputs"][0] in n["inputs"])
        c = self._get({}, nxt["inputs"][1]).shape[1]  # channels the neck's first convolution reads
        if c % groups:
            raise ValueError(f"learn_pool: {c} channels do not split into {groups} groups")
        kh, kw = pool["attrs"]["kernel_shape"]
        w = torch.zeros(c, c // groups, kh, kw)
        w[torch.arange(c), torch.arange(c) % (c // groups)] = 1.0 / (kh * kw)
        self.names[self.POOL_W] = _param_name(self.POOL_W)
        self.register_parameter(self.names[self.POOL_W], nn.Parameter(w))
        conv = {"op": "Conv", "inputs": [pool["inputs"][0], self.POOL_W], "outputs": list(pool["outputs"]),
                "attrs": {"kernel_shape": [kh, kw], "strides": list(pool["attrs"].get("strides", [kh, kw])),
                          "pads": [0, 0, 0, 0], "group": groups}}
        nodes = [conv if n is pool else n for n in self.graph["nodes"]]
        self.graph = dict(self.graph, nodes=nodes)
        return self

    def _get(self, env, name):
        if name in env:
            return env[name]
        if name in self.small:
            return self.small[name]
        return getattr(self, self.names[name])

    def forward(self, x):
        env = {self.graph["input"]: x}
        for n in self.graph["nodes"]:
            ins = [self._get(env, i) if i else None for i in n["inputs"]]
            out = _run(n["op"], n["attrs"], ins)
            env[n["outputs"][0]] = out
        return env[self.graph["output"]]


def _pads(x, pads):
    """ONNX [x1_begin, x2_begin, x1_end, x2_end] -> symmetric conv padding or an explicit F.pad."""
    t, l, b, r = pads
    if t == b and l == r:
        return x, (t, l)
    return F.pad(x, (l, r, t, b)), (0, 0)


def _run(op, a, ins):
    if op == "Conv":
        x, w = ins[0], ins[1]
        bias = ins[2] if len(ins) > 2 else None
        x, pad = _pads(x, a.get("pads", [0, 0, 0, 0]))
        return F.conv2d(x, w, bias, tuple(a.get("strides", [1, 1])), pad, tuple(a.get("dilations", [1, 1])),
                        a.get("group", 1))
    if op == "BatchNormalization":
        x, s, b, mean, var = ins
        return F.batch_norm(x, mean, var, s, b, False, 0.0, a.get("epsilon", 1e-5))
    if op in ("Add", "Sub", "Mul", "Div", "Pow"):
        x, y = ins
        if op == "Add":
            return x + y
        if op == "Sub":
            return x - y
        if op == "Mul":
            return x * y
        if op == "Div":
            return x / y if x.is_floating_point() or y.is_floating_point() else torch.div(x, y, rounding_mode="trunc")
        return torch.pow(x, y)
    if op == "Clip":
        return torch.clamp(ins[0], a.get("min", -3.4e38), a.get("max", 3.4e38))
    if op == "Relu":
        return F.relu(ins[0])
    if op == "Sigmoid":
        return torch.sigmoid(ins[0])
    if op == "HardSigmoid":
        return torch.clamp(a.get("alpha", 0.2) * ins[0] + a.get("beta", 0.5), 0.0, 1.0)
    if op == "Sqrt":
        return torch.sqrt(ins[0])
    if op == "MatMul":
        return torch.matmul(ins[0], ins[1])
    if op == "Softmax":
        x, axis = ins[0], a.get("axis", 1)
        axis = axis % x.dim()
        if axis != x.dim() - 1:  # opset < 13: softmax over the flattened dims from `axis` on
            shp = x.shape
            return torch.softmax(x.reshape(*shp[:axis], -1), -1).reshape(shp)
        return torch.softmax(x, -1)
    if op == "ReduceMean":
        return ins[0].mean(dim=tuple(a["axes"]), keepdim=bool(a.get("keepdims", 1)))
    if op == "GlobalAveragePool":
        return ins[0].mean(dim=(2, 3), keepdim=True)
    if op == "AveragePool":
        x, pad = _pads(ins[0], a.get("pads", [0, 0, 0, 0]))
        return F.avg_pool2d(x, tuple(a["kernel_shape"]), tuple(a.get("strides", a["kernel_shape"])), pad,
                            bool(a.get("ceil_mode", 0)), bool(a.get("count_include_pad", 0)))
    if op == "Transpose":
        return ins[0].permute(*a["perm"])
    if op == "Identity":
        return ins[0]
    if op == "Shape":
        return torch.tensor(list(ins[0].shape), dtype=torch.int64)
    if op == "Cast":
        return ins[0].to(_DTYPES[a["to"]])
    if op == "Slice":  # opset 9: attributes
        x = ins[0]
        idx = [slice(None)] * x.dim()
        for ax, s, e in zip(a.get("axes", range(len(a["starts"]))), a["starts"], a["ends"]):
            idx[ax] = slice(s, min(e, x.shape[ax]))
        return x[tuple(idx)]
    if op == "Squeeze":
        x = ins[0]
        for ax in sorted((ax % x.dim() for ax in a["axes"]), reverse=True):
            x = x.squeeze(ax)
        return x
    if op == "Concat":
        xs = ins
        if not xs[0].is_floating_point():
            xs = [t.to(torch.int64).reshape(-1) if t.dim() == 0 else t.to(torch.int64) for t in xs]
        return torch.cat(xs, a["axis"])
    if op == "Reshape":
        x, shape = ins
        shape = [int(v) for v in shape.tolist()]
        shape = [x.shape[i] if v == 0 else v for i, v in enumerate(shape)]
        return x.reshape(shape)
    raise NotImplementedError(f"ONNX op {op} is not implemented in gocr/ppocr.py")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "public",
                                                   "models", "vision", "ppocr-v4-rec-backbone.onnx"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    m = PPOCRBackbone.from_onnx(a.onnx)
    m.save(a.out)
    n = sum(p.numel() for p in m.parameters())
    print(f"{a.out}: {len(m.graph['nodes'])} nodes, {n} trainable parameters")


if __name__ == "__main__":
    main()
