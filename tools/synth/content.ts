/**
 * Page builder: from a page seed and the corpus, a complete HTML page (layout + content) and the
 * ground truth of every block, keyed by the block's data-k attribute. Pure and deterministic.
 */
import katex from 'katex';
import { Rng } from './rng.ts';
import type { Corpus } from './corpus.ts';
import { FONTS, type FontFamily, cssFamily, fontsOf } from './fonts.ts';
import { LatexGen } from './latex.ts';
import { TableGen, type GenCell } from './tables.ts';
import { svgFigure } from './figures.ts';
import { escapeHtml, normalizeText, rowHtml, tableHtml } from './normalize.ts';

// One class list for the corpus, the detector and Markdown assembly (detector class ids = its order).
export { REGION_CLASSES as CLASSES, type RegionClass } from '../../src/markdown/types.ts';
import type { RegionClass } from '../../src/markdown/types.ts';
export const TEXT_LIKE: ReadonlySet<string> = new Set(['title', 'section_heading', 'text', 'list_item', 'caption', 'footnote', 'page_header', 'page_footer', 'page_number']);

export const STYLES = ['paper', 'article', 'report', 'manual'] as const;
export type StyleName = (typeof STYLES)[number];

export interface BlockTruth {
  cls: RegionClass;
  /** text (inline math as $...$), normalized table HTML, normalized LaTeX, or '' for figures */
  target: string;
  /** tables: normalized `<tr>` HTML of each row, in order */
  rows?: string[];
}

export interface PageLayout {
  style: StyleName;
  paper: 'letter' | 'a4';
  widthCss: number;
  heightCss: number;
  columns: number;
  align: 'justify' | 'left';
  fontSizePt: number;
  fonts: { body: string; heading: string; table: string };
  tableStyle: string;
}

export interface BuiltPage {
  html: string;
  layout: PageLayout;
  truth: Record<number, BlockTruth>;
  /** every font family referenced by the page */
  families: string[];
}

const PAPER = { letter: [816, 1056], a4: [794, 1123] } as const;

function cap(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function titleCase(s: string): string {
  const small = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'for', 'and', 'or', 'to', 'with', 'by', 'at', 'from']);
  return s
    .split(' ')
    .map((w, i) => (i > 0 && small.has(w.toLowerCase()) ? w.toLowerCase() : cap(w)))
    .join(' ');
}

interface Ctx {
  rng: Rng;
  corpus: Corpus;
  latex: LatexGen;
  tables: TableGen;
  truth: Record<number, BlockTruth>;
  k: number;
  L: PageLayout;
  colWidth: number;
  lineHeightPx: number;
  charWidthPx: number;
  mathProb: number;
  bodyFont: FontFamily;
  headingFont: FontFamily;
}

/** token list -> span HTML; math tokens are {math} */
type Tok = string | { math: string };

function spans(toks: Tok[], emph: (i: number) => string | null): string {
  const out: string[] = [];
  toks.forEach((t, i) => {
    if (typeof t === 'string') {
      const tag = emph(i);
      const inner = escapeHtml(t);
      out.push(tag ? `<span class="w"><${tag}>${inner}</${tag}></span>` : `<span class="w">${inner}</span>`);
    } else {
      const html = katex.renderToString(t.math, { displayMode: false, throwOnError: true, output: 'html' });
      out.push(`<span class="w m" data-t="${escapeHtml('$' + t.math + '$').replace(/"/g, '&quot;')}">${html}</span>`);
    }
  });
  return out.join(' ');
}

function tokText(toks: Tok[]): string {
  return normalizeText(toks.map((t) => (typeof t === 'string' ? t : `$${t.math}$`)).join(' '));
}

function region(c: Ctx, cls: RegionClass, target: string, inner: string, extraClass = '', rows?: string[]): string {
  const k = c.k++;
  c.truth[k] = rows ? { cls, target, rows } : { cls, target };
  return `<div class="R ${cls}${extraClass ? ' ' + extraClass : ''}" data-cls="${cls}" data-k="${k}">${inner}</div>`;
}

