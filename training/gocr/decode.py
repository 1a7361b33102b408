"""Reference decoders over a KV cache: greedy AR, self-speculative rounds, direct block diffusion.

Window semantics are those of docs/ARCHITECTURE.md. Every decoder runs through ONE function,
`Session.window`, which forwards W rows at positions pos0..pos0+W-1 against a fixed-length K/V
buffer (attention always spans the whole buffer; slots a row may not see get exactly zero weight).
With `exact=True` (default) every row is computed by its own 1-row ops of identical shapes, so a
row's result never depends on the window size, its index in the window or what the other rows
hold: a verify row is bit-identical to the AR step for the same token, and self-spec output equals
greedy AR by construction (tested). `exact=False` batches the rows (faster, equal to ~1e-6).

Cache invariant: slots < cache_len hold causal K/V of committed tokens; x0 (the last committed
token) is never in the cache before its window; slots >= cache_len are scratch.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from .gravity import build_prefix


class Session:
    def __init__(self, model, feats, strips, task_id, max_new_tokens=256, exact=True, extra=0):
        self.m, self.cfg, self.exact = model, model.cfg, exact
        cfg = self.cfg
        ids, is_vis, vis_row = build_prefix(strips, task_id, cfg.sep_id)
        self.prompt_ids = ids
        P = len(ids)
        self.P = P
        self.Lbuf = min(cfg.max_positions, P + max_new_tokens + 2 * cfg.block_size + 4 + extra)
        dev = next(model.parameters()).device
        self.dev = dev
        H, hd = cfg.n_heads, cfg.head_dim
        self.K = [torch.zeros(H, self.Lbuf, hd, device=dev) for _ in range(cfg.n_layers)]
        self.V = [torch.zeros(H, self.Lbuf, hd, device=dev) for _ in range(cfg.n_layers)]
        self.forwards = 0
        with torch.no_grad():
            f = torch.as_tensor(np.asarray(feats, np.float32), device=dev)
            idt = torch.as_tensor(ids, device=dev)
            vr = torch.as_tensor(vis_row, device=dev)
            x = model.embed(idt)
            isv = vr >= 0
            x[isv] = model.vision_proj(f[vr[isv]])
            self.prefix_emb = x  # (P, d)
            # prefill: every prefix row but the task token (which is x0 of the first window)
            # (batched even in exact mode: AR and self-spec share it, only later rows must agree)
            if P > 1:
                self.window(x[:P - 1], 0, torch.ones(P - 1, P - 1, dtype=torch.bool, device=dev).tril(),
                            count=False, need_logits=False, exact_rows=0)
        self.cache_len = P - 1
        self.x0_emb = x[P - 1]
        self.x0_pos = P - 1

    # -- the one forward ------------------------------------------------------------------
    @torch.no_grad()
    def window(self, x, pos0, intra, count=True, need_logits=True, exact_rows=None):
        """x (W, d) input embeddings at positions pos0..pos0+W-1; intra (W, W) bool mask among the
        window rows; every row also sees cache slots < pos0. Writes the rows' K/V into slots
        pos0.. (scratch until the caller advances cache_len). Returns logits (W, V) float32.
        exact_rows: in exact mode, how many leading rows get the 1-row path (default all); the
        rest are batched (used for draft mask rows, whose values never reach the cache)."""
        m, cfg = self.m, self.cfg
        W = x.shape[0]
        H, hd = cfg.n_heads, cfg.head_dim
        if pos0 + W > self.Lbuf:
            raise ValueError("KV buffer too small: raise max_new_tokens/extra")
        if count:
            self.forwards += 1
        allowed = torch.zeros(W, self.Lbuf, dtype=torch.bool, device=self.dev)
        allowed[:, :pos0] = True
        allowed[:, pos0:pos0 + W] = intra
        cos = m.rope_cos[pos0:pos0 + W]  # (W, hd/2)
        sin = m.rope_sin[pos0:pos0 + W]
        scale = 1.0 / math.sqrt(hd)
        if not self.exact:
            rows = [slice(0, W)]
        else:
            ne = W if exact_rows is None else min(W, exact_rows)
            rows = list(range(ne)) + ([slice(ne, W)] if ne < W else [])

        def sl(r):
            return slice(r, r + 1) if isinstance(r, int) else r

        for li, layer in enumerate(m.layers):
            K, V = self.K[li], self.V[li]
            qs = {}
            for r in rows:
                s = sl(r)
                h = layer.attn_norm(x[s])  # (w, d)
                w = h.shape[0]
                q = layer.attn.wq(h).view(w, H, hd).transpose(0, 1)  # (H, w, hd)
                k = layer.attn.wk(h).view(w, H, hd).transpose(0, 1)
                v = layer.attn.wv(h).view(w, H, hd).transpose(0, 1)
                from .model import apply_rope
                q, k = apply_rope(q, cos[s], sin[s]), apply_rope(k, cos[s], sin[s])
                K[:, pos0 + s.start:pos0 + s.stop] = k
                V[:, pos0 + s.start:pos0 + s.stop] = v
                qs[s.start] = q
            out = torch.empty_like(x)
            for r in rows:
                s = sl(r)
                q = qs[s.start]
                att = (q @ K.transpose(1, 2)) * scale  # (H, w, Lbuf)
                att = att.masked_fill(~allowed[s][None], float("-inf")).softmax(-1)
                y = (att @ V).transpose(0, 1).reshape(q.shape[1], H * hd)  # (w, H*hd)
                xr = x[s] + layer.attn.wo(y)
                out[s] = xr + layer.mlp(layer.mlp_norm(xr))
            x = out
        if not need_logits:
            return None
        logits = torch.empty(W, cfg.vocab_size, device=self.dev)
        for r in rows:
            s = sl(r)
            logits[s] = m.lm_head(m.norm(x[s])).float()
        return logits

    def emb(self, ids):
        return self.m.embed(torch.as_tensor(ids, device=self.dev, dtype=torch.long))


def _causal(W, dev):
    return torch.ones(W, W, dtype=torch.bool, device=dev).tril()


def ar_greedy(model, feats, strips, task_id, max_new_tokens=256, exact=True, trace=False):
    """Greedy AR: one 1-row window per token. -> dict(ids, forwards, tpf, prefix_last_logits?)."""
    s = Session(model, feats, strips, task_id, max_new_tokens, exact)
    eos, out = model.cfg.eos_id, []
    x, pos = s.x0_emb[None], s.x0_pos
    first = None
    while len(out) < max_new_tokens:
        lg = s.window(x, pos, _causal(1, s.dev))
        if first is None:
            first = lg[0]
        t = int(lg[0].argmax())
        out.append(t)
        s.cache_len = pos + 1
        if t == eos:
            break
        x, pos = s.emb([t]), pos + 1
    res = {"ids": out, "forwards": s.forwards, "tpf": len(out) / max(1, s.forwards)}
    if trace:
        res["prefix_last_logits"] = first
    return res


def self_spec(model, feats, strips, task_id, max_new_tokens=256, block_size=None, exact=True,
              keep_windows=False):
    """Self-speculative rounds (ARCHITECTURE.md). -> dict(ids, rounds, forwards, tpf, accepted)."""
    cfg = model.cfg
    B = block_size or cfg.block_size
    s = Session(model, feats, strips, task_id, max_new_tokens, exact, extra=B)
    dev, eos = s.dev, cfg.eos_id
    out, rounds = [], []
    x0_emb, p = s.x0_emb, s.x0_pos
    x0_id = task_id
    # draft mask: row 0 causal (itself only inside the window); mask rows see x0 and all masks
    dmask = torch.zeros(B + 1, B + 1, dtype=torch.bool, device=dev)
    dmask[0, 0] = True
    dmask[1:, :] = True
    vmask = _causal(B + 1, dev)
    mask_emb = s.emb([cfg.mask_id] * B)
    while len(out) < max_new_tokens:
        committed_before = list(out)
        xw = torch.cat([x0_emb[None], mask_emb], 0)
        dl = s.window(xw, p, dmask, exact_rows=1)  # draft: row 0 exact (it is an AR step)
        a0 = int(dl[0].argmax())
        d = dl[1:].argmax(-1).tolist()  # d_1..d_B
        s.cache_len = p + 1  # x0's causal K/V from row 0
        if a0 == eos:  # the AR token ends the sequence: nothing to verify (no verify forward)
            out.append(eos)
            rounds.append({"draft": [a0] + d, "accepted": 0, "committed": [eos]})
            if keep_windows:
                rounds[-1].update(x0=x0_id, pos=p, committed_before=committed_before,
                                  draft_window=[x0_id] + [cfg.mask_id] * B, draft_logits=dl,
                                  verify_window=None, verify_logits=None)
            break
        vids = [a0] + d
        vl = s.window(s.emb(vids), p + 1, vmask)  # verify
        a = vl.argmax(-1).tolist()  # a_1..a_{B+1}
        k = 0
        while k < B and d[k] == a[k]:
            k += 1
        commit = [a0] + d[:k] + [a[k]]
        # truncate at eos / budget
        cut = len(commit)
        for j, t in enumerate(commit):
            if t == eos:
                cut = j + 1
                break
        cut = min(cut, max_new_tokens - len(out))
        commit = commit[:cut]
        out += commit
        rounds.append({"draft": [a0] + d, "accepted": k, "committed": commit})
        if keep_windows:
            rounds[-1].update(x0=x0_id, pos=p, committed_before=committed_before,
                              draft_window=[x0_id] + [cfg.mask_id] * B, draft_logits=dl,
                              verify_window=vids, verify_logits=vl)
        s.cache_len = p + 1 + k + 1  # a0, d1..dk keep the verify pass's causal K/V
        if eos in commit or len(out) >= max_new_tokens:
            break
        x0_id = commit[-1]
        x0_emb, p = s.emb([x0_id])[0], p + k + 2
    n_acc = [r["accepted"] for r in rounds]
    return {"ids": out, "rounds": rounds, "forwards": s.forwards,
            "tpf": len(out) / max(1, s.forwards), "mean_accepted": float(np.mean(n_acc)) if n_acc else 0.0}


def diffusion(model, feats, strips, task_id, max_new_tokens=256, block_size=None, threshold=0.9,
              exact=False):
    """Direct block diffusion (App. B.1): window [x0 | B slots]; unmask slots whose confidence is
    >= threshold (at least the most confident one) per step; then one causal cache-write forward
    per finished block. -> dict(ids, forwards, tpf, steps)."""
    cfg = model.cfg
    B = block_size or cfg.block_size
    s = Session(model, feats, strips, task_id, max_new_tokens, exact, extra=B)
    dev, eos, mid = s.dev, cfg.eos_id, cfg.mask_id
    out = []
    x0_emb, p = s.x0_emb, s.x0_pos
    dmask = torch.zeros(B + 1, B + 1, dtype=torch.bool, device=dev)
    dmask[0, 0] = True
    dmask[1:, :] = True
    steps = 0
    while len(out) < max_new_tokens:
        slots = [mid] * B
        filled = [False] * B
        while not all(filled):
            xw = torch.cat([x0_emb[None], s.emb(slots)], 0)
            lg = s.window(xw, p, dmask, exact_rows=1)  # row j predicts slot j+1
            steps += 1
            s.cache_len = p + 1
            prob = lg[:B].softmax(-1)
            conf, tok = prob.max(-1)
            open_ = [j for j in range(B) if not filled[j]]
            pick = [j for j in open_ if float(conf[j]) >= threshold]
            if not pick:
                pick = [max(open_, key=lambda j: float(conf[j]))]
            for j in pick:
                slots[j], filled[j] = int(tok[j]), True
        commit = slots
        if eos in commit:
            commit = commit[:commit.index(eos) + 1]
        commit = commit[:max_new_tokens - len(out)]
        out += commit
        if eos in commit or len(out) >= max_new_tokens:
            break
        # cache-write: causal K/V for slots 1..B-1; slot B becomes the next x0
        s.window(s.emb(slots[:-1]), p + 1, _causal(B - 1, dev), need_logits=False)
        s.cache_len = p + B
        x0_emb, p = s.emb([slots[-1]])[0], p + B
    return {"ids": out, "forwards": s.forwards, "tpf": len(out) / max(1, s.forwards), "steps": steps}
