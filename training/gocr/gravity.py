"""GravityOCR joint loss: one clean causal stream + two complementary corrupted streams, packed.

Per sample, ONE sequence (docs/ARCHITECTURE.md positions; DESIGN §2):

    [ prefix (vision rows, <sep>s, <task_X>) | clean x0 (R) | corrupted A (R) | corrupted B (R) ]
      positions 0..P-1                         P..P+R-1       P..P+R-1          P..P+R-1

R = n response tokens + exactly B <eos> (EOS block fill). Blocks are response-relative with a
random phase: blk(r) = (r + delta) // B, delta ~ U{0..B-1} (off-grid blocks are in distribution,
which is what a partially accepted round leaves). Attention (True = may attend):
  prefix     : causal within the prefix
  clean      : whole prefix + clean causal (token-causal, so the AR loss is valid)
  corrupted  : whole prefix + clean tokens of EARLIER blocks + its own block of the same stream
               (bidirectional); never the current/later clean blocks, never the other stream.
Logits are shifted on both paths: the row at response index r-1 predicts token r, and token 0 is
predicted by the <task_X> row. For a corrupted stream the predictor of token r is that stream's
row r-1, which for a block's first token sits in the previous block. This is exactly the decode
window: [x0 | B masks] at p..p+B; x0 is the clean last token of the previous block (visible to the
masks), row 0 is causal (= the clean stream), the mask at p+j predicts token p+j+1.
Loss = (mean AR CE over tokens 0..n (first EOS only) + lam * mean CE over masked tokens of both
corrupted streams, all R including the EOS fill) / (1 + lam). Optional CTC on the vision rows.
"""
import numpy as np
import torch
import torch.nn.functional as F

PAD_STREAM, PREFIX, CLEAN, CORR_A, CORR_B = -1, 0, 1, 2, 3


def build_prefix(n_rows_per_strip, task_id, sep_id):
    """-> (ids, is_vis, vis_row) lists for [strip0 rows][<sep>][strip1 rows]...[<task>]."""
    ids, is_vis, vis_row = [], [], []
    row = 0
    for s, n in enumerate(n_rows_per_strip):
        if s > 0:
            ids.append(sep_id); is_vis.append(False); vis_row.append(-1)
        for _ in range(n):
            ids.append(0); is_vis.append(True); vis_row.append(row)
            row += 1
    ids.append(task_id); is_vis.append(False); vis_row.append(-1)
    return ids, is_vis, vis_row


def gravity_mask(stream, pos, blk):
    """stream/pos/blk (B, L) long -> (B, L, L) bool attention mask (True = attend)."""
    sq, sk = stream[:, :, None], stream[:, None, :]
    pq, pk = pos[:, :, None], pos[:, None, :]
    bq, bk = blk[:, :, None], blk[:, None, :]
    to_prefix = (sk == PREFIX) & (pk <= pq) & (sq != PAD_STREAM)
    clean = (sq == CLEAN) & (sk == CLEAN) & (pk <= pq)
    corr_to_clean = (sq >= CORR_A) & (sk == CLEAN) & (bk < bq)
    corr_self = (sq >= CORR_A) & (sk == sq) & (bk == bq)
    m = to_prefix | clean | corr_to_clean | corr_self
    L = stream.shape[1]
    return m | torch.eye(L, dtype=torch.bool, device=stream.device)[None]  # pad rows: self only


