"""Fast checks of the layout detector's Python side: preprocessing, targets, losses, NMS, mAP, decode."""
import os
import sys
import unittest

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from common import LayoutConfig, area_weights, fit_scale, preprocess  # noqa: E402
from metrics import average_precision, nms, postprocess, suppress_across_classes  # noqa: E402
from model import LayoutNet, decode  # noqa: E402
from targets import assign, detection_loss, giou_loss_ltrb  # noqa: E402


class TestPreprocess(unittest.TestCase):
    def test_area_resize_matches_dense(self):
        rng = np.random.default_rng(0)
        g = rng.uniform(0, 255, (211, 157)).astype(np.float32)
        cfg = LayoutConfig(input_h=64, input_w=48)
        x, s = preprocess(g, cfg)
        _, nh, nw = fit_scale(211, 157, 64, 48)
        ref = (255 - area_weights(211, nh, s) @ g.astype(np.float64) @ area_weights(157, nw, s).T) / 255
        np.testing.assert_allclose(x[:nh, :nw], ref, atol=1e-5)
        self.assertTrue(np.all(x[nh:, :] == 0) and np.all(x[:, nw:] == 0))

    def test_weights_rows_sum_to_one(self):
        m = area_weights(1650, 640, 640 / 1650)
        np.testing.assert_allclose(m.sum(1), 1, atol=1e-12)


class TestTargets(unittest.TestCase):
    def test_assign_inside_smallest_and_tiny(self):
        boxes = np.array([[0, 0, 64, 64], [16, 16, 32, 32], [60, 2, 62, 4]], np.float32)
        labels = np.array([2, 7, 10])
        cls_t, ltrb = assign(boxes, labels, 8, 8, 8)
        grid = cls_t.reshape(8, 8)
        self.assertEqual(grid[0, 0], 2)
        self.assertEqual(grid[2, 2], 7)  # smaller box wins inside the big one
        self.assertEqual(grid[0, 7], 10)  # tiny box gets the cell nearest its centre
        # cell (2,2) centre is (20,20): distances to the small box
        np.testing.assert_allclose(ltrb[2 * 8 + 2], [4, 4, 12, 12])
        self.assertTrue(np.all(ltrb[cls_t >= 0] > 0))

    def test_instance_weights(self):
        boxes = np.array([[0, 0, 32, 32], [40, 40, 42, 42]], np.float32)
        cls_t, _, w = assign(boxes, np.array([2, 10]), 8, 8, 8, with_weights=True)
        np.testing.assert_allclose(w[cls_t == 2], 1 / 4)   # 16 cells -> 16^-1/2
        np.testing.assert_allclose(w[cls_t == 10], 1.0)    # one cell
        self.assertTrue(np.all(w[cls_t < 0] == 0))

    def test_giou_perfect_and_loss_runs(self):
        t = torch.tensor([[3.0, 4.0, 5.0, 6.0]])
        self.assertAlmostEqual(float(giou_loss_ltrb(t, t)[0]), 0.0, places=6)
        net = LayoutNet(12, 16, 24)
        x = torch.rand(2, 1, 64, 64)
        cls_t, ltrb = assign(np.array([[8, 8, 40, 30]], np.float32), np.array([2]), 8, 8, 8)
        c = torch.from_numpy(np.stack([cls_t, cls_t]))
        l = torch.from_numpy(np.stack([ltrb, ltrb]))
        loss, parts = detection_loss(*net(x), c, l, torch.ones(2, 64))
        loss.backward()
        self.assertTrue(np.isfinite(float(loss)))
        self.assertEqual(parts["npos"], 2 * int((cls_t >= 0).sum()))

    def test_decode_shapes_and_centres(self):
        net = LayoutNet(12, 16, 24).eval()
        with torch.no_grad():
            cls, reg, ctr = net(torch.zeros(1, 1, 64, 48))
            reg = torch.zeros_like(reg)  # exp(0) = 1 px each side
            scores, boxes = decode(cls, reg, ctr, 8)
        self.assertEqual(tuple(scores.shape), (1, 48, 12))
        np.testing.assert_allclose(boxes[0, 0].numpy(), [3, 3, 5, 5])
        np.testing.assert_allclose(boxes[0, 7].numpy(), [11, 11, 13, 13])  # row 1, col 1 of a 6-wide grid


class TestPost(unittest.TestCase):
    def test_nms(self):
        boxes = [[0, 0, 100, 100], [5, 5, 100, 100], [200, 0, 300, 100], [0, 0, 100, 40]]
        self.assertEqual(nms(boxes, [0.8, 0.9, 0.5, 0.7], 0.5), [1, 3, 2])
        self.assertEqual(nms([[0, 0, 10, 10], [0, 0, 10, 10]], [0.5, 0.5], 0.5), [0])

    def test_postprocess_matches_ts_vector(self):
        # same vector as src/layout/postprocess.test.ts
        scores = np.array([[0.9, 0.1, 0], [0.8, 0, 0], [0, 0.7, 0], [0.05, 0, 0.6]], np.float32)
        boxes = np.array([[10, 10, 50, 30], [11, 10, 50, 31], [10, 10, 50, 30], [40, 40, 90, 70]], np.float32)
        d = postprocess(scores, boxes, 0.5, 150, 120, 0.3, 0.5, 10)
        self.assertEqual([x["cls"] for x in d], [0, 1, 2])
        self.assertEqual(d[0]["box"], [20, 20, 100, 60])
        self.assertEqual(d[2]["box"], [80, 80, 150, 120])

    def test_suppress_same_class_loose_box(self):
        # same case as src/layout/postprocess.test.ts (the e2e fixture's one-line paragraph)
        line = {"cls": 2, "box": [148, 234, 1051, 268], "score": 0.67}
        loose = {"cls": 2, "box": [175, 237, 1036, 295], "score": 0.43}
        self.assertEqual(suppress_across_classes([line, loose], 0.7), [line])
        other = dict(loose, cls=7)
        self.assertEqual(suppress_across_classes([line, other], 0.7), [line, other])

    def test_ap(self):
        g = [[{"cls": 0, "box": [0, 0, 10, 10]}, {"cls": 0, "box": [20, 20, 40, 40]}]]
        dup = [[{"cls": 0, "box": [0, 0, 10, 10], "score": 0.9}, {"cls": 0, "box": [0, 0, 10, 10], "score": 0.8}]]
        self.assertAlmostEqual(average_precision(dup, g, 1, 0.5)[0][0], 51 / 101)



