"""GravityOCR training layout: attention mask cell by cell, complementary masks, EOS fill,
shifted targets, the decode draft window being in-distribution, and a loss that falls."""
import os
import tempfile
import unittest

import numpy as np
import torch

from gocr import data, decode, fake_data, gravity
from gocr.model import GOCRConfig, GravityOCR
from gocr.tokenizer import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)


def tiny_cfg(V, B=4, **kw):
    c = dict(vocab_size=V, d_model=32, n_layers=2, n_heads=2, head_dim=16, ffn_dim=64, block_size=B,
             max_positions=256)
    c.update(kw)
    return GOCRConfig(**c)


class MaskTest(unittest.TestCase):
    def test_mask_cell_by_cell(self):
        # prefix 3 rows (pos 0..2); R = 4 response slots with blocks [0,1,1,2] (B=2, phase 1)
        P, R = 3, 4
        blk = [0, 1, 1, 2]
        stream = [0] * P + [1] * R + [2] * R + [3] * R + [-1]
        pos = list(range(P)) + [P + r for r in range(R)] * 3 + [0]
        bl = [-1] * P + blk * 3 + [-1]
        m = gravity.gravity_mask(torch.tensor([stream]), torch.tensor([pos]), torch.tensor([bl]))[0]
        expect = [
            "100|0000|0000|0000|0",  # prefix: causal
            "110|0000|0000|0000|0",
            "111|0000|0000|0000|0",
            "111|1000|0000|0000|0",  # clean: prefix + token-causal clean
            "111|1100|0000|0000|0",
            "111|1110|0000|0000|0",
            "111|1111|0000|0000|0",
            "111|0000|1000|0000|0",  # corrupted A, block 0: prefix + own block
            "111|1000|0110|0000|0",  # block 1: + clean block 0 + own block (bidirectional)
            "111|1000|0110|0000|0",
            "111|1110|0001|0000|0",  # block 2: + clean blocks 0,1
            "111|0000|0000|1000|0",  # corrupted B: same rules, never sees A
            "111|1000|0000|0110|0",
            "111|1000|0000|0110|0",
            "111|1110|0000|0001|0",
            "000|0000|0000|0000|1",  # padding row: itself only (no NaN softmax)
        ]
        got = ["".join("1" if v else "0" for v in row) for row in m.tolist()]
        want = [e.replace("|", "") for e in expect]
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g, w, f"row {i}")


class CollateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
        cls.cfg = tiny_cfg(cls.tok.vocab_size, B=4)
        r = np.random.default_rng(0)
        cls.samples = [{"feats": r.standard_normal((7, 120)).astype(np.float16), "strips": [4, 3],
                        "task_id": 6, "ids": cls.tok.encode("hello wor")},
                       {"feats": r.standard_normal((3, 120)).astype(np.float16), "strips": [3],
                        "task_id": 7, "ids": cls.tok.encode("ab")}]

    def test_streams_partition_eos_fill_and_shift(self):
        cfg, B = self.cfg, self.cfg.block_size
        for seed in range(5):
            bt = gravity.collate(self.samples, cfg, np.random.default_rng(seed))
            for b, s in enumerate(self.samples):
                n = len(s["ids"])
                P = sum(s["strips"]) + len(s["strips"])
                R = n + B
                resp = np.array(s["ids"] + [cfg.eos_id] * B)
                ids = bt["ids"][b].numpy()
                self.assertEqual(ids[P - 1], s["task_id"])
                if len(s["strips"]) > 1:
                    self.assertEqual(ids[s["strips"][0]], cfg.sep_id)
                    self.assertFalse(bt["is_vis"][b, s["strips"][0]])
                clean, A, Bv = ids[P:P + R], ids[P + R:P + 2 * R], ids[P + 2 * R:P + 3 * R]
                np.testing.assert_array_equal(clean, resp)  # EOS fill: exactly B eos appended
                mA, mB = A == cfg.mask_id, Bv == cfg.mask_id
                self.assertTrue(np.all(mA ^ mB))  # complementary: each token masked exactly once
                np.testing.assert_array_equal(np.where(mA, resp, A), resp)
                np.testing.assert_array_equal(np.where(mB, resp, Bv), resp)
                # positions shared by the three streams
                pos = bt["pos"][b].numpy()
                for k in range(3):
                    np.testing.assert_array_equal(pos[P + k * R:P + (k + 1) * R], P + np.arange(R))
                # AR targets: tokens 0..n, the first eos only; token 0 predicted by the task row
                sel = bt["ar_b"].numpy() == b
                ar_i, ar_y = bt["ar_i"].numpy()[sel], bt["ar_y"].numpy()[sel]
                np.testing.assert_array_equal(ar_y, resp[:n + 1])
                self.assertEqual((ar_y == cfg.eos_id).sum(), 1)
                np.testing.assert_array_equal(ar_i, [P - 1] + list(P + np.arange(n)))
                # diffusion targets: every response token (all B eos too) exactly once
                sel = bt["df_b"].numpy() == b
                df_i, df_y, df_s = bt["df_i"].numpy()[sel], bt["df_y"].numpy()[sel], bt["df_s"].numpy()[sel]
                self.assertEqual(len(df_y), R)
                self.assertEqual(int((df_y == cfg.eos_id).sum()), B)
                for i, y, st in zip(df_i, df_y, df_s):
                    base = P + (1 + st) * R
                    r = i - base + 1 if i >= base else 0  # predictor row r-1 predicts token r
                    if i < base:
                        self.assertEqual(i, P - 1)
                    self.assertEqual(y, resp[r])
                    self.assertTrue((mA if st == 0 else mB)[r])
                # blocks are response-relative with one random phase per sample
                blk = bt["blk"][b].numpy()[P:P + R]
                self.assertTrue(any(np.array_equal(blk, (np.arange(R) + dl) // B) for dl in range(B)))

    def test_diff_blocks_subset(self):
        cfg, B = self.cfg, self.cfg.block_size
        s = dict(self.samples[0], ids=self.tok.encode("a longer target text"))
        n = len(s["ids"])
        P, R = sum(s["strips"]) + len(s["strips"]), n + B
        resp = np.array(s["ids"] + [cfg.eos_id] * B)
        seen = set()
        for seed in range(40):
            bt = gravity.collate([s], cfg, np.random.default_rng(seed), diff_blocks=1)
            st, ids, pos = bt["stream"][0].numpy(), bt["ids"][0].numpy(), bt["pos"][0].numpy()
            np.testing.assert_array_equal(ids[P:P + R], resp)
            a, b = np.nonzero(st == gravity.CORR_A)[0], np.nonzero(st == gravity.CORR_B)[0]
            self.assertEqual(len(a), len(b))
            self.assertLessEqual(len(a), B)
            np.testing.assert_array_equal(pos[a], pos[b])
            r = pos[a] - P
            self.assertTrue(np.all(np.diff(r) == 1))
            blk = bt["blk"][0].numpy()[a]
            self.assertEqual(len(set(blk.tolist())), 1)  # one whole block
            self.assertTrue(np.all((ids[a] == cfg.mask_id) ^ (ids[b] == cfg.mask_id)))
            seen.add(int(blk[0]))
            # labels: masked tokens only, predictor = previous row of the same stream
            for i, y, k in zip(bt["df_i"].numpy(), bt["df_y"].numpy(), bt["df_s"].numpy()):
                rows = a if k == 0 else b
                if i == P - 1:
                    self.assertEqual(r[0], 0)
                    self.assertEqual(y, resp[0])
                else:
                    j = int(np.nonzero(rows == i)[0][0]) + 1
                    self.assertEqual(y, resp[r[j]])
                    self.assertEqual(ids[rows[j]], cfg.mask_id)
        nb = (R + B - 1) // B
        self.assertGreaterEqual(len(seen), nb - 1)

    def test_draft_window_is_in_distribution(self):
        """Draft mask rows of the decode window == training rows of an all-masked corrupted block."""
        torch.manual_seed(0)
        cfg = self.cfg
        B = cfg.block_size
        model = GravityOCR(cfg).eval()
        s = self.samples[0]
        bt = gravity.collate([s], cfg, np.random.default_rng(1), jitter=False, with_ctc=False)
        P = sum(s["strips"]) + len(s["strips"])
        R = len(s["ids"]) + B
        k = 1  # block 1 = response tokens B..2B-1, fully masked in stream A
        ids = bt["ids"].clone()
        ids[0, P + R + k * B:P + R + (k + 1) * B] = cfg.mask_id
        with torch.no_grad():
            x = model.embed_inputs(ids, bt["feats"], bt["is_vis"])
            h = model(x, bt["pos"], gravity.gravity_mask(bt["stream"], bt["pos"], bt["blk"]))
            train_rows = model.logits(h[0, P + R + k * B:P + R + (k + 1) * B])  # predict tokens kB+1..
            clean_row = model.logits(h[0, P + k * B - 1])  # clean row of token kB-1 -> predicts kB
        sess = decode.Session(model, s["feats"].astype(np.float32), s["strips"], s["task_id"], 64)
        # commit response tokens 0..kB-2 causally, x0 = token kB-1
        prev = s["ids"][:k * B - 1]
        sess.window(torch.cat([sess.x0_emb[None], sess.emb(prev)]), sess.x0_pos,
                    torch.ones(len(prev) + 1, len(prev) + 1, dtype=torch.bool).tril())
        p = sess.x0_pos + len(prev) + 1
        dmask = torch.zeros(B + 1, B + 1, dtype=torch.bool)
        dmask[0, 0] = True
        dmask[1:] = True
        xw = sess.emb([s["ids"][k * B - 1]] + [cfg.mask_id] * B)
        dl = sess.window(xw, p, dmask)
        torch.testing.assert_close(dl[0], clean_row, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(dl[1:], train_rows, atol=1e-5, rtol=1e-5)


class LossFallsTest(unittest.TestCase):
    def test_tiny_model_learns_fake_data(self):
        tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))
        cfg = tiny_cfg(tok.vocab_size, B=4, d_model=48, head_dim=24)
        with tempfile.TemporaryDirectory() as d:
            fake_data.make_split(d, 48, seed=0, max_len=6)
            ds = data.PackedFeatures(d, tok, cfg)
            stream = data.BatchStream(ds, 3000, seed=0, curriculum_steps=10)
            torch.manual_seed(0)
            model = GravityOCR(cfg, ctc_head=True)
            opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
            rng = np.random.default_rng(0)
            batches = [gravity.collate(stream.next(0), cfg, rng) for _ in range(2)]
            first = None
            for step in range(24):
                loss, logs = gravity.gravity_loss(model, batches[step % 2], ctc_weight=0.5,
                                                  guide_weight=0.5 if step >= 12 else 0.0)
                opt.zero_grad()
                loss.backward()
                opt.step()
                first = first if first is not None else logs
            for k in ("ar", "diff", "ctc"):
                self.assertLess(logs[k], 0.8 * first[k], k)
            self.assertIn("guide", logs)  # guided attention ran (CTC alignment found)
            self.assertIn("diff_a", logs)



class AlignTest(unittest.TestCase):
    def test_ctc_viterbi(self):
        from gocr.align import ctc_viterbi
        lp = np.full((10, 6), -10.0)
        for t, c in enumerate([0, 3, 3, 0, 4, 0, 0, 4, 5, 0]):  # chars 3,4,4,5 first read at 1,4,7,8
            lp[t, c] = 0.0
        self.assertEqual(ctc_viterbi(lp, [3, 4, 4, 5]).tolist(), [1, 4, 7, 8])
        self.assertIsNone(ctc_viterbi(lp[:3], [3, 4, 4, 5]))  # repeated char needs a blank between


if __name__ == "__main__":
    unittest.main()
