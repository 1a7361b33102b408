/**
 * Layout stage types and the detector's config.json contract (field names identical in
 * training/layout/common.py `LayoutConfig`, the JSON file and here).
 */
import { REGION_CLASSES, type RegionClass } from '../markdown/types.ts';
import type { ReclassConfig } from './reclass.ts';

export { REGION_CLASSES, type RegionClass };

/** [x0, y0, x1, y1] in page pixels (the pixel space of the rendered page given to detect()). */
export type Box = [number, number, number, number];

/** A detected (or ground-truth) region before reading order. */
export interface Detection {
  cls: RegionClass;
  box: Box;
  score: number;
}

/** A region in reading order. Page furniture keeps its place but is flagged for Markdown. */
export interface Region extends Detection {
  /** 0-based reading-order index within the page. */
  order: number;
  /** page_header / page_footer / page_number: kept, but left out of the Markdown. */
  skipInMarkdown: boolean;
}

/** public/models/layout/config.json */
export interface LayoutConfig {
  input_h: number;
  input_w: number;
  classes: RegionClass[];
  stride: number;
  width: number;
  fpn_dim: number;
  /** operating point for the app (mAP is measured from 0.02) */
  score_threshold: number;
  /** per-class operating points that replace score_threshold for those classes */
  class_thresholds?: Partial<Record<RegionClass, number>>;
  nms_iou: number;
  max_detections: number;
  /** detect(): a detection overlapping a better one of another class by IoU > this is dropped */
  cross_class_iou?: number;
  /** classes whose left/right edges are snapped to the ink (refine.ts); [] disables */
  refine_classes?: RegionClass[];
  /** context.ts: a relabel needs raw evidence ≥ this × the detector's own score (0/absent: none) */
  context_veto?: number;
  /** detector.ts splitEvidence: [lowest score, combined evidence] for regions whose class evidence
   *  is split below threshold (absent or []: off) */
  split_evidence?: [number, number] | [];
  /** reclass.ts: a second look at text-like classes (absent: off) */
  reclass?: ReclassConfig;
}

/** Checks a parsed config.json; says what is wrong and how to fix it. */
export function validateConfig(raw: unknown): LayoutConfig {
  const fix = ' (re-run `python3 training/layout/export.py`)';
  if (!raw || typeof raw !== 'object') throw new Error('layout config.json: not an object' + fix);
  const c = raw as Record<string, unknown>;
  for (const k of ['input_h', 'input_w', 'stride', 'score_threshold', 'nms_iou', 'max_detections']) {
    if (typeof c[k] !== 'number' || !Number.isFinite(c[k] as number)) throw new Error(`layout config.json: "${k}" must be a number` + fix);
  }
  if (!Array.isArray(c.classes) || c.classes.length === 0) throw new Error('layout config.json: "classes" must be a non-empty array' + fix);
  for (const cls of c.classes) {
    if (!(REGION_CLASSES as readonly string[]).includes(cls as string)) {
      throw new Error(`layout config.json: unknown class "${String(cls)}"; known: ${REGION_CLASSES.join(', ')}` + fix);
    }
  }
  if (c.class_thresholds !== undefined) {
    const t = c.class_thresholds as Record<string, unknown>;
    if (!t || typeof t !== 'object' || Array.isArray(t)) throw new Error('layout config.json: "class_thresholds" must map class names to numbers' + fix);
    for (const [k, v] of Object.entries(t)) {
      if (!(c.classes as string[]).includes(k)) throw new Error(`layout config.json: class_thresholds names unknown class "${k}"` + fix);
      if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new Error(`layout config.json: class_thresholds.${k} must be a number in [0, 1]` + fix);
    }
  }
  if (c.context_veto !== undefined && (typeof c.context_veto !== 'number' || !(c.context_veto >= 0 && c.context_veto <= 1))) {
    throw new Error('layout config.json: "context_veto" must be a number in [0, 1]' + fix);
  }
  const se = c.split_evidence;
  if (se !== undefined && !(Array.isArray(se) && (se.length === 0 || se.length === 2) && se.every((v) => typeof v === 'number' && v >= 0 && v <= 1))) {
    throw new Error('layout config.json: "split_evidence" must be [lowest score, combined evidence], both in [0, 1], or []' + fix);
  }
  const rc = c.reclass as Record<string, unknown> | undefined;
  if (rc !== undefined) {
    if (!rc || typeof rc !== 'object' || typeof rc.model !== 'string' || !rc.model) throw new Error('layout config.json: "reclass.model" must name the classifier file' + fix);
    if (typeof rc.min_prob !== 'number' || !(rc.min_prob >= 0 && rc.min_prob <= 1)) throw new Error('layout config.json: "reclass.min_prob" must be a number in [0, 1]' + fix);
    if (!Array.isArray(rc.classes) || !rc.classes.every((k) => (c.classes as string[]).includes(k))) throw new Error('layout config.json: "reclass.classes" must list classes of the detector' + fix);
  }
  if ((c.input_h as number) % (c.stride as number) || (c.input_w as number) % (c.stride as number)) {
    throw new Error('layout config.json: input_h/input_w must be multiples of stride' + fix);
  }
  return c as unknown as LayoutConfig;
}

export const FURNITURE_CLASSES: ReadonlySet<RegionClass> = new Set(['page_header', 'page_footer', 'page_number']);
