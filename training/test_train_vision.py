"""train_vision.py: encoder rows land where collate puts packed features (same loss), gradients
reach the encoder and not the frozen decoder, the ONNX export carries the trained tensors, and --init continues from such an export."""
import os
import tempfile
import unittest

import numpy as np
import torch

import train_vision
from gocr import gravity
from gocr.model import GOCRConfig, GravityOCR

HERE = os.path.dirname(os.path.abspath(__file__))
ONNX = os.path.join(HERE, "..", "public", "models", "vision", "ppocr-v4-rec-backbone.onnx")
torch.set_num_threads(1)


class ColumnEncoder(torch.nn.Module):
    """Stand-in backbone: (1, 3, 48, W) -> (1, W/8, 120), one row per 8 columns."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3 * 48 * 8, 120)

    def forward(self, x):
        n, c, h, w = x.shape
        cols = x.reshape(n, c, h, w // 8, 8).permute(0, 3, 1, 2, 4).reshape(n, w // 8, c * h * 8)
        return self.proj(cols)


def tiny_decoder(V=40):
    cfg = GOCRConfig(vocab_size=V, d_model=32, n_layers=2, n_heads=2, head_dim=16, ffn_dim=64, block_size=4,
                     max_positions=256, vision_dim=120, task_ids={"text": 6, "table": 7, "formula": 8})
    torch.manual_seed(0)
    return GravityOCR(cfg).eval()


def perturbed(m, seed):
    """m with every trainable tensor moved by N(0, 0.01): a stand-in for a trained encoder."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.01)
    return m


def sample(widths, ids, seed):
    r = np.random.default_rng(seed)
    return {"strips": [r.integers(0, 256, (1, 48, w), dtype=np.uint8) for w in widths], "ids": ids,
            "task_id": 8, "task": "formula", "target": "", "id": str(seed)}