def collate(samples, cfg, rng, jitter=True, eps=1e-3, with_ctc=True, struct_ids=None, diff_blocks=0):
    """samples: dicts with feats (T, vision_dim) float16 np, strips [n...], task_id, ids [n].
    rng: np.random.Generator. Returns a dict of tensors (CPU) for gravity_loss.
    diff_blocks > 0 (CPU budget option): the corrupted streams carry only a random run of at most
    that many blocks (every block equally likely; the rules above unchanged inside it; the first
    token of a run that starts after r=0 has no predictor row and is not supervised). 0 = all."""
    B = cfg.block_size
    rows = []
    for s in samples:
        pid, pvis, prow = build_prefix(s["strips"], s["task_id"], cfg.sep_id)
        P = len(pid)
        resp = list(s["ids"]) + [cfg.eos_id] * B
        R = len(resp)
        n = len(s["ids"])
        delta = int(rng.integers(0, B)) if jitter else 0
        blk = (np.arange(R) + delta) // B
        nb = int(blk[-1]) + 1
        p_blk = (1 - eps) * rng.random(nb) + eps
        mask_a = rng.random(R) < p_blk[blk]
        r0, r1 = 0, R
        if diff_blocks and nb > diff_blocks:
            k0 = int(rng.integers(-(diff_blocks - 1), nb))
            k1 = min(nb, k0 + diff_blocks)
            k0 = max(0, k0)
            sel = np.nonzero((blk >= k0) & (blk < k1))[0]
            r0, r1 = int(sel[0]), int(sel[-1]) + 1
        rows.append((s, pid, pvis, prow, P, resp, R, n, blk, mask_a, r0, r1))
    Lmax = max(r[4] + r[6] + 2 * (r[11] - r[10]) for r in rows)
    Bs = len(rows)
    ids = np.zeros((Bs, Lmax), np.int64)
    is_vis = np.zeros((Bs, Lmax), bool)
    feats = np.zeros((Bs, Lmax, cfg.vision_dim), np.float32)
    stream = np.full((Bs, Lmax), PAD_STREAM, np.int64)
    pos = np.zeros((Bs, Lmax), np.int64)
    blk_all = np.full((Bs, Lmax), -1, np.int64)
    ar_b, ar_i, ar_y = [], [], []
    df_b, df_i, df_y, df_s = [], [], [], []
    ctc_rows, ctc_tgts, ctc_use = [], [], []
    g_b, g_q, g_c = [], [], []
    for b, (s, pid, pvis, prow, P, resp, R, n, blk, mask_a, r0, r1) in enumerate(rows):
        resp = np.asarray(resp, np.int64)
        ids[b, :P] = pid
        is_vis[b, :P] = pvis
        vr = np.asarray(prow)
        feats[b, :P][vr >= 0] = np.asarray(s["feats"], np.float32)[vr[vr >= 0]]
        stream[b, :P] = PREFIX
        pos[b, :P] = np.arange(P)
        stream[b, P:P + R] = CLEAN
        ids[b, P:P + R] = resp
        pos[b, P:P + R] = P + np.arange(R)
        blk_all[b, P:P + R] = blk
        Rc = r1 - r0
        for k, m in enumerate((mask_a[r0:r1], ~mask_a[r0:r1])):
            o = P + R + k * Rc  # row of response index r is o + r - r0
            ids[b, o:o + Rc] = np.where(m, cfg.mask_id, resp[r0:r1])
            stream[b, o:o + Rc] = CORR_A + k
            pos[b, o:o + Rc] = P + np.arange(r0, r1)
            blk_all[b, o:o + Rc] = blk[r0:r1]
            r = r0 + np.nonzero(m)[0]  # diffusion targets: masked tokens of this stream
            r = r[(r == 0) | (r > r0)]
            pred = np.where(r == 0, P - 1, o + r - r0 - 1)
            df_b += [b] * len(r); df_i += pred.tolist(); df_y += resp[r].tolist()
            df_s += [k] * len(r)
        # AR targets: tokens 0..n (the response and the FIRST eos of the fill)
        t = np.arange(n + 1)
        ar_b += [b] * len(t); ar_i += np.where(t == 0, P - 1, P + t - 1).tolist()
        ar_y += resp[t].tolist()
        if with_ctc:
            # guided-attention candidates: AR rows predicting a CTC-target character
            use = s.get("task") != "formula"
            c = 0
            for t in range(n):
                if struct_ids is None or s["ids"][t] not in struct_ids:
                    if use:
                        g_b.append(b); g_q.append(P - 1 if t == 0 else P + t - 1); g_c.append(c)
                    c += 1
            ctc_rows.append(np.nonzero(np.asarray(pvis))[0])
            tg = [i for i in s["ids"] if struct_ids is None or i not in struct_ids]
            ctc_tgts.append(tg)
            # LaTeX token order is not the visual left-to-right order: no CTC for formulas
            ctc_use.append(s.get("task") != "formula" and len(tg) > 0)
    out = dict(ids=ids, is_vis=is_vis, feats=feats, stream=stream, pos=pos, blk=blk_all,
               ar_b=ar_b, ar_i=ar_i, ar_y=ar_y, df_b=df_b, df_i=df_i, df_y=df_y, df_s=df_s)
    out = {k: torch.as_tensor(np.asarray(v, dtype=np.float32 if k == "feats" else None))
           for k, v in out.items()}
    for k in ("ar_b", "ar_i", "ar_y", "df_b", "df_i", "df_y", "df_s"):
        out[k] = out[k].long()
    if with_ctc:
        T = max(len(r) for r in ctc_rows)
        cidx = np.zeros((Bs, T), np.int64)
        for b, r in enumerate(ctc_rows):
            cidx[b, :len(r)] = r
        out["ctc_idx"] = torch.as_tensor(cidx)
        out["ctc_in_len"] = torch.as_tensor([len(r) for r in ctc_rows], dtype=torch.long)
        out["ctc_tgt"] = torch.as_tensor([i for t in ctc_tgts for i in t], dtype=torch.long)
        out["ctc_tgt_len"] = torch.as_tensor([len(t) for t in ctc_tgts], dtype=torch.long)
        out["ctc_use"] = torch.as_tensor(ctc_use, dtype=torch.bool)
        out["g_b"], out["g_q"], out["g_c"] = (torch.as_tensor(np.asarray(v, np.int64)) for v in (g_b, g_q, g_c))
    out["n_tokens"] = int((stream >= 0).sum())
    return out