function textRegion(c: Ctx, cls: RegionClass, toks: Tok[], emphProb = 0, extraClass = ''): string {
  const r = c.rng;
  const emphKind = r.pick(['i', 'b', 'em']);
  const emph = (i: number) => (emphProb > 0 && r.chance(emphProb) ? emphKind : null);
  return region(c, cls, tokText(toks), spans(toks, emph), extraClass);
}

function words(s: string): string[] {
  return s.split(' ').filter((w) => w.length > 0);
}

function sentence(c: Ctx, maxLen = 320): string {
  for (let i = 0; i < 50; i++) {
    const s = c.rng.pick(c.corpus.sentences);
    if (s.length <= maxLen) return s;
  }
  return c.rng.pick(c.corpus.sentences).slice(0, maxLen);
}

/** paragraph tokens aimed at `lines` lines */
function paragraphToks(c: Ctx, lines: number, firstLineIndentPx = 0): Tok[] {
  const charsPerLine = Math.max(10, c.colWidth / c.charWidthPx);
  const target = lines * charsPerLine - firstLineIndentPx / c.charWidthPx;
  const toks: Tok[] = [];
  let len = 0;
  for (let guard = 0; guard < 12 && len < target * 0.75; guard++) {
    const s = sentence(c, Math.max(40, Math.min(320, target - len + charsPerLine * 0.3)));
    if (len > 0 && len + s.length > target * 1.1) break;
    toks.push(...words(s));
    len += s.length + 1;
  }
  if (toks.length === 0) toks.push(...words(sentence(c)));
  // inline math
  if (c.rng.chance(c.mathProb)) {
    const n = c.rng.int(1, toks.length > 25 ? 3 : 1);
    for (let i = 0; i < n; i++) {
      const pos = c.rng.int(1, toks.length - 1);
      const prev = toks[pos - 1];
      if (typeof prev === 'string' && /[.!?,;:]$/.test(prev)) continue;
      toks.splice(pos, 0, { math: c.latex.inline() });
    }
  }
  return toks;
}

const STOP = new Set('a an the of in on for and or to with by at from is are be been was were this that these those it its as if not can may will which when into than then there their your you we our has have had do does such each all any some no but so also only must should would could'.split(' '));

