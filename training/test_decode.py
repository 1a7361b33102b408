"""Reference decoders: verify rows are bit-identical to AR steps, self-spec == greedy AR,
bookkeeping of fully accepted rounds, direct diffusion, cached AR == full causal forward."""
import unittest

import numpy as np
import torch

from gocr import decode, gravity
from gocr.model import GOCRConfig, GravityOCR

torch.set_num_threads(1)


def tiny(B=4, seed=0, V=40):
    torch.manual_seed(seed)
    cfg = GOCRConfig(vocab_size=V, d_model=32, n_layers=2, n_heads=2, head_dim=16, ffn_dim=64,
                     block_size=B, max_positions=512)
    return GravityOCR(cfg).eval()


def inputs(seed=0, strips=(5, 4)):
    r = np.random.default_rng(seed)
    return r.standard_normal((sum(strips), 120)).astype(np.float32), list(strips)


class DecodeTest(unittest.TestCase):
    def test_verify_rows_bit_identical_to_ar_steps(self):
        m = tiny()
        f, st = inputs()
        ar = decode.Session(m, f, st, 6, 64)
        toks = [11, 12, 13, 14, 15, 16, 17]
        ar_logits, x, p = [], ar.x0_emb[None], ar.x0_pos
        for t in toks:
            ar_logits.append(ar.window(x, p, torch.ones(1, 1, dtype=torch.bool))[0])
            ar.cache_len = p + 1
            x, p = ar.emb([t]), p + 1
        sp = decode.Session(m, f, st, 6, 64)
        B = 4
        dmask = torch.zeros(B + 1, B + 1, dtype=torch.bool)
        dmask[0, 0] = True
        dmask[1:] = True
        dl = sp.window(torch.cat([sp.x0_emb[None], sp.emb([m.cfg.mask_id] * B)]), sp.x0_pos, dmask)
        self.assertTrue(torch.equal(dl[0], ar_logits[0]))  # draft row 0 == first AR step
        vl = sp.window(sp.emb(toks[:B + 1]), sp.x0_pos + 1, torch.ones(B + 1, B + 1, dtype=torch.bool).tril())
        for j in range(B + 1):
            self.assertTrue(torch.equal(vl[j], ar_logits[j + 1]), f"verify row {j}")

    def test_self_spec_equals_ar_random_models(self):
        for seed in range(3):
            m = tiny(seed=seed)
            f, st = inputs(seed)
            a = decode.ar_greedy(m, f, st, 7, max_new_tokens=30)
            s = decode.self_spec(m, f, st, 7, max_new_tokens=30)
            self.assertEqual(a["ids"], s["ids"])
            # draft + verify per round, except a last round whose a0 is EOS (draft only)
            last_eos_a0 = s["rounds"][-1]["draft"][0] == m.cfg.eos_id
            self.assertEqual(s["forwards"], 2 * len(s["rounds"]) - int(last_eos_a0))
            for r in s["rounds"][:-1]:  # every round but the last commits a0 + correction/bonus
                self.assertEqual(len(r["committed"]), r["accepted"] + 2)

    def test_fully_accepted_rounds(self):
        # a model that always predicts token c: every draft is accepted, B+2 tokens per round
        m = tiny(B=4)
        c = 20
        with torch.no_grad():
            for layer in m.layers:
                layer.attn.wo.weight.zero_()
                layer.mlp.w_down.weight.zero_()
            m.embed.weight[:] = 1.0
            m.lm_head.weight.zero_()
            m.lm_head.weight[c] = 1.0
        f, st = inputs()
        a = decode.ar_greedy(m, f, st, 6, max_new_tokens=20)
        s = decode.self_spec(m, f, st, 6, max_new_tokens=20)
        self.assertEqual(a["ids"], [c] * 20)
        self.assertEqual(s["ids"], a["ids"])
        self.assertEqual([r["accepted"] for r in s["rounds"]][:3], [4, 4, 4])
        self.assertEqual([len(r["committed"]) for r in s["rounds"]], [6, 6, 6, 2])
        d = decode.diffusion(m, f, st, 6, max_new_tokens=20, threshold=0.0)
        self.assertEqual(d["ids"], [c] * 20)
        # 5 blocks of 4, each 1 step (all slots confident) + a cache write except the last
        self.assertEqual(d["forwards"], 5 + 4)

    def test_diffusion_runs_and_counts(self):
        m = tiny()
        f, st = inputs(1)
        d = decode.diffusion(m, f, st, 6, max_new_tokens=12, threshold=0.9)
        self.assertEqual(len(d["ids"]), 12)
        self.assertAlmostEqual(d["tpf"], 12 / d["forwards"])

    def test_cached_ar_matches_full_forward(self):
        m = tiny()
        f, st = inputs(2)
        a = decode.ar_greedy(m, f, st, 6, max_new_tokens=10, trace=True)
        fast = decode.ar_greedy(m, f, st, 6, max_new_tokens=10, exact=False)
        self.assertEqual(a["ids"], fast["ids"])
        ids, _, vr = gravity.build_prefix(st, 6, m.cfg.sep_id)
        P = len(ids)
        seq = ids + a["ids"][:-1]
        vr = torch.tensor(vr)
        with torch.no_grad():
            x = m.embed(torch.tensor(seq))
            x[:P][vr >= 0] = m.vision_proj(torch.tensor(f))[vr[vr >= 0]]
            L = len(seq)
            h = m(x[None], torch.arange(L)[None], torch.ones(L, L, dtype=torch.bool).tril())
            lg = m.logits(h[0, P - 1:])
        self.assertEqual(lg.argmax(-1).tolist(), a["ids"])
        torch.testing.assert_close(a["prefix_last_logits"], lg[0], atol=1e-5, rtol=1e-5)


if __name__ == "__main__":
    unittest.main()
