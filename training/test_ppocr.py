"""The PyTorch port of the PP-OCRv4 backbone (gocr/ppocr.py) against onnxruntime-node's features."""
import json
import os
import tempfile
import unittest

import numpy as np
import torch

from gocr.ppocr import PPOCRBackbone, golden_input

HERE = os.path.dirname(os.path.abspath(__file__))
ONNX = os.path.join(HERE, "..", "public", "models", "vision", "ppocr-v4-rec-backbone.onnx")


@unittest.skipUnless(os.path.exists(ONNX), "backbone ONNX not present")
class TestPPOCR(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.m = PPOCRBackbone.from_onnx(ONNX).eval()
        with open(os.path.join(HERE, "tests", "ppocr_golden.json")) as f:
            cls.golden = json.load(f)

    def test_matches_onnxruntime(self):
        for case in self.golden["cases"]:
            with torch.no_grad():
                y = self.m(torch.from_numpy(golden_input(case["width"]))).numpy()
            self.assertEqual(list(y.shape), case["dims"])
            ref = np.array(case["features"], np.float32).reshape(case["dims"])
            self.assertLess(float(np.abs(y - ref).max()), 1e-4, f"width {case['width']}")

    def test_save_load_and_gradients(self):
        x = torch.from_numpy(golden_input(40))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "pp.pt")
            self.m.save(p)
            m2 = PPOCRBackbone.load(p).eval()
        with torch.no_grad():
            self.assertTrue(torch.equal(self.m(x), m2(x)))
        n_param = sum(p.numel() for p in m2.parameters())
        self.assertGreater(n_param, 1_500_000)   # conv / matmul / norm weights are trainable
        bn = [n for n in m2.graph["nodes"] if n["op"] == "BatchNormalization"]
        self.assertTrue(bn and all(not isinstance(m2._get({}, n["inputs"][3]), torch.nn.Parameter) for n in bn))
        m2(x).square().mean().backward()
        grads = [p.grad for p in m2.parameters() if p.grad is not None]
        self.assertGreater(len(grads), 100)
        self.assertTrue(all(torch.isfinite(g).all() for g in grads))

    def test_upscale_stem_is_exact_on_upscaled_input(self):
        """Scale 2: (2·48)×(2·W) input through the widened stem = the original on the 48×W strip
        it is the 2× nearest upscale of; same rows; widened weights trainable and saved/loaded."""
        import copy
        m2 = copy.deepcopy(self.m).upscale_stem(2)
        self.assertEqual(m2.input_scale, 2)
        self.assertEqual(self.m.input_scale, 1)          # the source module is untouched
        stem = next(n for n in m2.graph["nodes"] if n["op"] == "Conv")
        self.assertEqual(stem["attrs"]["kernel_shape"], [6, 6])
        self.assertEqual(stem["attrs"]["strides"], [4, 4])
        self.assertEqual(stem["attrs"]["pads"], [2, 2, 2, 2])
        for w in (40, 57):                                # odd width: same rounding of the row count
            x = torch.from_numpy(golden_input(w))
            with torch.no_grad():
                y1 = self.m(x)
                y2 = m2(x.repeat_interleave(2, 2).repeat_interleave(2, 3))
            self.assertEqual(y1.shape, y2.shape)
            self.assertLess(float((y1 - y2).abs().max()), 1e-4)
        self.assertIs(m2.upscale_stem(2), m2)             # idempotent at its scale
        with self.assertRaises(ValueError):
            m2.upscale_stem(3)
        key = m2.names[stem["inputs"][1]]
        self.assertIn(key, dict(m2.named_parameters()))
        self.assertEqual(tuple(getattr(m2, key).shape[2:]), (6, 6))

    def test_learn_pool_starts_as_the_average(self):
        """learn_pool: the [3, 2] AveragePool becomes a grouped Conv whose initial weights compute the
        same average (same rows at odd widths, scale 2 too); trainable, saved/loaded, idempotent."""
        import copy
        m2 = copy.deepcopy(self.m).upscale_stem(2)
        m3 = copy.deepcopy(m2).learn_pool(30)
        self.assertEqual((m2.pool_groups, m3.pool_groups), (0, 30))
        self.assertFalse([n for n in m3.graph["nodes"] if n["op"] == "AveragePool"])
        self.assertTrue([n for n in self.m.graph["nodes"] if n["op"] == "AveragePool"])  # source untouched
        w = dict(m3.named_parameters())[m3.names[m3.POOL_W]]
        self.assertEqual(tuple(w.shape), (480, 16, 3, 2))
        for width in (40, 57):
            x = torch.from_numpy(golden_input(width, height=96))
            with torch.no_grad():
                y2, y3 = m2(x), m3(x)
            self.assertEqual(y2.shape, y3.shape)
            self.assertLess(float((y2 - y3).abs().max()), 1e-5)
        self.assertIs(m3.learn_pool(30), m3)
        self.assertIs(m3.learn_pool(0), m3)
        with self.assertRaises(ValueError):
            m3.learn_pool(15)
        with self.assertRaises(ValueError):
            copy.deepcopy(self.m).learn_pool(7)          # 480 channels do not split into 7 groups
        with torch.no_grad():
            w.add_(torch.randn(w.shape) * 0.02)           # no longer the average: the output moves
        x = torch.from_numpy(golden_input(40, height=96))
        with torch.no_grad():
            self.assertGreater(float((m3(x) - m2(x)).abs().max()), 1e-3)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "pp.pt")
            m3.save(p)
            m4 = PPOCRBackbone.load(p)
        self.assertEqual(m4.pool_groups, 30)
        with torch.no_grad():
            self.assertTrue(torch.equal(m3(x), m4(x)))
        m3(x).square().mean().backward()
        self.assertGreater(float(w.grad.abs().sum()), 0.0)

    def test_strip_pack_to_packed_features(self):
        """npm run strips' format -> gocr.strips -> the packed features train.py reads."""
        import zlib
        from gocr.strips import build_features, read_strips, to_input
        rng = np.random.default_rng(0)
        shapes = [[(1, 24), (3, 16)], [(1, 24)]]          # two samples; widths shared across them
        with tempfile.TemporaryDirectory() as d:
            blob, off, arrays = b"", 0, []
            with open(os.path.join(d, "index.jsonl"), "w") as f:
                for i, sh in enumerate(shapes):
                    st = []
                    for c, w in sh:
                        a = rng.integers(0, 256, (c, 48, w), dtype=np.uint8)
                        arrays.append(a)
                        z = zlib.compress(a.tobytes())
                        st.append([w, c, off, len(z)])
                        blob += z
                        off += len(z)
                    f.write(json.dumps({"id": f"s{i}", "task": "text", "target": "ab", "strips": st}) + "\n")
            with open(os.path.join(d, "strips.bin"), "wb") as f:
                f.write(blob)
            samples = read_strips(d)
            self.assertEqual([len(s["strips"]) for s in samples], [2, 1])
            self.assertTrue(all(np.array_equal(a, b) for a, b in zip(arrays, [x for s in samples for x in s["strips"]])))
            rows = build_features(samples, self.m, os.path.join(d, "f"), log=lambda *_: None,
                                  provenance={"model": "enc.onnx", "model_sha256": "ab12"})
            self.assertEqual(rows, 3 + 2 + 3)
            with open(os.path.join(d, "f", "meta.json")) as f:
                meta = json.load(f)
            self.assertEqual((meta["model"], meta["model_sha256"], meta["rows"]), ("enc.onnx", "ab12", 8))
            feats = np.fromfile(os.path.join(d, "f", "features.f16"), "<f2").reshape(-1, 120)
            with open(os.path.join(d, "f", "index.jsonl")) as f:
                idx = [json.loads(l) for l in f]
            self.assertEqual([(r["offset"], r["strips"]) for r in idx], [(0, [3, 2]), (5, [3])])
            with torch.no_grad():
                direct = self.m(to_input(arrays[1])[None])[0].numpy()
            np.testing.assert_allclose(feats[3:5], direct, atol=2e-2, rtol=1e-3)   # float16 storage

    def test_read_strips_of_input_scale_2(self):
        """`npm run strips -- --scale 2` records: strips are 96 high."""
        import zlib
        from gocr.strips import read_strips
        a = np.random.default_rng(1).integers(0, 256, (1, 96, 32), dtype=np.uint8)
        z = zlib.compress(a.tobytes())
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "strips.bin"), "wb") as f:
                f.write(z)
            with open(os.path.join(d, "index.jsonl"), "w") as f:
                f.write(json.dumps({"id": "a", "task": "formula", "target": "x", "strips": [[32, 1, 0, len(z)]],
                                    "scale": 2}) + "\n")
            (s,) = read_strips(d)
        np.testing.assert_array_equal(s["strips"][0], a)


if __name__ == "__main__":
    unittest.main()
