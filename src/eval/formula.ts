// Formula quality: normalized edit similarity (NES) over LaTeX tokens of the normal form
// (tools/synth/normalize.ts: aliases unified, insignificant spaces dropped, x^{2} → x^2), so
// `\alpha` counts as one symbol, not six characters. 1 = identical, 0 = nothing in common.
import { normalizeLatex, tokenizeLatex } from '../../tools/synth/normalize.ts';
import { nes } from './levenshtein.ts';

export function latexTokens(src: string): string[] {
  return tokenizeLatex(normalizeLatex(src));
}

export function formulaNes(pred: string, ref: string): number {
  return nes(latexTokens(pred), latexTokens(ref));
}

/** True when both sides have the same normal form. */
export function formulaExact(pred: string, ref: string): boolean {
  return normalizeLatex(pred) === normalizeLatex(ref);
}
