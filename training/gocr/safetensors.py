"""Minimal safetensors reader/writer (no pip package here): 8-byte little-endian header length,
a JSON header {name: {dtype, shape, data_offsets:[begin,end]}, "__metadata__": {str: str}}, then
the raw little-endian tensor bytes. Header is padded with spaces to a multiple of 8 bytes."""
import json
import struct

import numpy as np
import torch

_DT = {torch.float32: ("F32", np.float32), torch.float16: ("F16", np.float16),
       torch.int64: ("I64", np.int64), torch.int32: ("I32", np.int32), torch.uint8: ("U8", np.uint8)}
_NP = {v[0]: v[1] for v in _DT.values()}


def save_file(tensors, path, metadata=None):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            raise ValueError("bf16 not supported here; cast to f16/f32")
        code, npdt = _DT[t.dtype]
        b = t.numpy().astype(npdt, copy=False).astype(np.dtype(npdt).newbyteorder("<")).tobytes()
        header[name] = {"dtype": code, "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for b in blobs:
            f.write(b)


def load_file(path, dtype=None):
    """-> (dict name -> torch tensor, metadata dict). dtype casts floating tensors if given."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    base = 8 + n
    out = {}
    for name, h in header.items():
        b, e = h["data_offsets"]
        npdt = np.dtype(_NP[h["dtype"]]).newbyteorder("<")
        arr = np.frombuffer(data, dtype=npdt, count=(e - b) // npdt.itemsize, offset=base + b)
        t = torch.from_numpy(arr.astype(npdt.newbyteorder("="), copy=True)).reshape(h["shape"])
        if dtype is not None and t.is_floating_point():
            t = t.to(dtype)
        out[name] = t
    return out, meta
