import { describe, expect, it } from 'vitest';
import { normalizeLatex, normalizeTableHtml, normalizeTarget, normalizeText, parseTable, tokenizeLatex } from './normalize.ts';

describe('normalizeText', () => {
  it('collapses whitespace and trims', () => {
    expect(normalizeText('  a \n b\t\tc  ')).toBe('a b c');
  });
  it('applies NFC', () => {
    expect(normalizeText('e\u0301')).toBe('\u00e9');
  });
  it('normalizes inline math bodies', () => {
    expect(normalizeText('where $x ^{2} \\le  y$ holds')).toBe('where $x^2\\leq y$ holds');
  });
  it('finds inline math as the preview renders it: a stray or spaced `$` opens nothing', () => {
    // a stray `$` in running text does not pair with the next formula's `$`
    expect(normalizeText('dbus 1.8.8$ also reduced it to eight $\\sigma \\equiv 10$ here')).toBe('dbus 1.8.8$ also reduced it to eight $\\sigma\\equiv10$ here');
    expect(normalizeText('costs $5 and $10 a  day')).toBe('costs $5 and $10 a day');
    expect(normalizeText('an escaped \\$x ^{2}$ is text')).toBe('an escaped \\$x ^{2}$ is text');
    // `$ x $` (spaces inside) is not math in pandoc or our preview, so its body is left alone
    expect(normalizeText('where $ x ^{2} $ holds')).toBe('where $ x ^{2} $ holds');
    expect(normalizeText('$a^{2}$ and $b^{2}$')).toBe('$a^2$ and $b^2$');
  });
  it('is idempotent', () => {
    const s = 'The value $\\frac{a}{b}$ and $\\alpha b$ end.';
    expect(normalizeText(normalizeText(s))).toBe(normalizeText(s));
  });
});

describe('normalizeLatex', () => {
  it('drops insignificant spaces', () => {
    expect(normalizeLatex('a + b = c')).toBe('a+b=c');
    expect(normalizeLatex('\\frac { a } { b }')).toBe('\\frac{a}{b}');
  });
  it('keeps a space between a control word and a letter', () => {
    expect(normalizeLatex('\\alpha  b')).toBe('\\alpha b');
    expect(normalizeLatex('\\sin x')).toBe('\\sin x');
    expect(normalizeLatex('\\alpha 2')).toBe('\\alpha2');
    expect(normalizeLatex('\\alpha\\beta')).toBe('\\alpha\\beta');
  });
  it('maps aliases to one spelling', () => {
    expect(normalizeLatex('a \\le b \\ne c \\ge d \\rightarrow e')).toBe('a\\leq b\\neq c\\geq d\\to e');
    expect(normalizeLatex('\\lbrace x \\rbrace')).toBe('\\{x\\}');
  });
  it('unbraces single-character scripts only', () => {
    expect(normalizeLatex('x^{2}_{i}')).toBe('x^2_i');
    expect(normalizeLatex('x^{10}')).toBe('x^{10}');
    expect(normalizeLatex('x^{\\alpha}')).toBe('x^{\\alpha}');
  });
  it('keeps spaces inside \\text groups (collapsed)', () => {
    expect(normalizeLatex('1 \\text{ if  }  x>0')).toBe('1\\text{ if }x>0');
    expect(normalizeLatex('\\text{otherwise}')).toBe('\\text{otherwise}');
  });
  it('strips math delimiters', () => {
    expect(normalizeLatex('$$ a=b $$')).toBe('a=b');
    expect(normalizeLatex('\\[a=b\\]')).toBe('a=b');
    expect(normalizeLatex('$a$')).toBe('a');
  });
  it('keeps environments and row separators', () => {
    expect(normalizeLatex('\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}')).toBe('\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}');
  });
  it('tokenizes control symbols and words', () => {
    expect(tokenizeLatex('\\,\\alpha_1')).toEqual(['\\,', '\\alpha', '_', '1']);
  });
  it('is idempotent on generated formulas', () => {
    for (const s of ['\\sum_{i=0}^{n}x_i^{2}', '\\left( a+b \\right)^{2}', 'f(x)=\\begin{cases}1&\\text{if }x>0\\\\0&\\text{otherwise}\\end{cases}']) {
      const n = normalizeLatex(s);
      expect(normalizeLatex(n)).toBe(n);
    }
  });
});

describe('normalizeTableHtml', () => {
  it('reduces to table/tr/td with spans kept', () => {
    const html = `<table class="x"><thead><tr><th rowspan="2">Name</th><th colspan='2' style="a">Score</th></tr>
      <tr><th>A</th><th>B</th></tr></thead><tbody><tr><td> x  <b>y</b> </td><td>1</td><td>2<br>3</td></tr></tbody></table>`;
    expect(normalizeTableHtml(html)).toBe(
      '<table><tr><td rowspan="2">Name</td><td colspan="2">Score</td></tr><tr><td>A</td><td>B</td></tr><tr><td>x y</td><td>1</td><td>2 3</td></tr></table>',
    );
  });
  it('writes colspan before rowspan and drops spans of 1', () => {
    expect(normalizeTableHtml('<table><tr><td rowspan=2 colspan=3>a</td><td colspan="1">b</td></tr></table>')).toBe('<table><tr><td colspan="3" rowspan="2">a</td><td>b</td></tr></table>');
  });
  it('escapes and decodes entities', () => {
    expect(normalizeTableHtml('<table><tr><td>a &amp; b &lt; c&#62;d</td></tr></table>')).toBe('<table><tr><td>a &amp; b &lt; c&gt;d</td></tr></table>');
  });
  it('closes unclosed cells and rows', () => {
    expect(normalizeTableHtml('<table><tr><td>a<td>b<tr><td>c')).toBe('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>');
  });
  it('is idempotent and parses back', () => {
    const n = '<table><tr><td colspan="2">a</td></tr><tr><td>1</td><td>2</td></tr></table>';
    expect(normalizeTableHtml(n)).toBe(n);
    expect(parseTable(n)[0][0]).toEqual({ text: 'a', colspan: 2, rowspan: 1 });
  });
  it('dispatches by task', () => {
    expect(normalizeTarget('formula', ' a = b ')).toBe('a=b');
    expect(normalizeTarget('text', ' a  b ')).toBe('a b');
  });
});