class TestReclass(unittest.TestCase):
    def test_window_scale_mask_and_paper(self):
        from reclass import WIN_H, WIN_W, ReClass, window
        g = np.full((300, 1275), 255, np.float32)
        g[200:220, 100:140] = 0
        win, geom = window(g, [100, 200, 140, 220])
        self.assertEqual(win.shape, (2, WIN_H, WIN_W))
        self.assertAlmostEqual(float(win[0, 11, 23]), 1.0, places=6)   # ink inside the box
        self.assertAlmostEqual(float(win[0, 2, 2]), 0.0, places=6)     # paper above-left
        self.assertEqual(int(win[1].sum()), 30 * 15)                   # 40 x 20 px at 0.75
        self.assertEqual(float(win[0, WIN_H - 1, 20]), 0.0)            # below the page reads white
        np.testing.assert_allclose(geom, [100 / 1275, 200 / 300, 140 / 1275, 220 / 300, 0.2, 0.04], rtol=1e-6)
        out = ReClass()(torch.from_numpy(win[None]), torch.from_numpy(geom[None]))
        self.assertEqual(tuple(out.shape), (1, 12))


class TestPack(unittest.TestCase):
    def test_pack_round_trip_and_pageset(self):
        import json
        import tempfile
        from PIL import Image
        from data import PageSet
        from pack import main as pack_main, pack_image, unpack_image
        a = (np.arange(37 * 23) % 256).astype(np.uint8).reshape(37, 23)
        for levels in (256, 8):
            b = unpack_image(pack_image(a, levels), a.shape, levels)
            self.assertLessEqual(int(np.abs(b.astype(int) - a).max()), 255 // (2 * (levels - 1)) + 1)
        self.assertTrue(np.array_equal(unpack_image(pack_image(a, 256), a.shape, 256), a))
        cfg = LayoutConfig(input_h=64, input_w=48, width=8, fpn_dim=8)
        with tempfile.TemporaryDirectory() as d:
            page = np.full((120, 90), 255, np.uint8)
            page[20:40, 10:70] = 0
            Image.fromarray(page).save(os.path.join(d, "p1.png"))
            reg = {"cls": "text", "box": [10, 20, 70, 40], "order": 0}
            with open(os.path.join(d, "p1.json"), "w") as f:
                json.dump({"id": "p1", "image": "p1.png", "width": 90, "height": 120, "regions": [reg]}, f)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg.to_json(), f)
            pack_main(["--roots", d, "--out", os.path.join(d, "p.npz"), "--config", os.path.join(d, "config.json"),
                       "--levels", "256"])
            direct = PageSet(d, cfg, os.path.join(d, "cache"), log=lambda *_: None)
            packed = PageSet(os.path.join(d, "p.npz"), cfg, os.path.join(d, "cache2"), log=lambda *_: None)
            self.assertEqual(len(packed), 1)
            self.assertTrue(np.array_equal(packed.image(0), direct.image(0)))
            np.testing.assert_allclose(packed.boxes[0], direct.boxes[0])
            self.assertEqual(packed.labels[0].tolist(), direct.labels[0].tolist())
            with self.assertRaises(ValueError):  # a pack made for another input size
                PageSet(os.path.join(d, "p.npz"), LayoutConfig(input_h=32, input_w=24), d, log=lambda *_: None)


if __name__ == "__main__":
    unittest.main()


class TestSoup(unittest.TestCase):
    def test_average_and_bn_recalibration(self):
        from soup import average, recalibrate_bn
        torch.manual_seed(0)
        a, b = LayoutNet(12, 8, 16).state_dict(), LayoutNet(12, 8, 16).state_dict()
        avg = average([a, b])
        for k in a:
            if a[k].dtype.is_floating_point:
                torch.testing.assert_close(avg[k], (a[k] + b[k]) / 2)
            else:
                self.assertTrue(torch.equal(avg[k], a[k]))
        with self.assertRaises(ValueError):
            average([a, LayoutNet(12, 8, 24).state_dict()])

        class Pages:  # two fixed batches, drawn in turn
            xs = [torch.rand(2, 1, 64, 48), torch.rand(2, 1, 64, 48) * 3]
            n = 0

            def __len__(self):
                return 4

            def batch(self, idx, rng, augment):
                self.n += 1
                return (self.xs[self.n % 2],)

        net = LayoutNet(12, 8, 16)
        net.load_state_dict(avg)
        recalibrate_bn(net, Pages(), 2, 2)
        bn = next(m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d))
        # the stem's BN sees the stem conv of both batches: its running mean is their mean
        stem = next(m for m in net.modules() if isinstance(m, torch.nn.Conv2d))
        with torch.no_grad():
            means = [stem(x).mean((0, 2, 3)) for x in Pages.xs]
        torch.testing.assert_close(bn.running_mean, (means[0] + means[1]) / 2, rtol=1e-4, atol=1e-5)
        self.assertFalse(net.training)
