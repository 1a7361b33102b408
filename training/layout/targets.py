"""FCOS-style target assignment and losses for the single stride-8 head.

A cell is positive for a box when its centre lies inside the box (smallest box wins when several
contain it); a box that contains no cell centre (page numbers, tiny headers) gets the cell nearest to
its centre, so every box is trained. Regression targets are ltrb distances in input pixels.
"""
import numpy as np
import torch
import torch.nn.functional as F


def assign(boxes, labels, h, w, stride, with_weights=False):
    """boxes (K,4) float input px, labels (K,) int -> cls (h*w,) int (-1 = bg), ltrb (h*w,4) float
    [, weight (h*w,) float: n^-1/2 for the n cells of a box, 0 for background].

    Pure numpy so the data loader can run it per sample."""
    n = h * w
    cls_t = np.full(n, -1, np.int64)
    ltrb = np.zeros((n, 4), np.float32)
    owner = np.full(n, -1, np.int64)
    if len(boxes) == 0:
        return (cls_t, ltrb, np.zeros(n, np.float32)) if with_weights else (cls_t, ltrb)
    xs = (np.arange(w, dtype=np.float32) + 0.5) * stride
    ys = (np.arange(h, dtype=np.float32) + 0.5) * stride
    best_area = np.full(n, np.inf, np.float32)
    order = np.argsort([(b[2] - b[0]) * (b[3] - b[1]) for b in boxes])[::-1]  # big first, small overwrite
    for k in order:
        x0, y0, x1, y1 = [float(v) for v in boxes[k]]
        area = max(x1 - x0, 1e-3) * max(y1 - y0, 1e-3)
        c0 = int(np.searchsorted(xs, x0, "right"))
        c1 = int(np.searchsorted(xs, x1, "left"))
        r0 = int(np.searchsorted(ys, y0, "right"))
        r1 = int(np.searchsorted(ys, y1, "left"))
        if c1 <= c0 or r1 <= r0:  # no centre inside: nearest cell to the box centre
            cx = min(w - 1, max(0, int((x0 + x1) / 2 // stride)))
            cy = min(h - 1, max(0, int((y0 + y1) / 2 // stride)))
            c0, c1, r0, r1 = cx, cx + 1, cy, cy + 1
        rr, cc = np.meshgrid(np.arange(r0, r1), np.arange(c0, c1), indexing="ij")
        idx = (rr * w + cc).reshape(-1)
        take = idx[best_area[idx] > area]
        if len(take) == 0:
            continue
        best_area[take] = area
        cls_t[take] = labels[k]
        owner[take] = k
        px = xs[take % w]
        py = ys[take // w]
        ltrb[take, 0] = px - x0
        ltrb[take, 1] = py - y0
        ltrb[take, 2] = x1 - px
        ltrb[take, 3] = y1 - py
    # forced cells of tiny boxes may lie just outside: keep distances positive
    np.maximum(ltrb, 0.5, out=ltrb, where=(cls_t >= 0)[:, None])
    if not with_weights:
        return cls_t, ltrb
    counts = np.bincount(owner[owner >= 0], minlength=len(boxes)).astype(np.float32)
    weight = np.zeros(n, np.float32)
    pos = owner >= 0
    weight[pos] = 1.0 / np.sqrt(counts[owner[pos]])
    return cls_t, ltrb, weight


def centerness(ltrb):
    lr = ltrb[:, [0, 2]]
    tb = ltrb[:, [1, 3]]
    c = (lr.min(1)[0] / lr.max(1)[0].clamp(min=1e-6)) * (tb.min(1)[0] / tb.max(1)[0].clamp(min=1e-6))
    return torch.sqrt(c.clamp(min=0))


def giou_loss_ltrb(pred, tgt):
    """Both (P,4) ltrb distances from the same cell centre -> (P,) 1 - GIoU."""
    pa = (pred[:, 0] + pred[:, 2]) * (pred[:, 1] + pred[:, 3])
    ta = (tgt[:, 0] + tgt[:, 2]) * (tgt[:, 1] + tgt[:, 3])
    iw = torch.min(pred[:, 0], tgt[:, 0]) + torch.min(pred[:, 2], tgt[:, 2])
    ih = torch.min(pred[:, 1], tgt[:, 1]) + torch.min(pred[:, 3], tgt[:, 3])
    inter = iw.clamp(min=0) * ih.clamp(min=0)
    union = pa + ta - inter
    iou = inter / union.clamp(min=1e-6)
    ew = torch.max(pred[:, 0], tgt[:, 0]) + torch.max(pred[:, 2], tgt[:, 2])
    eh = torch.max(pred[:, 1], tgt[:, 1]) + torch.max(pred[:, 3], tgt[:, 3])
    enc = (ew * eh).clamp(min=1e-6)
    giou = iou - (enc - union) / enc
    return 1.0 - giou


def sigmoid_focal(logits, onehot, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, onehot, reduction="none")
    pt = p * onehot + (1 - p) * (1 - onehot)
    a = alpha * onehot + (1 - alpha) * (1 - onehot)
    return a * ce * (1 - pt) ** gamma


def detection_loss(cls, reg, ctr, cls_t, ltrb_t, inst_w=None):
    """cls (N,C,h,w), reg (N,4,h,w), ctr (N,1,h,w); cls_t (N,hw) long, ltrb_t (N,hw,4);
    inst_w (N,hw) optional per-cell instance weights (see assign): positives are re-weighted so
    small boxes (page numbers, headers: one or two cells) count more next to paragraphs of hundreds
    of cells; the positive weights are rescaled to mean 1, so the pos/neg balance is unchanged.

    Returns total loss and a dict of parts (floats)."""
    n, c = cls.shape[:2]
    logits = cls.reshape(n, c, -1).permute(0, 2, 1).reshape(-1, c)
    cls_t = cls_t.reshape(-1)
    pos = cls_t >= 0
    npos = max(1.0, float(pos.sum()))
    onehot = torch.zeros_like(logits)
    onehot[pos, cls_t[pos]] = 1.0
    cell_w = torch.ones(logits.shape[0], device=logits.device)
    if inst_w is not None and bool(pos.any()):
        pw = inst_w.reshape(-1)[pos]
        cell_w[pos] = pw * (pw.numel() / pw.sum().clamp(min=1e-6))
    l_cls = (sigmoid_focal(logits, onehot).sum(1) * cell_w).sum() / npos
    d = torch.exp(reg.clamp(max=7.0)).reshape(n, 4, -1).permute(0, 2, 1).reshape(-1, 4)[pos]
    t = ltrb_t.reshape(-1, 4)[pos]
    ctr_t = centerness(t)
    w = ctr_t.clamp(min=0.05) * cell_w[pos]
    l_box = (giou_loss_ltrb(d, t) * w).sum() / w.sum().clamp(min=1e-6)
    z = ctr.reshape(-1)[pos]
    l_ctr = (F.binary_cross_entropy_with_logits(z, ctr_t, reduction="none") * cell_w[pos]).mean() if len(z) else z.sum()
    loss = l_cls + 2.0 * l_box + l_ctr
    return loss, {"cls": float(l_cls), "box": float(l_box), "ctr": float(l_ctr), "npos": npos}
