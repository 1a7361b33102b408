"""safetensors round trip, export folder contents, golden vectors replayable from the files."""
import hashlib
import importlib.util
import json
import os
import struct
import tempfile
import unittest

import numpy as np
import torch

from gocr import decode, fake_data
from gocr.checkpoint import load_exported
from gocr.data import PackedFeatures
from gocr.model import GOCRConfig, GravityOCR
from gocr.safetensors import load_file, save_file
from gocr.tokenizer import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


def _bytes(p):
    with open(p, "rb") as f:
        return f.read()


def _json(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


class ExportTest(unittest.TestCase):
    def test_training_record_segments(self):
        from export import training_record
        a = {"step": 1522, "tokens": 100, "samples": 10, "train_seconds": 50.0}
        b = {"step": 2900, "tokens": 300, "samples": 30, "train_seconds": 70.0}
        self.assertEqual(training_record(b), b)
        two = training_record(b, a)
        self.assertEqual(two["step"], 4422)
        self.assertEqual(two["train_seconds"], 120.0)
        self.assertEqual(two["segments"], [a, b])
        three = training_record({"step": 1, "tokens": 1, "samples": 1, "train_seconds": 1.0}, two)
        self.assertEqual(len(three["segments"]), 3)
        self.assertEqual(three["step"], 4423)

    def test_safetensors_roundtrip(self):
        t = {"a": torch.randn(3, 5), "b.weight": torch.randn(7).half(), "i": torch.arange(6).view(2, 3)}
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.safetensors")
            save_file(t, p, metadata={"k": "v"})
            with open(p, "rb") as f:
                raw = f.read()
            (n,) = struct.unpack("<Q", raw[:8])
            self.assertEqual(n % 8, 0)
            hdr = json.loads(raw[8:8 + n])
            self.assertEqual(hdr["a"]["dtype"], "F32")
            self.assertEqual(hdr["b.weight"]["shape"], [7])
            self.assertEqual(hdr["__metadata__"], {"k": "v"})
            self.assertEqual(len(raw), 8 + n + max(h["data_offsets"][1] for k, h in hdr.items() if k != "__metadata__"))
            back, meta = load_file(p)
            for k in t:
                self.assertTrue(torch.equal(back[k], t[k]), k)
                self.assertEqual(back[k].dtype, t[k].dtype)
            self.assertEqual(meta, {"k": "v"})

    def test_export_folder(self):
        # load training/export.py by path: training/layout/ has its own export.py on sys.path
        spec = importlib.util.spec_from_file_location("gocr_export_cli", os.path.join(HERE, "export.py"))
        export = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(export)
        tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
        torch.manual_seed(0)
        cfg = GOCRConfig(vocab_size=tok.vocab_size, d_model=32, n_layers=2, n_heads=2, head_dim=16,
                         ffn_dim=64, block_size=4, max_positions=256)
        model = GravityOCR(cfg, ctc_head=True).eval()
        with tempfile.TemporaryDirectory() as d:
            fake_data.make_split(os.path.join(d, "val"), 6, seed=3, max_len=5)
            ds = PackedFeatures(os.path.join(d, "val"), tok, cfg)
            out = os.path.join(d, "m1")
            man = export.export(model, out, os.path.join(HERE, "vocab.json"), export.pick_golden_samples(ds),
                                train_state={"step": 5, "tokens": 100}, eval_res={"x": 1}, model_id="m1")
            for name in ("model.safetensors", "config.json", "vocab.json", "golden.json", "decoder.onnx"):
                p = os.path.join(out, name)
                self.assertEqual(man["files"][name]["sha256"], hashlib.sha256(_bytes(p)).hexdigest())
            self.assertNotIn("vision.onnx", man["files"])
            self.assertEqual(man["training"]["step"], 5)
            self.assertEqual(man["val"], {"x": 1})
            sd, _ = load_file(os.path.join(out, "model.safetensors"))
            self.assertFalse(any(k.startswith("ctc_head") for k in sd))
            self.assertEqual(set(sd), set(model.export_state_dict()))
            self.assertEqual(_json(os.path.join(out, "config.json"))["block_size"], 4)
            m2, _ = load_exported(out)
            for k, v in model.export_state_dict().items():
                self.assertTrue(torch.equal(m2.state_dict()[k], v), k)
            g = _json(os.path.join(out, "golden.json"))
            self.assertEqual(len(g["cases"]), 1)
            c = g["cases"][0]
            B = cfg.block_size
            self.assertEqual(len(c["draft"]["window"]), B + 1)
            self.assertEqual(len(c["verify"]["logits"]), B + 1)
            self.assertEqual(len(c["prefix_last_logits"]), cfg.vocab_size)
            # replay the verify window from the golden description
            f = np.array(c["vision"], np.float32).reshape(c["vision_shape"])
            s = decode.Session(m2, f, c["strips"], c["prompt_ids"][-1], 64)
            self.assertEqual(s.prompt_ids, c["prompt_ids"])
            com = c["verify"]["committed"]
            ctx = [c["prompt_ids"][-1]] + com[:-1]
            s.window(s.emb(ctx), s.x0_pos, torch.ones(len(ctx), len(ctx), dtype=torch.bool).tril())
            P = len(c["prompt_ids"])
            vl = s.window(s.emb(c["verify"]["window"]), P - 1 + len(com),
                          torch.ones(B + 1, B + 1, dtype=torch.bool).tril())
            np.testing.assert_allclose(vl.numpy(), np.array(c["verify"]["logits"]), atol=1e-5, rtol=1e-5)
            self.assertEqual(c["greedy_ids"], c["self_spec_ids"])
            # a task encoder exported into the folder earlier stays listed (entry + files) when
            # the decoder is exported again
            with open(os.path.join(out, "vision-formula.onnx"), "wb") as f:
                f.write(b"encoder bytes")
            with open(os.path.join(out, "manifest.json")) as f:
                prev = json.load(f)
            prev["vision_tasks"] = {"formula": {"file": "vision-formula.onnx", "golden": "missing.json"}}
            with open(os.path.join(out, "manifest.json"), "w") as f:
                json.dump(prev, f)
            man2 = export.export(model, out, os.path.join(HERE, "vocab.json"), export.pick_golden_samples(ds),
                                 train_state={"step": 6}, model_id="m1", onnx_decoder=False, val_note="how")
            self.assertEqual(man2["val_note"], "how")
            self.assertEqual(man2["vision_tasks"], prev["vision_tasks"])
            self.assertEqual(man2["files"]["vision-formula.onnx"]["sha256"], hashlib.sha256(b"encoder bytes").hexdigest())
            self.assertNotIn("missing.json", man2["files"])

    def test_task_encoder_reads_follow_the_decoder(self):
        """carry_vision_tasks: a task encoder's reads re-measured with the new decoder replace the
        old ones; reads not re-measured move to earlier_decoder (never shown as current); bad
        requests are refused before export() writes anything."""
        import export

        def ev(x, task="formula"):
            return {"block_size": 32, "exact": True, "threshold": 0.9,
                    "tasks": {task: {"n": 3, "ar": {"edit_sim": x}}}}
        prev = {"formula": {"file": "f.onnx", "val": {"ar": 0.1}, "val_image_path": {"ar": 0.2},
                            "val_base_backbone": {"ar": 0.3}, "decoder": "segment 4", "decoder_step": 5,
                            "val_frozen_decoder": {"val": {"ar": 0.05}}}}
        out = export.carry_vision_tasks(prev, {"formula": {"val": ev(0.9), "val_image_path": ev(0.8)}}, 7)
        e = out["formula"]
        self.assertEqual(e["val"]["ar"]["edit_sim"], 0.9)
        self.assertEqual((e["val"]["block_size"], e["val"]["exact"]), (32, True))
        self.assertEqual(e["val_image_path"]["ar"]["edit_sim"], 0.8)
        self.assertNotIn("val_base_backbone", e)
        self.assertNotIn("decoder", e)
        self.assertEqual(e["earlier_decoder"], {"val_base_backbone": {"ar": 0.3}, "decoder": "segment 4",
                                                "decoder_step": 5})
        self.assertEqual(e["decoder_step"], 7)
        self.assertEqual(e["val_frozen_decoder"], prev["formula"]["val_frozen_decoder"])  # encoder history stays
        self.assertEqual(prev["formula"]["val"], {"ar": 0.1})  # the input is not modified
        # all three re-measured: nothing earlier is left; none re-measured: all of them are earlier
        full = {k: ev(0.5) for k in export.READ_KEYS}
        e2 = export.carry_vision_tasks(out, {"formula": full}, 9)["formula"]
        self.assertNotIn("earlier_decoder", e2)
        self.assertEqual(e2["decoder_step"], 9)
        e3 = export.carry_vision_tasks({"formula": e2}, {}, 11)["formula"]
        self.assertEqual(set(e3["earlier_decoder"]), set(export.READ_KEYS) | {"decoder_step"})
        self.assertEqual(e3["earlier_decoder"]["decoder_step"], 9)
        self.assertFalse(set(export.READ_KEYS) & set(e3))
        # the usual pair of exports (before the eval, then with it): what is re-measured in the
        # second leaves earlier_decoder; what is not stays there with the step that measured it
        e4 = export.carry_vision_tasks({"formula": e3}, {"formula": {"val": ev(0.6)}}, 11)["formula"]
        self.assertEqual(set(e4["earlier_decoder"]), {"val_image_path", "val_base_backbone", "decoder_step"})
        self.assertEqual(e4["decoder_step"], 11)
        e5 = export.carry_vision_tasks({"formula": e3}, {"formula": full}, 11)["formula"]
        self.assertNotIn("earlier_decoder", e5)
        for bad in ({"table": {"val": ev(0.5)}}, {"formula": {"vall": ev(0.5)}},
                    {"formula": {"val": ev(0.5, task="text")}}):
            with self.assertRaises(ValueError):
                export.carry_vision_tasks(prev, bad, 7)
        torch.manual_seed(0)
        cfg = GOCRConfig(vocab_size=40, d_model=32, n_layers=1, n_heads=2, head_dim=16, ffn_dim=48,
                         block_size=4, max_positions=64)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "manifest.json"), "w") as f:
                json.dump({"vision_tasks": prev}, f)
            with self.assertRaises(ValueError):
                export.export(GravityOCR(cfg), d, os.path.join(HERE, "vocab.json"), onnx_decoder=False,
                              task_evals={"table": {"val": ev(0.5)}})
            self.assertEqual(os.listdir(d), ["manifest.json"])

    def test_onnx_step_matches_model(self):
        """The graph exported as decoder.onnx (DecoderStep) is the model: a KV-cached window after
        T cached rows gives the logits of the full causal forward, and the file is a valid ONNX
        model with the documented inputs/outputs and dynamic batch/window/past axes."""
        import onnx
        from export_onnx import INPUTS, OUTPUTS, DecoderStep, export_decoder_onnx
        torch.manual_seed(1)
        cfg = GOCRConfig(vocab_size=40, d_model=32, n_layers=2, n_heads=2, head_dim=16, ffn_dim=48,
                         block_size=4, max_positions=64)
        model = GravityOCR(cfg).eval()
        step = DecoderStep(model)
        B, T, S = 2, 5, 3
        x = torch.randn(B, T + S, cfg.d_model)
        pos = torch.arange(T + S)[None].repeat(B, 1)
        with torch.no_grad():
            full = model.logits(model(x, pos, torch.ones(T + S, T + S, dtype=torch.bool).tril()))
            e = torch.zeros(cfg.n_layers, B, cfg.n_heads, 0, cfg.head_dim)
            l1, k1, v1 = step(x[:, :T], pos[:, :T], e, e)
            l2, k2, v2 = step(x[:, T:], pos[:, T:], k1, v1)
        self.assertEqual(tuple(k2.shape), (cfg.n_layers, B, cfg.n_heads, T + S, cfg.head_dim))
        torch.testing.assert_close(torch.cat([l1, l2], 1), full, atol=1e-5, rtol=1e-5)
        with tempfile.TemporaryDirectory() as d:
            save_file(model.export_state_dict(), os.path.join(d, "model.safetensors"))
            with open(os.path.join(d, "config.json"), "w") as f:
                f.write(cfg.to_json())
            path = export_decoder_onnx(d)
            m = onnx.load(path)
            onnx.checker.check_model(m)
            self.assertEqual([i.name for i in m.graph.input], INPUTS)
            self.assertEqual([o.name for o in m.graph.output], OUTPUTS)
            dims = [d.dim_param for d in m.graph.input[2].type.tensor_type.shape.dim]
            self.assertEqual(dims[1], "batch")
            self.assertEqual(dims[3], "past")
            halves = [i for i in m.graph.initializer if i.data_type == onnx.TensorProto.FLOAT16]
            self.assertTrue(halves, "large weights are stored as float16")


if __name__ == "__main__":
    unittest.main()