def gravity_loss(model, batch, lam=1.0, ctc_weight=0.0, device="cpu", guide_weight=0.0, guide_layer=1):
    """-> (total loss tensor, dict of floats: ar, diff, diff_a, diff_b, ctc, guide, n_ar, n_diff).
    guide_weight > 0: guided attention (training aid): head 0 of layer `guide_layer` of each AR
    row is pulled (NLL of the mass within +-1 row) to the vision row where the CTC head's Viterbi
    alignment reads the character that row must predict."""
    bt = {k: (v.to(device) if torch.is_tensor(v) else v) for k, v in batch.items()}
    has_ctc = model.ctc_head is not None and "ctc_idx" in bt and bool(bt["ctc_use"].any())
    guide = guide_weight > 0 and has_ctc and bt["g_b"].numel() > 0
    probe = model.layers[guide_layer].attn if guide else None
    if guide:
        probe.probe_rows = (bt["g_b"], bt["g_q"])
    x = model.embed_inputs(bt["ids"], bt["feats"], bt["is_vis"])  # (B, L, d)
    mask = gravity_mask(bt["stream"], bt["pos"], bt["blk"])  # (B, L, L)
    try:
        h = model(x, bt["pos"], mask)  # (B, L, d)
    finally:
        if guide:
            probe.probe_rows = None
    ar_logits = model.logits(h[bt["ar_b"], bt["ar_i"]]).float()
    ar = F.cross_entropy(ar_logits, bt["ar_y"])
    df_logits = model.logits(h[bt["df_b"], bt["df_i"]]).float()
    df_tok = F.cross_entropy(df_logits, bt["df_y"], reduction="none")
    diff = df_tok.mean()
    loss = (ar + lam * diff) / (1.0 + lam)
    st = bt["df_s"]
    logs = {"ar": ar.item(), "diff": diff.item(),
            "diff_a": df_tok[st == 0].mean().item() if (st == 0).any() else 0.0,
            "diff_b": df_tok[st == 1].mean().item() if (st == 1).any() else 0.0,
            "n_ar": int(bt["ar_y"].numel()), "n_diff": int(bt["df_y"].numel())}
    if has_ctc and (ctc_weight > 0 or guide):
        hv = torch.gather(h, 1, bt["ctc_idx"][..., None].expand(-1, -1, h.shape[-1]))  # (B, T, d)
        lp = model.ctc_head(hv).float().log_softmax(-1)  # (B, T, V)
        use = bt["ctc_use"]
        if ctc_weight > 0:
            per = F.ctc_loss(lp.transpose(0, 1), bt["ctc_tgt"], bt["ctc_in_len"], bt["ctc_tgt_len"],
                             blank=model.cfg.pad_id, reduction="none", zero_infinity=True)
            ctc = (per[use] / bt["ctc_tgt_len"][use].clamp(min=1)).mean()
            loss = loss + ctc_weight * ctc
            logs["ctc"] = ctc.item()
        if guide:
            g = _guided_attention(probe.probe_out, lp.detach(), bt, model.cfg.pad_id)
            probe.probe_out = None
            if g is not None:
                loss = loss + guide_weight * g
                logs["guide"] = g.item()
    logs["loss"] = loss.item()
    return loss, logs


def _guided_attention(att, lp, bt, blank):
    """att (N, L) head-0 probabilities of the candidate rows; lp (B, T, V) CTC log-probs."""
    from .align import ctc_viterbi
    lp_np = lp.cpu().numpy()
    tl = bt["ctc_tgt_len"].cpu().numpy()
    starts = np.concatenate([[0], np.cumsum(tl)])
    tg = bt["ctc_tgt"].cpu().numpy()
    cidx = bt["ctc_idx"].cpu().numpy()
    inl = bt["ctc_in_len"].cpu().numpy()
    g_b, g_c = bt["g_b"].cpu().numpy(), bt["g_c"].cpu().numpy()
    key = np.full(len(g_b), -1, np.int64)
    for b in np.unique(g_b):
        first = ctc_viterbi(lp_np[b, :inl[b]], tg[starts[b]:starts[b + 1]].tolist(), blank)
        if first is None:
            continue
        sel = np.nonzero(g_b == b)[0]
        key[sel] = cidx[b, first[g_c[sel]]]
    ok = np.nonzero(key >= 0)[0]
    if len(ok) == 0:
        return None
    okt = torch.as_tensor(ok, device=att.device)
    k = torch.as_tensor(key[ok], device=att.device)
    a = att[okt]  # (M, L)
    L = a.shape[1]
    m = a.gather(1, k[:, None]) + a.gather(1, (k - 1).clamp(min=0)[:, None]) \
        + a.gather(1, (k + 1).clamp(max=L - 1)[:, None])
    return -(m.squeeze(1) + 1e-6).log().mean()
