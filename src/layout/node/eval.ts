/**
 * Layout evaluation with the shipped code path (TS preprocessing + ONNX + TS post-processing):
 *
 *   npm run layout:eval -- --data data/synth/val [--model public/models/layout] [--limit N]
 *        [--runtime node|wasm] [--out eval.json] [--threshold T] [--no-refine | --refine cls,cls] [--no-context] [--no-merge] [--no-heading] [--no-trim] [--no-one-line] [--no-weight] [--veto R]
 *        [--split lo,combined | none]   (regions with split class evidence; default: config.split_evidence)
 *        [--no-reclass | --reclass-prob P]  (the second look at text-like classes; default: config.reclass)
 *        [--explain]   (one line per page that fails end to end, on stderr: what was missed, extra, relabelled or out of order)
 *        [--draw DIR]  (each page that fails end to end as DIR/<page>.png: truth thin and grey, detections thick in their class colour)
 *        [--class-thr page_number=0.25,… | none]
 *
 * Reports mAP@0.5 and mAP@0.5:0.95 per class (detections from score 0.02), reading-order exact
 * match per page (a) on the ground-truth boxes (the algorithm alone) and (b) end to end on the
 * detections at the config's operating threshold, and the time per page.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapReport, type Scored, type Truth } from '../map.ts';
import { EVIDENCE_THRESHOLD, operatingPoint } from '../detector.ts';
import { iou } from '../postprocess.ts';
import { readingOrder } from '../reading-order.ts';
import { grayPlane } from '../preprocess.ts';
import type { Image } from '../../recognizer/image.ts';
import type { Box, RegionClass } from '../types.ts';
import { CLASS_CODES, CLASS_COLORS, label, strokeRect, toRgbCopy } from './draw.ts';
import { loadDetector, parseFlags, readPngRgb, writePngRgb } from './io.ts';

interface GtRegion {
  cls: RegionClass;
  box: Box;
  order: number;
}

/** A failing page: the truth as thin grey boxes with its order, the detections thick in their class colour with theirs. */
function drawFailure(path: string, img: Image, gt: GtRegion[], ordered: { cls: RegionClass; box: Box; order: number }[]): void {
  const out = toRgbCopy(img);
  for (const g of gt) {
    strokeRect(out, g.box, [150, 150, 150], 1);
    label(out, g.box[2] - 24, g.box[1] + 2, String(g.order), [150, 150, 150], 2);
  }
  for (const d of ordered) {
    const b = d.box.map((v) => v - 3) as Box;
    b[2] += 6;
    b[3] += 6;
    strokeRect(out, b, CLASS_COLORS[d.cls], 3);
    label(out, b[0], Math.max(0, b[1] - 12), `${d.order} ${CLASS_CODES[d.cls]}`, CLASS_COLORS[d.cls], 2);
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writePngRgb(path, out);
}

/** Greedy one-to-one matching by IoU (≥ thr, same class unless anyClass) → gt index per prediction (or -1). */
export function matchToTruth(preds: { cls: RegionClass; box: Box }[], gts: GtRegion[], thr = 0.5, anyClass = false): number[] {
  const pairs: { p: number; g: number; v: number }[] = [];
  preds.forEach((p, i) => gts.forEach((g, j) => {
    if (!anyClass && p.cls !== g.cls) return;
    const v = iou(p.box, g.box);
    if (v >= thr) pairs.push({ p: i, g: j, v });
  }));
  pairs.sort((a, b) => b.v - a.v);
  const out = preds.map(() => -1);
  const used = new Set<number>();
  for (const { p, g } of pairs) {
    if (out[p] >= 0 || used.has(g)) continue;
    out[p] = g;
    used.add(g);
  }
  return out;
}

async function main() {
  const { flags } = parseFlags(process.argv.slice(2));
  const dataDir = flags.data ?? 'data/synth/val';
  const modelDir = flags.model ?? 'public/models/layout';
  const runtime = (flags.runtime ?? 'node') as 'node' | 'wasm';
  const det = await loadDetector(modelDir, runtime, Number(flags.threads ?? 1));
  let files = readdirSync(dataDir).filter((f) => /^p\d+\.json$/.test(f)).sort();
  if (flags.limit) files = files.slice(0, Number(flags.limit));
  const dets: Scored[][] = [];
  const gts: Truth[][] = [];
  let roGt = 0;
  let roE2e = 0;
  let roMatched = 0;
  let roAny = 0;
  const failures: string[] = [];
  const errors = {
    pages_with_missed: 0, pages_with_extra: 0, pages_with_wrong_class: 0,
    missed: {} as Record<string, number>, extra: {} as Record<string, number>,
    /** ground-truth class -> detected class, for boxes that match only when the class is ignored */
    wrong_class: {} as Record<string, number>,
  };
  const t = { pre: 0, run: 0, post: 0, order: 0 };
  const thr = flags.threshold ? Number(flags.threshold) : det.config.score_threshold;
  const xiou = det.config.cross_class_iou ?? 0.7;
  if (flags.veto !== undefined && !(Number(flags.veto) >= 0 && Number(flags.veto) <= 1)) throw new Error(`--veto: "${flags.veto}" is not a ratio between 0 and 1`);
  const context = flags['no-context'] ? false : { merge: !flags['no-merge'], heading: !flags['no-heading'], trim: !flags['no-trim'], oneLine: !flags['no-one-line'], weight: !flags['no-weight'], veto: flags.veto !== undefined ? Number(flags.veto) : det.config.context_veto ?? 0 };
  // per-class operating points: the config's, or --class-thr cls=t,cls=t ('none': one threshold for all)
  const classThr: Record<string, number> = flags['class-thr'] === 'none' ? {} : flags['class-thr']
    ? Object.fromEntries(flags['class-thr'].split(',').map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]))
    : { ...(det.config.class_thresholds ?? {}) };
  for (const [k, v] of Object.entries(classThr)) {
    if (!det.config.classes.includes(k as RegionClass) || !(v >= 0 && v <= 1)) throw new Error(`--class-thr: "${k}=${v}" is not class=threshold with a known class and 0 ≤ threshold ≤ 1`);
  }
  // regions with split class evidence: the config's [lo, combined], --split lo,combined, or --split none
  const split = flags.split === 'none' ? undefined : flags.split ? (flags.split.split(',').map(Number) as [number, number]) : det.config.split_evidence;
  if (split && !(split.length === 2 && split.every((v) => v >= 0 && v <= 1))) throw new Error(`--split: "${flags.split}" is not lo,combined (both in [0, 1]) or none`);
  // the second look at text-like classes (reclass.ts): the config's, --reclass-prob P, or --no-reclass
  const rc = flags['no-reclass'] ? null : det.reclass;
  if (rc && flags['reclass-prob'] !== undefined) {
    const p = Number(flags['reclass-prob']);
    if (!(p >= 0 && p <= 1)) throw new Error(`--reclass-prob: "${flags['reclass-prob']}" is not a probability`);
    rc.config.min_prob = p;
  }
  const operating = async (img: Image, gray: Float32Array, ds: typeof dets[number], th: number) => {
    const kept = operatingPoint(img, ds.filter((d) => d.score >= EVIDENCE_THRESHOLD), th, xiou, context, classThr, split);
    return rc ? rc.relabel(img, kept, gray) : kept;
  };
  // end-to-end reading order at other operating points (to pick config.score_threshold)
  const sweep = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];
  const sweepOk = sweep.map(() => 0);
  for (const f of files) {
    const page = JSON.parse(readFileSync(join(dataDir, f), 'utf8'));
    const img = readPngRgb(join(dataDir, page.image));
    const gt: GtRegion[] = page.regions.map((r: GtRegion) => ({ cls: r.cls, box: r.box, order: r.order }));
    const raw = await det.detectRaw(img, { scoreThreshold: 0.02, ...(flags['no-refine'] ? { refineClasses: [] } : flags.refine ? { refineClasses: flags.refine.split(',') as RegionClass[] } : {}) });
    t.pre += raw.timing.pre;
    t.run += raw.timing.run;
    t.post += raw.timing.post;
    dets.push(raw.detections);
    gts.push(gt);
    const want = [...gt].sort((a, b) => a.order - b.order);
    // (a) algorithm alone, on ground-truth boxes
    const a = readingOrder(gt.map((g, i) => ({ ...g, i })), { width: img.width, height: img.height });
    if (a.every((r, k) => r.order === k && r.i === gt.indexOf(want[k]))) roGt++;
    else failures.push(f);
    // (b) end to end: operating-point detections, ordered, matched back to the truth
    const t0 = performance.now();
    const gray = grayPlane(img);
    const ordered = readingOrder(await operating(img, gray, raw.detections, thr), { width: img.width, height: img.height });
    t.order += performance.now() - t0;
    const m = matchToTruth(ordered, gt);
    const seq = m.filter((g) => g >= 0).map((g) => gt[g].order);
    const inOrder = seq.every((v, k) => k === 0 || v > seq[k - 1]);
    if (inOrder) roMatched++;
    const exact = inOrder && seq.length === gt.length && m.every((g) => g >= 0);
    if (exact) roE2e++;
    const ma = matchToTruth(ordered, gt, 0.5, true);
    const sa = ma.map((g) => (g >= 0 ? gt[g].order : -1));
    if (sa.length === gt.length && sa.every((v, i) => v >= 0 && (i === 0 || v > sa[i - 1]))) roAny++;
    // why a page fails end to end: regions missed, extra boxes, right box with the wrong class
    const hit = new Set(m.filter((g) => g >= 0));
    const hitAny = new Set(ma.filter((g) => g >= 0));
    const missed = gt.filter((_, j) => !hitAny.has(j));
    const wrongClass = gt.filter((_, j) => hitAny.has(j) && !hit.has(j));
    const extra = ma.map((g, i) => (g < 0 ? ordered[i] : null)).filter((d) => d !== null);
    for (const g of missed) errors.missed[g.cls] = (errors.missed[g.cls] ?? 0) + 1;
    for (const d of extra) errors.extra[d!.cls] = (errors.extra[d!.cls] ?? 0) + 1;
    ma.forEach((g, i) => {
      if (g >= 0 && !hit.has(g)) {
        const k = `${gt[g].cls}->${ordered[i].cls}`;
        errors.wrong_class[k] = (errors.wrong_class[k] ?? 0) + 1;
      }
    });
    if (missed.length) errors.pages_with_missed++;
    if (extra.length) errors.pages_with_extra++;
    if (wrongClass.length) errors.pages_with_wrong_class++;
    if (flags.explain && !exact) {
      const why = [
        ...missed.map((g) => `missed ${g.cls}#${g.order}`),
        ...extra.map((d) => `extra ${d!.cls}`),
        ...ma.flatMap((g, i) => (g >= 0 && !hit.has(g) ? [`${gt[g].cls}#${gt[g].order}->${ordered[i].cls}`] : [])),
        ...(inOrder ? [] : [`order ${seq.join(',')}`]),
      ];
      console.error(`${f}: ${why.join('; ')}`);
    }
    if (flags.draw && !exact) drawFailure(join(flags.draw, f.replace(/\.json$/, '.png')), img, gt, ordered);
    for (const [k, th] of sweep.entries()) {
      const o = readingOrder(await operating(img, gray, raw.detections, th), { width: img.width, height: img.height });
      const mm = matchToTruth(o, gt);
      const sq = mm.map((g) => (g >= 0 ? gt[g].order : -1));
      if (sq.every((v, i) => v >= 0 && (i === 0 || v > sq[i - 1])) && sq.length === gt.length) sweepOk[k]++;
    }
  }
  const n = files.length;
  const rep = mapReport(dets, gts, det.config.classes);
  const out = {
    data: dataDir,
    model: modelDir,
    runtime,
    pages: n,
    map50: rep.map50,
    map: rep.map,
    per_class: rep.per_class,
    reading_order: {
      gt_boxes_exact: round4(roGt / n),
      end_to_end_exact: round4(roE2e / n),
      end_to_end_exact_any_class: round4(roAny / n),
      matched_in_order: round4(roMatched / n),
      operating_threshold: thr,
      class_thresholds: classThr,
      context_veto: context ? context.veto : null,
      split_evidence: split ?? null,
      reclass: rc ? rc.config : null,
      gt_failures: failures.slice(0, 20),
      end_to_end_by_threshold: Object.fromEntries(sweep.map((th, k) => [th, round4(sweepOk[k] / n)])),
      end_to_end_errors: errors,
    },
    ms_per_page: { preprocess: round1(t.pre / n), model: round1(t.run / n), postprocess: round1(t.post / n), reading_order: round1(t.order / n) },
  };
  console.log(JSON.stringify(out, null, 1));
  if (flags.out) writeFileSync(flags.out, JSON.stringify(out, null, 1));
  await det.release();
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const round1 = (x: number) => Math.round(x * 10) / 10;

if (process.argv[1]?.endsWith('eval.ts')) main().catch((e) => {
  console.error(e);
  process.exit(1);
});