function headingText(c: Ctx, minW: number, maxW: number): string {
  const r = c.rng;
  const ws = words(sentence(c)).map((w) => w.replace(/[.,;:!?()"“”‘’]+$/g, '').replace(/^["“‘(]+/, ''));
  const clean = ws.filter((w) => w.length > 0);
  const n = r.int(minW, maxW);
  const out = clean.slice(0, n);
  // never end a heading on a function word ("2.1 The"): extend a little, then trim
  while (out.length < clean.length && out.length < n + 3 && STOP.has(out[out.length - 1].toLowerCase())) out.push(clean[out.length]);
  while (out.length > 1 && STOP.has(out[out.length - 1].toLowerCase())) out.pop();
  let s = out.join(' ');
  if (r.chance(0.5)) s = titleCase(s);
  return s;
}

function buildTable(c: Ctx): { html: string; target: string; rows: string[] } {
  const maxCols = c.L.columns === 2 ? 4 : 5;
  const { rows, headerRows } = c.tables.generate(maxCols);
  const truthRows = rows.map((row) => rowHtml(row));
  const target = tableHtml(rows);
  const numAlign = c.rng.pick(['right', 'center']);
  const html = rows
    .map((row, i) => {
      const cells = row
        .map((cell: GenCell) => {
          const tag = cell.header ? 'th' : 'td';
          let a = '';
          if (cell.colspan > 1) a += ` colspan="${cell.colspan}"`;
          if (cell.rowspan > 1) a += ` rowspan="${cell.rowspan}"`;
          const cls = cell.numeric ? ` style="text-align:${numAlign}"` : '';
          return `<${tag}${a}${cls}><span class="w">${escapeHtml(cell.text).replace(/ /g, '</span> <span class="w">')}</span></${tag}>`;
        })
        .join('');
      return `<tr class="${i < headerRows ? 'hr' : 'br'}${i === headerRows - 1 ? ' hl' : ''}">${cells}</tr>`;
    })
    .join('');
  return { html: `<table class="T ${c.L.tableStyle}">${html}</table>`, target, rows: truthRows };
}

function captionRegion(c: Ctx, kind: 'Table' | 'Figure', n: number): string {
  const r = c.rng;
  const label = kind === 'Figure' && r.chance(0.3) ? 'Fig.' : kind;
  const sep = r.pick([':', '.', ' -', ':']);
  const s = sentence(c, r.chance(0.6) ? 120 : 240);
  const toks = [`${label}`, `${n}${sep === ' -' ? '' : sep}`, ...(sep === ' -' ? ['-'] : []), ...words(s)];
  return textRegion(c, 'caption', toks, 0, 'cap');
}

/** the body blocks for the columns; returns HTML and an estimate of the height in px */
function bodyBlock(c: Ctx, kind: string, counters: { sec: number; sub: number; tab: number; fig: number; eq: number }): [string, number] {
  const r = c.rng;
  const lh = c.lineHeightPx;
  switch (kind) {
    case 'heading': {
      let s = headingText(c, 1, 6);
      const sub = r.chance(0.35) && counters.sec > 0;
      if (sub) counters.sub++;
      else {
        counters.sec++;
        counters.sub = 0;
      }
      if (c.L.style !== 'report' || r.chance(0.5)) {
        const num = sub ? `${counters.sec}.${counters.sub}` : `${counters.sec}${r.chance(0.3) ? '.' : ''}`;
        if (c.rng.chance(0.85)) s = `${num} ${s}`;
      }
      if (c.L.style === 'report' && r.chance(0.3)) s = s.toUpperCase();
      return [`<div class="blk hb">${textRegion(c, 'section_heading', words(s), 0, sub ? 'h3' : 'h2')}</div>`, lh * 2.2];
    }
    case 'text': {
      const lines = r.weighted([[1, 1], [2, 2], [3, 3], [4, 3], [5, 3], [6, 2], [7, 1], [8, 1]] as const);
      const toks = paragraphToks(c, lines);
      return [`<div class="blk pb">${textRegion(c, 'text', toks, r.chance(0.2) ? 0.03 : 0)}</div>`, lh * (lines + 0.6)];
    }
    case 'list': {
      const n = r.int(2, 5);
      const mk = r.pick(['•', '–', '1.', '(a)', 'i.', '▪', '1)']);
      const items: string[] = [];
      const roman = ['i', 'ii', 'iii', 'iv', 'v', 'vi'];
      for (let i = 0; i < n; i++) {
        const m = mk === '1.' ? `${i + 1}.` : mk === '1)' ? `${i + 1})` : mk === '(a)' ? `(${'abcdef'[i]})` : mk === 'i.' ? `${roman[i]}.` : mk;
        const s = r.chance(0.6) ? sentence(c, 140) : sentence(c, 260);
        items.push(textRegion(c, 'list_item', [m, ...words(s)], 0, 'li'));
      }
      return [`<div class="blk lb">${items.join('')}</div>`, lh * n * 2.2];
    }
    case 'table': {
      counters.tab++;
      const t = buildTable(c);
      const k0 = c.k++;
      c.truth[k0] = { cls: 'table', target: t.target, rows: t.rows };
      const tab = `<div class="R table" data-cls="table" data-k="${k0}">${t.html}</div>`;
      const cap = captionRegion(c, 'Table', counters.tab);
      const above = c.L.style === 'paper' ? r.chance(0.8) : r.chance(0.4);
      return [`<div class="blk tb">${above ? cap + tab : tab + cap}</div>`, lh * (t.rows.length * 1.5 + 3)];
    }
    case 'figure': {
      counters.fig++;
      const w = Math.round(c.colWidth * r.range(0.5, 0.95));
      const h = Math.round(Math.min(260, w * r.range(0.4, 0.7)));
      const svg = svgFigure(r, w, h, cssFamily(c.bodyFont), c.corpus.words);
      const fig = region(c, 'figure', '', svg, 'fig');
      const cap = captionRegion(c, 'Figure', counters.fig);
      return [`<div class="blk gb">${fig}${cap}</div>`, h + lh * 3];
    }
    case 'formula': {
      counters.eq++;
      const tex = c.latex.display();
      const html = katex.renderToString(tex, { displayMode: true, throwOnError: true, output: 'html' });
      return [`<div class="blk fb">${region(c, 'formula', tex, html, 'eq')}</div>`, lh * 3];
    }
  }
  throw new Error('unknown block ' + kind);
}

/** Multipliers on the body-block weights (e.g. {table: 4, formula: 4} for pages rich in tables and formulas). */
export type BlockBoost = Partial<Record<'text' | 'heading' | 'formula' | 'table' | 'figure' | 'list', number>>;

const BOOSTABLE: readonly string[] = ['text', 'heading', 'formula', 'table', 'figure', 'list'];

/** "table=4,formula=4" → {table: 4, formula: 4}; a clear error on anything else */
export function parseBoost(s: string | undefined): BlockBoost {
  const out: BlockBoost = {};
  if (!s) return out;
  for (const part of s.split(',')) {
    const [k, v] = part.split('=');
    const w = Number(v);
    if (!BOOSTABLE.includes(k) || !Number.isFinite(w) || w < 0) {
      throw new Error(`--boost: expected kind=weight with kind in ${BOOSTABLE.join('|')} and weight >= 0, got "${part}"`);
    }
    out[k as keyof BlockBoost] = w;
  }
  return out;
}

export function buildPage(seed: number, corpus: Corpus, availableFonts: readonly string[] = FONTS.map((f) => f.name), boost: BlockBoost = {}): BuiltPage {
  const rng = new Rng(seed, 1);
  const style = rng.pick(STYLES);
  const paper = rng.chance(0.5) ? 'letter' : 'a4';
  const [W, H] = PAPER[paper];
  const ok = new Set(availableFonts);
  const avail = FONTS.filter((f) => ok.has(f.name));
  const pickKind = (kind: 'serif' | 'sans' | 'mono', tex = false) => {
    const list = fontsOf(kind, avail).filter((f) => !tex || f.tex);
    return rng.pick(list.length ? list : fontsOf(kind, avail));
  };
  let bodyFont: FontFamily, headingFont: FontFamily;
  if (style === 'paper') {
    bodyFont = rng.chance(0.5) ? (avail.find((f) => f.name === 'Latin Modern Roman') ?? pickKind('serif', true)) : pickKind('serif', true);
    headingFont = rng.chance(0.8) ? bodyFont : pickKind('sans', true);
  } else if (style === 'article') {
    bodyFont = pickKind('serif');
    headingFont = rng.chance(0.6) ? bodyFont : pickKind('sans');
  } else if (style === 'report') {
    bodyFont = rng.chance(0.85) ? pickKind('sans') : pickKind('serif');
    headingFont = rng.chance(0.5) ? bodyFont : pickKind('sans');
  } else {
    bodyFont = rng.weighted([[pickKind('sans'), 4], [pickKind('serif'), 3], [pickKind('mono'), 1]] as const);
    headingFont = rng.chance(0.5) ? pickKind('sans') : bodyFont;
  }
  const tableFont = rng.chance(0.8) ? bodyFont : rng.chance(0.5) ? pickKind('mono') : pickKind('sans');
  const columns = style === 'paper' ? (rng.chance(0.75) ? 2 : 1) : style === 'manual' ? (rng.chance(0.5) ? 2 : 1) : style === 'report' ? (rng.chance(0.25) ? 2 : 1) : rng.chance(0.15) ? 2 : 1;
  const fontSizePt = columns === 2 ? rng.range(8, 11) : rng.range(9, 14);
  const fpx = (fontSizePt * 4) / 3;
  const lineHeight = rng.range(1.15, 1.5);
  const align = style === 'paper' ? (rng.chance(0.9) ? 'justify' : 'left') : style === 'report' ? (rng.chance(0.3) ? 'justify' : 'left') : rng.chance(0.6) ? 'justify' : 'left';
  const ml = Math.round(rng.range(columns === 2 ? 40 : 55, 110));
  const mr = rng.chance(0.6) ? ml : Math.round(rng.range(40, 110));
  const mt = Math.round(rng.range(55, 100));
  const mb = Math.round(rng.range(55, 100));
  const gap = Math.round(rng.range(14, 34));
  const bodyW = W - ml - mr;
  const colWidth = columns === 2 ? (bodyW - gap) / 2 : bodyW;
  const tableStyle = style === 'paper' ? rng.pick(['booktabs', 'booktabs', 'bordered']) : style === 'report' ? rng.pick(['zebra', 'zebra', 'bordered', 'booktabs']) : rng.pick(['bordered', 'booktabs', 'zebra', 'hlines']);
  const L: PageLayout = {
    style,
    paper,
    widthCss: W,
    heightCss: H,
    columns,
    align,
    fontSizePt: Math.round(fontSizePt * 10) / 10,
    fonts: { body: bodyFont.name, heading: headingFont.name, table: tableFont.name },
    tableStyle,
  };
  const c: Ctx = {
    rng,
    corpus,
    latex: new LatexGen(rng.fork(2)),
    tables: new TableGen(rng.fork(3), corpus.words),
    truth: {},
    k: 0,
    L,
    colWidth,
    lineHeightPx: fpx * lineHeight,
    charWidthPx: fpx * (bodyFont.kind === 'mono' ? 0.6 : 0.47),
    mathProb: style === 'paper' ? 0.35 : style === 'manual' ? 0.1 : style === 'article' ? 0.15 : 0.05,
    bodyFont,
    headingFont,
  };
  const ink = rng.chance(0.8) ? '#000' : rng.pick(['#111', '#222', '#2b2b2b', '#1a1a2e']);
  const accent = style === 'report' ? rng.pick(['#1f3a68', '#0b5394', '#7f1d1d', '#14532d', '#333']) : ink;
  const bg = rng.chance(0.85) ? '#fff' : rng.pick(['#fffdf7', '#fbfbf8', '#f8f8f4']);
  const indent = rng.chance(0.5) ? Math.round(fpx * rng.range(1, 2)) : 0;
  const parSkip = indent ? rng.range(0, 0.3) : rng.range(0.4, 0.9);
  const hScale = rng.range(1.1, 1.45);

  // ---------------- header / footer
  const parts: string[] = [];
  const pageNo = rng.int(1, 240);
  const hdrSize = fpx * rng.range(0.75, 0.95);
  const hf: string[] = [];
  const numInHeader = rng.chance(0.3);
  if (rng.chance(style === 'report' ? 0.6 : 0.75)) {
    const txt = rng.chance(0.5) ? headingText(c, 2, 7) : rng.pick([`Vol. ${rng.int(1, 60)}, No. ${rng.int(1, 12)}`, `Chapter ${rng.int(1, 20)}. ${headingText(c, 1, 4)}`, `Preprint ${2000 + rng.int(0, 26)}`, `${headingText(c, 1, 3)} Manual`, `Technical Report ${rng.int(1, 999)}`]);
    const side = numInHeader ? (rng.chance(0.5) ? 'left' : 'center') : rng.pick(['left', 'center', 'right']);
    hf.push(`<div class="hdr" style="text-align:${side}">${textRegion(c, 'page_header', words(normalizeText(txt)))}</div>`);
    if (!numInHeader && rng.chance(0.25)) {
      hf.push(`<div class="hdr" style="text-align:right">${textRegion(c, 'page_header', words(normalizeText(headingText(c, 1, 3))))}</div>`);
    }
  }
  if (numInHeader) {
    hf.push(`<div class="hdr" style="text-align:right">${textRegion(c, 'page_number', [String(pageNo)])}</div>`);
  }
  const hdrRule = hf.length > 0 && rng.chance(0.4);

  // ---------------- top block
  const top: string[] = [];
  const hasTitle = style === 'paper' ? rng.chance(0.45) : style === 'report' ? rng.chance(0.35) : rng.chance(0.25);
  if (hasTitle) {
    let t = titleCase(headingText(c, 3, 11));
    if (style === 'report' && rng.chance(0.3)) t = t.toUpperCase();
    top.push(textRegion(c, 'title', words(t), 0, 'ttl'));
    if (style === 'paper' || rng.chance(0.3)) {
      // a date / affiliation line (plain text region)
      const line = rng.pick([`${titleCase(rng.pick(corpus.words))} ${rng.pick(['University', 'Institute', 'Laboratory', 'Research Center'])}`, `${rng.pick(['January', 'March', 'June', 'September', 'November'])} ${2000 + rng.int(0, 26)}`, `Draft version ${rng.int(1, 9)}.${rng.int(0, 9)}`]);
      top.push(textRegion(c, 'text', words(line), 0, 'aff'));
    }
    if (style === 'paper' && rng.chance(0.7)) {
      top.push(`<div class="abs">${textRegion(c, 'section_heading', [rng.chance(0.5) ? 'Abstract' : 'ABSTRACT'], 0, 'absh')}${textRegion(c, 'text', paragraphToks({ ...c, colWidth: bodyW * 0.85 } as Ctx, rng.int(3, 7)), 0, 'abst')}</div>`);
    }
  }

  // ---------------- columns
  const counters = { sec: rng.int(0, 4), sub: 0, tab: rng.int(0, 4), fig: rng.int(0, 4), eq: 0 };
  const bodyH = H - mt - mb;
  const capacity = bodyH * columns * (hasTitle ? 0.75 : 1) * 2.5;
  const baseWeights: [string, number][] =
    style === 'paper'
      ? [['text', 10], ['heading', 2], ['formula', 3.5], ['table', 1.5], ['figure', 1.2], ['list', 0.8]]
      : style === 'article'
        ? [['text', 12], ['heading', 2], ['formula', 1.5], ['table', 1.5], ['figure', 1], ['list', 1.2]]
        : style === 'report'
          ? [['text', 8], ['heading', 2.5], ['formula', 0.5], ['table', 2.5], ['figure', 2], ['list', 2]]
          : [['text', 8], ['heading', 2.5], ['formula', 1], ['table', 2], ['figure', 1.5], ['list', 3]];
  const weights = baseWeights.map(([k, w]): [string, number] => [k, w * (boost[k as keyof BlockBoost] ?? 1)]);
  const blocks: string[] = [];
  let used = 0;
  let prev = '';
  if (!hasTitle && rng.chance(0.3)) prev = 'text';
  else {
    const [h, e] = bodyBlock(c, 'heading', counters);
    blocks.push(h);
    used += e;
    prev = 'heading';
  }
  while (used < capacity && blocks.length < 80) {
    let kind = rng.weighted(weights);
    if (prev === 'heading' && kind === 'heading') kind = 'text';
    if (prev === kind && kind !== 'text') continue;
    const [h, e] = bodyBlock(c, kind, counters);
    blocks.push(h);
    used += e;
    prev = kind;
  }

  // ---------------- footnotes
  const fns: string[] = [];
  if ((style === 'paper' || style === 'article') && rng.chance(0.35)) {
    const n = rng.int(1, 2);
    let m = rng.int(1, 9);
    for (let i = 0; i < n; i++) {
      const marker = rng.chance(0.8) ? String(m++) : '*';
      fns.push(textRegion(c, 'footnote', [marker, ...words(sentence(c, 160))], 0, 'fnt'));
    }
  }

  // ---------------- footer
  const ft: string[] = [];
  if (rng.chance(style === 'report' ? 0.6 : 0.3)) {
    const txt = rng.pick([`${titleCase(rng.pick(corpus.words))} ${rng.pick(['Inc.', 'Ltd.', 'Group', 'Press', 'Foundation'])}`, 'Confidential', `Copyright ${2000 + rng.int(0, 26)}`, 'Preprint. Under review.', headingText(c, 2, 6), `Revision ${rng.int(1, 30)}`]);
    ft.push(`<div class="ftr" style="text-align:${rng.pick(['left', 'center', 'right'])}">${textRegion(c, 'page_footer', words(normalizeText(txt)))}</div>`);
  }
  if (!numInHeader && rng.chance(0.85)) {
    const fmt = rng.weighted([[String(pageNo), 6], [`- ${pageNo} -`, 1], [`Page ${pageNo}`, 1.5], [`${pageNo} of ${pageNo + rng.int(0, 40)}`, 0.5]] as const);
    const side = ft.length ? (rng.chance(0.5) ? 'right' : 'center') : rng.pick(['center', 'center', 'right', 'left']);
    ft.push(`<div class="ftr" style="text-align:${side}">${textRegion(c, 'page_number', words(fmt))}</div>`);
  }

  // ---------------- CSS
  const F = (f: FontFamily) => cssFamily(f);
  const tableFs = fpx * rng.range(0.8, 1);
  const cellPadV = rng.range(1, 4);
  const cellPadH = rng.range(4, 10);
  const css = `
#page{position:relative;width:${W}px;height:${H}px;overflow:hidden;background:${bg};color:${ink};font-family:${F(bodyFont)};font-size:${fpx.toFixed(2)}px;line-height:${lineHeight.toFixed(3)};font-kerning:normal}
#page .w{white-space:nowrap}
#page .hdrs{position:absolute;left:${ml}px;right:${mr}px;top:${Math.round(mt * 0.35)}px;font-size:${hdrSize.toFixed(2)}px;${hdrRule ? `border-bottom:0.8px solid ${ink};padding-bottom:2px;` : ''}display:flex;justify-content:space-between;gap:20px;line-height:1.2}
#page .ftrs{position:absolute;left:${ml}px;right:${mr}px;bottom:${Math.round(mb * 0.35)}px;font-size:${hdrSize.toFixed(2)}px;display:flex;justify-content:space-between;gap:20px;line-height:1.2}
#page .hdr,#page .ftr{flex:1 1 auto}
#page .hdrs .page_header{${rng.chance(0.4) ? 'font-style:italic;' : ''}}
#page .body{position:absolute;left:${ml}px;top:${mt}px;width:${bodyW}px;height:${H - mt - mb}px;display:flex;flex-direction:column}
#page .top{flex:0 0 auto;text-align:center;margin-bottom:${(fpx * 0.8).toFixed(1)}px}
#page .ttl{font-family:${F(headingFont)};font-size:${(fpx * rng.range(1.5, 2.2)).toFixed(2)}px;font-weight:${rng.chance(0.7) ? 'bold' : 'normal'};line-height:1.2;margin:0 0 ${(fpx * 0.6).toFixed(1)}px;color:${accent}}
#page .aff{font-size:${(fpx * 0.95).toFixed(2)}px;margin-bottom:${(fpx * 0.6).toFixed(1)}px}
#page .abs{margin:0 7.5%;text-align:${align}}
#page .absh{font-weight:bold;text-align:center;font-size:${(fpx * 0.95).toFixed(2)}px}
#page .abst{font-size:${(fpx * 0.92).toFixed(2)}px}
#page .cols{flex:1 1 0;min-height:0;column-count:${columns};column-gap:${gap}px;column-fill:auto;${columns === 2 && rng.chance(0.3) ? `column-rule:0.6px solid #999;` : ''}}
#page .blk{break-inside:avoid}
#page .pb .text{text-align:${align};text-indent:${indent}px;margin:0 0 ${(fpx * parSkip).toFixed(1)}px}
#page .h2,#page .h3{font-family:${F(headingFont)};font-weight:bold;color:${accent};line-height:1.25;text-align:left}
#page .h2{font-size:${(fpx * hScale).toFixed(2)}px;margin:${(fpx * 0.9).toFixed(1)}px 0 ${(fpx * 0.45).toFixed(1)}px}
#page .h3{font-size:${(fpx * Math.max(1, hScale - 0.2)).toFixed(2)}px;margin:${(fpx * 0.7).toFixed(1)}px 0 ${(fpx * 0.35).toFixed(1)}px;${rng.chance(0.3) ? 'font-style:italic;' : ''}}
#page .li{padding-left:${(fpx * 1.6).toFixed(1)}px;text-indent:-${(fpx * 1.1).toFixed(1)}px;margin:0 0 ${(fpx * 0.25).toFixed(1)}px;text-align:${align}}
#page .lb{margin:${(fpx * 0.3).toFixed(1)}px 0 ${(fpx * 0.6).toFixed(1)}px}
#page .fb{margin:${(fpx * 0.5).toFixed(1)}px 0;text-align:center}
#page .eq{display:inline-block;max-width:100%}
#page .eq .katex-display{margin:0}
#page .tb,#page .gb{margin:${(fpx * 0.7).toFixed(1)}px 0;text-align:center}
#page .cap{font-size:${(fpx * rng.range(0.85, 1)).toFixed(2)}px;text-align:${rng.chance(0.6) ? 'left' : 'center'};margin:${(fpx * 0.35).toFixed(1)}px 0}
#page .table{display:table;margin:0 auto}
#page .fig{display:inline-block;line-height:0}
#page .T{border-collapse:collapse;font-family:${F(tableFont)};font-size:${tableFs.toFixed(2)}px;line-height:1.25}
#page .T td,#page .T th{padding:${cellPadV.toFixed(1)}px ${cellPadH.toFixed(1)}px;text-align:${rng.chance(0.5) ? 'left' : 'center'}}
#page .T th{font-weight:${rng.chance(0.7) ? 'bold' : 'normal'}}
#page .bordered td,#page .bordered th{border:${rng.pick([0.8, 1, 1.2])}px solid ${ink}}
#page .booktabs{border-top:1.5px solid ${ink};border-bottom:1.5px solid ${ink}}
#page .booktabs .hl th{border-bottom:0.8px solid ${ink}}
#page .hlines tr{border-bottom:0.6px solid #888}
#page .hlines .hl{border-bottom:1.2px solid ${ink}}
#page .zebra .hr{background:${rng.pick(['#dde4ee', '#e6e6e6', '#d9ead3', '#1f3a68'])}}
#page .zebra .br:nth-child(even){background:${rng.pick(['#f2f2f2', '#eef3f8', '#f5f5ee'])}}
#page .fns{flex:0 0 auto;margin-top:${(fpx * 0.5).toFixed(1)}px;${rng.chance(0.7) ? `border-top:0.6px solid ${ink};` : ''}padding-top:3px;width:${rng.chance(0.5) ? '40%' : '100%'}}
#page .fns .fnt{width:${(bodyW).toFixed(0)}px;font-size:${(fpx * 0.8).toFixed(2)}px;text-align:${align};line-height:1.25;margin-top:2px}
`;
  // zebra with dark header needs light text
  const darkHead = css.includes('.zebra .hr{background:#1f3a68}');
  const extra = darkHead ? '#page .zebra .hr{color:#fff}' : '';
  parts.push(`<style>${css}${extra}</style>`);
  parts.push(`<div id="page">`);
  if (hf.length) parts.push(`<div class="hdrs">${hf.join('')}</div>`);
  parts.push(`<div class="body">`);
  if (top.length) parts.push(`<div class="top">${top.join('')}</div>`);
  parts.push(`<div class="cols">${blocks.join('')}</div>`);
  if (fns.length) parts.push(`<div class="fns">${fns.join('')}</div>`);
  parts.push(`</div>`);
  if (ft.length) parts.push(`<div class="ftrs">${ft.join('')}</div>`);
  parts.push(`</div>`);
  const families = [...new Set([bodyFont.name, headingFont.name, tableFont.name])];
  return { html: parts.join(''), layout: L, truth: c.truth, families };
}
