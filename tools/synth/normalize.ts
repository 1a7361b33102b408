/**
 * Normal forms of recognition targets: the ONE place that defines them.
 * Pure TypeScript, no DOM: the generator, the crop exporter, training and evaluation import it.
 *
 * Text:    Unicode NFC; every run of whitespace -> one space; trimmed. Inline math is written
 *          `$...$` (found as renderers find it: INLINE_MATH) and its body is LaTeX in normal form (below).
 * LaTeX:   tokens are control words (\alpha), control symbols (\{ \, \\), and single characters.
 *          Whitespace is dropped, except one space after a control word when the next token is a
 *          letter (needed to keep `\alpha b` apart), and inside \text{...}-like groups where runs
 *          collapse to one space (leading/trailing spaces inside the group are kept: they render). Aliases map to one spelling (\le -> \leq, \ge -> \geq,
 *          \ne -> \neq, \rightarrow -> \to, \lbrace -> \{, \rbrace -> \}, \dots stays).
 *          A braced script with a single letter/digit loses its braces (x^{2} -> x^2, but x^{10}
 *          and x^{\alpha} stay). Surrounding `$`, `$$`, `\[ \]`, `\( \)` are removed.
 * Table:   `<table>` + `<tr>` + `<td>` only: thead/tbody/tfoot/caption/colgroup dropped, th -> td,
 *          attributes other than colspan/rowspan (> 1) dropped, written `<td colspan="2">`
 *          (colspan before rowspan). Cell content: inner tags removed (<br> -> space), entities
 *          decoded, text normalized as above, then `&`, `<`, `>` escaped. No whitespace between tags.
 */

const WS = /\s+/g;

/**
 * Inline math as Markdown renderers (pandoc, KaTeX auto-render, our preview) find it: an opening `$`
 * not escaped and followed by a non-space, a closing `$` preceded by a non-space and not followed
 * by a digit. So a stray `$` in running text ("costs $5", "1.8.8$ also") opens nothing, instead of
 * pairing with the next formula's `$` and turning the words between into "math".
 */
const INLINE_MATH = /(^|[^\\$])\$([^\s$](?:[^$]*?[^\s\\$])?)\$(?!\d)/g;

export function normalizeText(s: string): string {
  const t = s.normalize('NFC').replace(WS, ' ').trim();
  if (!t.includes('$')) return t;
  // normalize inline math bodies
  return t.replace(INLINE_MATH, (_m, pre: string, body: string) => `${pre}$${normalizeLatex(body)}$`);
}

// ---------------------------------------------------------------- LaTeX

export type LatexToken = string;

const ALIASES: Record<string, string> = {
  '\\le': '\\leq',
  '\\ge': '\\geq',
  '\\ne': '\\neq',
  '\\rightarrow': '\\to',
  '\\lbrace': '\\{',
  '\\rbrace': '\\}',
  '\\lvert': '|',
  '\\rvert': '|',
  '\\vert': '|',
  '\\gets': '\\leftarrow',
  '\\land': '\\wedge',
  '\\lor': '\\vee',
};

const TEXT_CMDS = new Set(['\\text', '\\textrm', '\\textit', '\\textbf', '\\mbox', '\\textsf', '\\texttt']);

/** Split LaTeX into tokens; whitespace runs become a single ' ' token. */
export function tokenizeLatex(src: string): LatexToken[] {
  const out: LatexToken[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') {
      let j = i + 1;
      if (j < src.length && /[A-Za-z]/.test(src[j])) {
        while (j < src.length && /[A-Za-z]/.test(src[j])) j++;
      } else {
        j = Math.min(src.length, j + 1);
      }
      out.push(src.slice(i, j));
      i = j;
    } else if (/\s/.test(c)) {
      let j = i;
      while (j < src.length && /\s/.test(src[j])) j++;
      out.push(' ');
      i = j;
    } else {
      const cp = src.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      out.push(ch);
      i += ch.length;
    }
  }
  return out;
}

const isWord = (t: string) => /^\\[A-Za-z]+$/.test(t);
const isLetter = (t: string | undefined) => t !== undefined && /^[A-Za-z]$/.test(t);

function stripDelims(s: string): string {
  let t = s.trim();
  for (;;) {
    if (t.startsWith('$$') && t.endsWith('$$') && t.length >= 4) t = t.slice(2, -2).trim();
    else if (t.startsWith('$') && t.endsWith('$') && t.length >= 2) t = t.slice(1, -1).trim();
    else if ((t.startsWith('\\[') && t.endsWith('\\]')) || (t.startsWith('\\(') && t.endsWith('\\)'))) t = t.slice(2, -2).trim();
    else return t;
  }
}