class TrainVisionTest(unittest.TestCase):
    def test_rows_in_place_and_gradients(self):
        dec = tiny_decoder()
        for p in dec.parameters():
            p.requires_grad_(False)
        enc = ColumnEncoder()
        samples = [sample([24], [9, 10, 11], 1), sample([16, 40], [12, 13, 14, 15, 16, 17], 2)]
        loss, logs = train_vision.batch_loss(dec, enc, samples, np.random.default_rng(5))
        # the same batch through collate with the encoder's rows as packed numpy features
        with torch.no_grad():
            items = [{"feats": train_vision.encode(enc, s).numpy(), "strips": [a.shape[2] // 8 for a in s["strips"]],
                      "task_id": 8, "ids": s["ids"], "task": "formula"} for s in samples]
        bt = gravity.collate(items, dec.cfg, np.random.default_rng(5), with_ctc=False)
        ref, ref_logs = gravity.gravity_loss(dec, bt)
        self.assertAlmostEqual(loss.item(), ref.item(), places=5)
        self.assertEqual(logs["n_diff"], ref_logs["n_diff"])
        loss.backward()
        self.assertGreater(float(enc.proj.weight.grad.abs().sum()), 0.0)
        self.assertTrue(all(p.grad is None for p in dec.parameters()))

    def test_row_count_mismatch_is_an_error(self):
        class Short(ColumnEncoder):
            def forward(self, x):
                return super().forward(x)[:, :-1]
        with self.assertRaises(ValueError):
            train_vision.batch_loss(tiny_decoder(), Short(), [sample([24], [9, 10], 1)], np.random.default_rng(0))

    @unittest.skipUnless(os.path.exists(ONNX), "backbone ONNX not present")
    def test_export_carries_trained_tensors(self):
        import onnx
        from onnx import numpy_helper
        from gocr.ppocr import PPOCRBackbone
        m = PPOCRBackbone.from_onnx(ONNX)
        name, p = next(iter(m.named_parameters()))
        with torch.no_grad():
            p.add_(0.25)
        onnx_name = next(k for k, v in m.names.items() if v == name)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "enc.onnx")
            n = train_vision.export_onnx(m, out)
            self.assertEqual(n, sum(1 for _ in m.parameters()))
            g = onnx.load(out).graph
            found = [numpy_helper.to_array(i) for i in g.initializer if i.name == onnx_name]
            found += [numpy_helper.to_array(a.t) for nd in g.node if nd.op_type == "Constant" and nd.output[0] == onnx_name
                      for a in nd.attribute if a.name == "value"]
            self.assertEqual(len(found), 1)
            np.testing.assert_array_equal(found[0], p.detach().numpy())

    def test_scale2_strips_count_rows_of_the_48px_grid(self):
        """96-px strips (input scale 2) give W/16 rows: collate must be told that many."""
        class Scale2(ColumnEncoder):
            def forward(self, x):
                return super().forward(torch.nn.functional.avg_pool2d(x, 2))
        r = np.random.default_rng(3)
        s2 = {"strips": [r.integers(0, 256, (1, 96, 48), dtype=np.uint8)], "ids": [9, 10, 11], "task_id": 8,
              "task": "formula", "target": "", "id": "a"}
        loss, _ = train_vision.batch_loss(tiny_decoder(), Scale2(), [s2], np.random.default_rng(0))
        self.assertTrue(torch.isfinite(loss))

    @unittest.skipUnless(os.path.exists(ONNX), "backbone ONNX not present")
    def test_export_of_widened_stem(self):
        import onnx
        from gocr.ppocr import PPOCRBackbone
        m = PPOCRBackbone.from_onnx(ONNX).upscale_stem(2)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "enc.onnx")
            train_vision.export_onnx(m, out)
            g = onnx.load(out).graph
            self.assertEqual(g.input[0].type.tensor_type.shape.dim[2].dim_value, 96)
            stem = next(nd for nd in g.node if nd.op_type == "Conv")
            attrs = {a.name: list(a.ints) for a in stem.attribute}
            self.assertEqual((attrs["kernel_shape"], attrs["strides"], attrs["pads"]), ([6, 6], [4, 4], [2, 2, 2, 2]))
            onnx.checker.check_model(onnx.load(out))
            gold = os.path.join(d, "enc.golden.json")
            train_vision.write_golden(m, gold, out, widths=(16, 24))
            import json
            with open(gold) as f:
                cases = json.load(f)["cases"]
            self.assertEqual([(c["width"], c["height"], c["dims"]) for c in cases], [(32, 96, [1, 2, 120]), (48, 96, [1, 3, 120])])

    @unittest.skipUnless(os.path.exists(ONNX), "backbone ONNX not present")
    def test_init_from_exported_encoder(self):
        """--init with an exported .onnx continues that encoder: same tensors, same input scale."""
        from gocr.ppocr import PPOCRBackbone, golden_input
        m = perturbed(PPOCRBackbone.from_onnx(ONNX).upscale_stem(2), 0)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "enc.onnx")
            train_vision.export_onnx(m, out)
            fresh = PPOCRBackbone.from_onnx(ONNX)
            state, scale = train_vision.init_encoder(fresh, out)
        self.assertEqual((scale, fresh.input_scale, state), (2, 2, {}))
        want, got = m.state_dict(), fresh.state_dict()
        self.assertEqual(sorted(want), sorted(got))
        for k in want:
            self.assertTrue(torch.equal(want[k], got[k]), k)
        x = torch.from_numpy(golden_input(40, height=96))
        self.assertTrue(torch.equal(m(x), fresh(x)))

    @unittest.skipUnless(os.path.exists(ONNX), "backbone ONNX not present")
    def test_export_and_init_of_learned_pool(self):
        """An encoder with learn_pool exports a valid ONNX (a grouped Conv in place of the
        AveragePool, its weight an initializer) that reads back to the same module and the same
        features, and --init from it restores the learned pooling."""
        import onnx
        from gocr.ppocr import PPOCRBackbone, golden_input
        m = perturbed(PPOCRBackbone.from_onnx(ONNX).upscale_stem(2).learn_pool(30), 1)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "enc.onnx")
            self.assertEqual(train_vision.export_onnx(m, out), len(list(m.parameters())))
            model = onnx.load(out)
            onnx.checker.check_model(model)
            ops = [nd.op_type for nd in model.graph.node]
            self.assertNotIn("AveragePool", ops)
            back = PPOCRBackbone.from_onnx(out)
            fresh = PPOCRBackbone.from_onnx(ONNX)
            state, scale = train_vision.init_encoder(fresh, out)
        self.assertEqual((back.pool_groups, fresh.pool_groups, scale), (30, 30, 2))
        x = torch.from_numpy(golden_input(57, height=96))
        with torch.no_grad():
            y = m(x)
            self.assertTrue(torch.equal(y, back(x)))
            self.assertTrue(torch.equal(y, fresh(x)))


if __name__ == "__main__":
    unittest.main()
