// llm.c-style result check: |got - ref| <= atol + rtol·|ref| element-wise, reporting the first
// mismatches (index, got, ref) so a failing parity test says where it broke.
export interface ValidateResult {
  ok: boolean;
  mismatches: number;
  maxAbs: number;
  report: string;
}

export function validate(
  name: string,
  got: ArrayLike<number>,
  ref: ArrayLike<number>,
  atol: number,
  rtol: number,
  show = 5,
): ValidateResult {
  const lines: string[] = [];
  let mismatches = 0;
  let maxAbs = 0;
  if (got.length !== ref.length) {
    return { ok: false, mismatches: -1, maxAbs: Infinity, report: `${name}: length ${got.length} != ${ref.length}` };
  }
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(got[i] - ref[i]);
    if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : Math.max(maxAbs, d);
    if (!(d <= atol + rtol * Math.abs(ref[i]))) {
      if (mismatches < show) lines.push(`  [${i}] got ${got[i]} ref ${ref[i]} (diff ${d})`);
      mismatches++;
    }
  }
  const head = `${name}: ${mismatches}/${ref.length} mismatches, max |diff| ${maxAbs.toExponential(2)}`;
  return { ok: mismatches === 0, mismatches, maxAbs, report: [head, ...lines].join('\n') };
}
