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
            rows = build_features(samples, self.m, os.path.join(d, "f"), log=lambda *_: None)
            self.assertEqual(rows, 3 + 2 + 3)
            feats = np.fromfile(os.path.join(d, "f", "features.f16"), "<f2").reshape(-1, 120)
            with open(os.path.join(d, "f", "index.jsonl")) as f:
                idx = [json.loads(l) for l in f]
            self.assertEqual([(r["offset"], r["strips"]) for r in idx], [(0, [3, 2]), (5, [3])])
            with torch.no_grad():
                direct = self.m(to_input(arrays[1])[None])[0].numpy()
            np.testing.assert_allclose(feats[3:5], direct, atol=2e-2, rtol=1e-3)   # float16 storage


if __name__ == "__main__":
    unittest.main()
