/** Seeded LaTeX formula generator (display formulas and short inline math). Output is in normal form. */
import { Rng } from './rng.ts';
import { normalizeLatex } from './normalize.ts';

const LATIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHKLMNPQRSTUVWXYZ'.split('');
const IDX = ['i', 'j', 'k', 'n', 'm', 't', 'l'];
const GREEK = ['\\alpha', '\\beta', '\\gamma', '\\delta', '\\epsilon', '\\varepsilon', '\\zeta', '\\eta', '\\theta', '\\lambda', '\\mu', '\\nu', '\\xi', '\\pi', '\\rho', '\\sigma', '\\tau', '\\phi', '\\varphi', '\\chi', '\\psi', '\\omega', '\\Gamma', '\\Delta', '\\Theta', '\\Lambda', '\\Sigma', '\\Phi', '\\Psi', '\\Omega'];
const ACCENTS = ['\\hat', '\\bar', '\\tilde', '\\vec', '\\dot', '\\ddot', '\\widehat', '\\overline'];
const FUNCS = ['\\sin', '\\cos', '\\tan', '\\log', '\\ln', '\\exp', '\\det', '\\max', '\\min', '\\sup', '\\tanh'];
const RELS = ['=', '=', '=', '\\leq', '\\geq', '<', '>', '\\approx', '\\neq', '\\equiv', '\\sim', '\\propto', '\\to'];
const BINOPS = ['+', '-', '+', '-', '\\cdot', '\\times', '\\pm'];
const FONTS = ['\\mathbf', '\\mathcal', '\\mathrm', '\\mathbb'];

export class LatexGen {
  constructor(private rng: Rng) {}

  private sym(): string {
    const r = this.rng;
    return r.chance(0.3) ? r.pick(GREEK) : r.pick(LATIN);
  }

  private num(): string {
    const r = this.rng;
    return r.chance(0.7) ? String(r.int(0, 12)) : r.int(1, 99) + '.' + r.int(0, 9);
  }

  private group(s: string): string {
    return s.length === 1 ? s : `{${s}}`;
  }

  /** a variable possibly with accent, font, sub/superscript */
  atom(depth = 0): string {
    const r = this.rng;
    let base: string;
    const k = r.next();
    if (k < 0.12) return this.num();
    else if (k < 0.2) base = `${r.pick(ACCENTS)}{${r.pick(LATIN.slice(0, 26))}}`;
    else if (k < 0.26) {
      const f = r.pick(FONTS);
      base = `${f}{${f === '\\mathbb' || f === '\\mathcal' ? r.pick('RNZCEPLF'.split('')) : r.pick(LATIN)}}`;
    } else base = this.sym();
    if (r.chance(0.35)) base += ` _${this.group(r.chance(0.7) ? r.pick(IDX) : r.chance(0.5) ? String(r.int(0, 9)) : `${r.pick(IDX)}${r.pick(['+1', '-1', ',' + r.pick(IDX)])}`)}`;
    if (r.chance(0.25)) base += ` ^${this.group(r.chance(0.6) ? String(r.int(2, 4)) : r.chance(0.5) ? r.pick(['T', '*', '\\prime', '-1']) : this.atomSimple())}`;
    if (depth < 1 && r.chance(0.08)) base = `\\sqrt{${this.sum(depth + 1, 2)}}`;
    return base;
  }

  private atomSimple(): string {
    return this.rng.chance(0.5) ? this.rng.pick(IDX) : this.rng.pick(LATIN.slice(0, 26));
  }

  /** a term: product of factors */
  term(depth: number): string {
    const r = this.rng;
    const k = r.next();
    if (depth < 2 && k < 0.16) return `\\frac{${this.sum(depth + 1, 2)}}{${this.sum(depth + 1, 2)}}`;
    if (depth < 2 && k < 0.24) return `\\left( ${this.sum(depth + 1, 3)} \\right)${r.chance(0.4) ? '^' + this.group(String(r.int(2, 3))) : ''}`;
    if (depth < 2 && k < 0.3) return `${r.pick(FUNCS)}${r.chance(0.5) ? ' ' + this.atom(depth + 1) : `\\left( ${this.sum(depth + 1, 2)} \\right)`}`;
    if (depth < 1 && k < 0.36) return this.bigop(depth + 1);
    let s = this.atom(depth);
    if (r.chance(0.35)) {
      const b = this.atom(depth);
      if (!/^[0-9]/.test(b)) s += ' ' + b;
    }
    return s;
  }