export function normalizeLatex(src: string): string {
  const toks = tokenizeLatex(stripDelims(src.normalize('NFC'))).map((t) => ALIASES[t] ?? t);
  // pass 1: drop/keep whitespace, tracking \text{...} groups
  const kept: string[] = [];
  let textDepth = -1; // brace depth at which a text group started
  let depth = 0;
  let pendingText = false;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t === ' ') {
      if (textDepth >= 0) {
        if (kept[kept.length - 1] !== ' ') kept.push(' ');
      } else {
        // keep separation between a control word and a following letter
        const prev = kept[kept.length - 1];
        const nxt = toks[i + 1];
        if (prev !== undefined && isWord(prev) && isLetter(nxt)) kept.push(' ');
      }
      continue;
    }
    if (t === '{') {
      depth++;
      if (pendingText && textDepth < 0) textDepth = depth;
      pendingText = false;
    } else if (t === '}') {
      if (textDepth >= 0 && depth === textDepth) textDepth = -1;
      depth--;
    } else {
      pendingText = TEXT_CMDS.has(t) && textDepth < 0;
    }
    // a control word directly followed by a letter needs a space
    const prev = kept[kept.length - 1];
    if (textDepth < 0 && prev !== undefined && isWord(prev) && isLetter(t)) kept.push(' ');
    kept.push(t);
  }
  // pass 2: x^{c} -> x^c for a single letter or digit
  const out: string[] = [];
  for (let i = 0; i < kept.length; i++) {
    const t = kept[i];
    if ((t === '^' || t === '_') && kept[i + 1] === '{' && kept[i + 3] === '}' && /^[A-Za-z0-9]$/.test(kept[i + 2] ?? '')) {
      out.push(t, kept[i + 2]);
      i += 3;
      continue;
    }
    out.push(t);
  }
  return out.join('').trim();
}

// ---------------------------------------------------------------- tables

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(cp) ? String.fromCodePoint(cp) : m;
    }
    return ENTITIES[e] ?? m;
  });
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface TableCell {
  text: string;
  colspan: number;
  rowspan: number;
}

/** Parse a (possibly messy) HTML table into rows of cells. Tolerant: unclosed cells/rows are closed. */
export function parseTable(html: string): TableCell[][] {
  const rows: TableCell[][] = [];
  let row: TableCell[] | null = null;
  let cell: TableCell | null = null;
  let buf = '';
  const closeCell = () => {
    if (cell) {
      cell.text = normalizeText(decodeEntities(buf));
      row!.push(cell);
    }
    cell = null;
    buf = '';
  };
  const closeRow = () => {
    closeCell();
    if (row) rows.push(row);
    row = null;
  };
  const re = /<\s*(\/?)\s*([a-zA-Z0-9]+)([^>]*)>|([^<]+)|(<)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html))) {
    if (m[4] !== undefined || m[5] !== undefined) {
      if (cell) buf += m[4] ?? m[5];
      continue;
    }
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    const attrs = m[3] ?? '';
    if (tag === 'tr') {
      if (closing) closeRow();
      else {
        closeRow();
        row = [];
      }
    } else if (tag === 'td' || tag === 'th') {
      if (closing) closeCell();
      else {
        closeCell();
        if (!row) row = [];
        const span = (name: string) => {
          const a = new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, 'i').exec(attrs);
          const v = a ? parseInt(a[1], 10) : 1;
          return v > 1 ? v : 1;
        };
        cell = { text: '', colspan: span('colspan'), rowspan: span('rowspan') };
      }
    } else if (tag === 'table') {
      if (closing) closeRow();
    } else if (tag === 'br' || tag === 'p' || tag === 'div' || tag === 'li') {
      if (cell) buf += ' ';
    }
    // any other tag (b, i, span, sup, thead, tbody, ...) is dropped
  }
  closeRow();
  return rows;
}

export function cellHtml(c: TableCell): string {
  let a = '';
  if (c.colspan > 1) a += ` colspan="${c.colspan}"`;
  if (c.rowspan > 1) a += ` rowspan="${c.rowspan}"`;
  return `<td${a}>${escapeHtml(c.text)}</td>`;
}

export function rowHtml(row: TableCell[]): string {
  return `<tr>${row.map(cellHtml).join('')}</tr>`;
}

export function tableHtml(rows: TableCell[][]): string {
  return `<table>${rows.map(rowHtml).join('')}</table>`;
}

export function normalizeTableHtml(html: string): string {
  return tableHtml(parseTable(html));
}

export type Task = 'text' | 'table' | 'formula';

export function normalizeTarget(task: Task, s: string): string {
  if (task === 'table') return normalizeTableHtml(s);
  if (task === 'formula') return normalizeLatex(s);
  return normalizeText(s);
}
