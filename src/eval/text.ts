// Character error rate of recognized text against ground truth, both in the corpus's normal form
// (tools/synth/normalize.ts: NFC, whitespace runs → one space, inline-math bodies normalized).
import { normalizeText } from '../../tools/synth/normalize.ts';
import { chars, levenshtein } from './levenshtein.ts';

export interface EditCount {
  /** Character edits (insertions + deletions + substitutions) to turn the prediction into the reference. */
  edits: number;
  /** Reference length in code points. */
  refChars: number;
}

/** Edits and reference length after normalizing both sides. */
export function textEdits(pred: string, ref: string): EditCount {
  const r = chars(normalizeText(ref));
  return { edits: levenshtein(chars(normalizeText(pred)), r), refChars: r.length };
}

/**
 * CER = edits / reference characters. An empty reference gives 0 for an empty prediction and
 * 1 otherwise (so a hallucination on an empty region still counts as an error).
 */
export function cer(pred: string, ref: string): number {
  const e = textEdits(pred, ref);
  if (e.refChars === 0) return e.edits === 0 ? 0 : 1;
  return e.edits / e.refChars;
}

/** Corpus CER: total edits over total reference characters (long regions weigh more). */
export function corpusCer(counts: EditCount[]): number {
  let e = 0, n = 0;
  for (const c of counts) {
    e += c.edits;
    n += c.refChars;
  }
  return n === 0 ? 0 : e / n;
}
