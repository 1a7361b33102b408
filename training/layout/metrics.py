"""Post-processing (threshold, class-wise NMS, clip) and COCO-style mAP, mirrored in TS.

`postprocess` is the Python twin of `src/layout/postprocess.ts` (same order of operations), and
`average_precision` the twin of `src/layout/map.ts`: 101-point interpolated AP, greedy matching in
descending score order, each ground-truth box matched at most once (highest IoU wins).
"""
import numpy as np

IOU_THRESHOLDS = [0.5 + 0.05 * i for i in range(10)]


def iou_matrix(a, b):
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    ix0 = np.maximum(a[:, None, 0], b[None, :, 0])
    iy0 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix1 = np.minimum(a[:, None, 2], b[None, :, 2])
    iy1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    aa = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    ab = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = aa[:, None] + ab[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)


def nms(boxes, scores, iou_thr):
    """Greedy NMS; returns kept indices in descending score order (ties: lower index first).
    A box is suppressed when its IoU with a kept box is > iou_thr."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    scores = np.asarray(scores, np.float64)
    order = np.lexsort((np.arange(len(scores)), -scores))
    keep = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        if rest.size == 0:
            break
        ious = iou_matrix(boxes[i:i + 1], boxes[rest])[0]
        order = rest[ious <= iou_thr]
    return keep


def postprocess(scores, boxes, scale, page_w, page_h, score_thr, nms_iou, max_det, pre_nms_top=10000):
    """scores (HW, C), boxes (HW, 4) in input px -> [{cls, box (page px), score}] sorted by score."""
    scores = np.asarray(scores, np.float32)
    boxes = np.asarray(boxes, np.float32)
    cells, classes = np.nonzero(scores > score_thr)
    vals = scores[cells, classes]
    order = np.lexsort((cells * scores.shape[1] + classes, -vals))[:pre_nms_top]
    cells, classes, vals = cells[order], classes[order], vals[order]
    out = []
    for c in np.unique(classes):
        m = classes == c
        b = boxes[cells[m]].astype(np.float64) / scale
        b[:, [0, 2]] = np.clip(b[:, [0, 2]], 0, page_w)
        b[:, [1, 3]] = np.clip(b[:, [1, 3]], 0, page_h)
        v = vals[m]
        ok = (b[:, 2] - b[:, 0] > 0) & (b[:, 3] - b[:, 1] > 0)
        b, v = b[ok], v[ok]
        for i in nms(b, v.tolist(), nms_iou):
            out.append({"cls": int(c), "box": b[i].tolist(), "score": float(v[i])})
    out.sort(key=lambda d: -d["score"])
    return out[:max_det]


def suppress_across_classes(dets, iou_thr, contain_thr=0.75):
    """Twin of suppressAcrossClasses (TS): by descending score, drop a detection with IoU > iou_thr
    with a kept one, or lying inside a kept one for more than contain_thr of its own area, or (same
    class only) covering more than contain_thr of a kept one's area."""
    keep = []
    for d in sorted(dets, key=lambda d: -d["score"]):
        b = np.asarray(d["box"], np.float64)
        a = max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])
        dup = False
        for k in keep:
            kb = k["box"]
            iw = min(kb[2], b[2]) - max(kb[0], b[0])
            ih = min(kb[3], b[3]) - max(kb[1], b[1])
            ka = max(0.0, kb[2] - kb[0]) * max(0.0, kb[3] - kb[1])
            inter = iw * ih if iw > 0 and ih > 0 else 0.0
            if (iou_matrix([kb], [b])[0, 0] > iou_thr or (a > 0 and inter / a > contain_thr)
                    or (k["cls"] == d["cls"] and ka > 0 and inter / ka > contain_thr)):
                dup = True
                break
        if not dup:
            keep.append(d)
    return keep


def average_precision(dets, gts, num_classes, iou_thr):
    """dets/gts: per page lists of {cls, box, score}. Returns (per-class AP (nan if no GT), n_gt)."""
    aps = np.full(num_classes, np.nan)
    n_gt = np.zeros(num_classes, np.int64)
    for c in range(num_classes):
        recs = []  # (score, page, box)
        gt_by_page = []
        for p, (dp, gp) in enumerate(zip(dets, gts)):
            g = [x["box"] for x in gp if x["cls"] == c]
            gt_by_page.append(np.asarray(g, np.float64).reshape(-1, 4))
            n_gt[c] += len(g)
            for x in dp:
                if x["cls"] == c:
                    recs.append((x["score"], p, x["box"]))
        if n_gt[c] == 0:
            continue
        recs.sort(key=lambda r: -r[0])
        used = [np.zeros(len(g), bool) for g in gt_by_page]
        tp = np.zeros(len(recs))
        for k, (_, p, box) in enumerate(recs):
            g = gt_by_page[p]
            if len(g) == 0:
                continue
            ious = iou_matrix([box], g)[0]
            ious[used[p]] = -1
            j = int(np.argmax(ious))
            if ious[j] >= iou_thr:
                used[p][j] = True
                tp[k] = 1
        ctp = np.cumsum(tp)
        recall = ctp / n_gt[c]
        precision = ctp / np.arange(1, len(recs) + 1)
        # precision envelope, then 101-point interpolation
        for i in range(len(precision) - 2, -1, -1):
            precision[i] = max(precision[i], precision[i + 1])
        ap = 0.0
        for r in np.linspace(0, 1, 101):
            idx = np.searchsorted(recall, r, side="left")
            ap += precision[idx] if idx < len(precision) else 0.0
        aps[c] = ap / 101
    return aps, n_gt


def map_report(dets, gts, classes):
    """{per_class: {cls: {ap50, ap, n}}, map50, map} with the mean over classes that have GT."""
    ap50, n = average_precision(dets, gts, len(classes), 0.5)
    allap = np.stack([average_precision(dets, gts, len(classes), t)[0] for t in IOU_THRESHOLDS])
    with np.errstate(all="ignore"):
        ap = np.nanmean(np.where(np.isnan(allap), 0.0, allap), 0)
    per = {}
    for i, c in enumerate(classes):
        if n[i] > 0:
            per[c] = {"ap50": round(float(ap50[i]), 4), "ap": round(float(ap[i]), 4), "n": int(n[i])}
    has = n > 0
    return {"map50": round(float(np.mean(ap50[has])), 4) if has.any() else 0.0,
            "map": round(float(np.mean(ap[has])), 4) if has.any() else 0.0, "per_class": per}
