"""Minimal safetensors reader/writer (float32/int64 tensors) for the layout weights."""
import json
import struct

import numpy as np
import torch

_DT = {"F32": np.float32, "I64": np.int64, "F16": np.float16}
_NAME = {np.dtype(v): k for k, v in _DT.items()}


def save(path, tensors, metadata=None):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        a = tensors[name].detach().cpu().contiguous().numpy() if torch.is_tensor(tensors[name]) else np.asarray(tensors[name])
        a = np.ascontiguousarray(a)
        b = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _NAME[a.dtype], "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load(path):
    """-> (dict name -> torch tensor, metadata dict)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    out = {}
    for name, info in header.items():
        a, b = info["data_offsets"]
        arr = np.frombuffer(data[a:b], dtype=np.dtype(_DT[info["dtype"]]).newbyteorder("<")).reshape(info["shape"])
        out[name] = torch.from_numpy(arr.astype(_DT[info["dtype"]]))
    return out, meta