  sum(depth: number, maxTerms: number): string {
    const r = this.rng;
    const n = r.int(1, maxTerms);
    let s = (r.chance(0.1) ? '-' : '') + this.term(depth);
    for (let i = 1; i < n; i++) s += ` ${r.pick(BINOPS)} ${this.term(depth)}`;
    return s;
  }

  bigop(depth: number): string {
    const r = this.rng;
    const i = r.pick(IDX);
    const k = r.next();
    if (k < 0.35) return `\\sum_{${i}=${r.pick(['0', '1'])}}^{${r.pick(['n', 'N', 'K', '\\infty', 'm-1'])}} ${this.term(depth + 1)}`;
    if (k < 0.5) return `\\prod_{${i}=1}^{${r.pick(['n', 'N', 'k'])}} ${this.term(depth + 1)}`;
    if (k < 0.8) {
      const lims = r.pick([['0', '1'], ['0', '\\infty'], ['-\\infty', '\\infty'], ['a', 'b'], ['0', 'T'], ['-\\pi', '\\pi']]);
      const v = r.pick(['x', 't', 's', 'u']);
      return `\\int_{${lims[0]}}^{${lims[1]}} ${this.term(depth + 1)}\\,d${v}`;
    }
    if (k < 0.9) return `\\lim_{${r.pick(['n', 'x', 't', 'h'])} \\to ${r.pick(['\\infty', '0', 'a'])}} ${this.term(depth + 1)}`;
    return `\\max_{${r.pick(IDX)}} ${this.term(depth + 1)}`;
  }

  matrix(): string {
    const r = this.rng;
    const env = r.pick(['pmatrix', 'bmatrix', 'vmatrix']);
    const rows = r.int(2, 3);
    const cols = r.int(2, 3);
    const cells: string[] = [];
    for (let i = 0; i < rows; i++) {
      const row: string[] = [];
      for (let j = 0; j < cols; j++) row.push(r.chance(0.5) ? this.num() : this.atom(2));
      cells.push(row.join(' & '));
    }
    return `\\begin{${env}}${cells.join('\\\\')}\\end{${env}}`;
  }

  cases(): string {
    const r = this.rng;
    const n = r.int(2, 3);
    const lines: string[] = [];
    const v = r.pick(['x', 't', 'n']);
    for (let i = 0; i < n; i++) {
      const cond = i === n - 1 && r.chance(0.5) ? '\\text{otherwise}' : `${v} ${r.pick(['<', '\\geq', '>', '=', '\\leq'])} ${r.int(0, 9)}`;
      lines.push(`${this.sum(2, 2)} & ${r.chance(0.5) ? '\\text{if } ' : ''}${cond}`);
    }
    return `${r.pick(['f', 'g', 'h', '\\phi'])}(${v}) = \\begin{cases}${lines.join('\\\\')}\\end{cases}`;
  }

  /** one display formula (single expression) */
  display(): string {
    for (let i = 0; i < 20; i++) {
      const s = this.displayOnce();
      if (s.length >= 8 && s.length <= 90) return s;
    }
    return normalizeLatex(`${this.atom(0)} = ${this.term(1)}`);
  }

  private displayOnce(): string {
    const r = this.rng;
    const k = r.next();
    let s: string;
    if (k < 0.1) s = this.cases();
    else if (k < 0.2) s = `${this.atom(1)} = ${this.matrix()} ${r.chance(0.4) ? this.atom(1) : ''}`;
    else if (k < 0.45) s = `${this.atom(0)} ${r.pick(RELS)} ${this.bigop(0)}`;
    else {
      s = `${this.sum(0, 2)} ${r.pick(RELS)} ${this.sum(0, 3)}`;
      if (r.chance(0.15)) s += ` ${r.pick(RELS)} ${this.sum(1, 2)}`;
    }
    return normalizeLatex(s);
  }

  /** short inline math */
  inline(): string {
    for (let i = 0; i < 20; i++) {
      const s = this.inlineOnce();
      if (s.length <= 28) return s;
    }
    return this.atom(2);
  }

  private inlineOnce(): string {
    const r = this.rng;
    const k = r.next();
    let s: string;
    if (k < 0.35) s = this.atom(1);
    else if (k < 0.55) s = `${this.atom(1)} ${r.pick(RELS)} ${r.chance(0.5) ? this.num() : this.atom(1)}`;
    else if (k < 0.7) s = `O(${r.pick(['n', 'n^2', 'n\\log n', 'k', '1', 'mn'])})`;
    else if (k < 0.85) s = `\\frac{${this.atom(2)}}{${this.atom(2)}}`;
    else s = `${this.atom(2)} ${r.pick(BINOPS)} ${this.atom(2)}`;
    return normalizeLatex(s);
  }
}
