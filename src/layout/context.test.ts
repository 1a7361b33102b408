import { describe, expect, it } from 'vitest';
import type { Image } from '../recognizer/image.ts';
import { splitFused, strokeWidth, cutMarkerX, firstWordEnd, withoutSlivers, splitHeading, mergeHeadingParts, indentKind, inkLines, markerBefore, mergeSplitBlocks, oneBlock, oneLineClass, relabelByContext, splitListItem, splitParagraphs, trimBlankRows } from './context.ts';
import type { Box, Detection } from './types.ts';

/** white gray page with black bars standing in for text lines: [x0, y0, x1, y1) each */
function page(w: number, h: number, bars: Box[]): Image {
  const data = new Uint8Array(w * h).fill(255);
  for (const [x0, y0, x1, y1] of bars) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = 0;
  return { width: w, height: h, channels: 1, data };
}

/** n lines of height 10 with 6 px leading from y0; first line starts at x0 + dFirst, others at x0 */
function para(x0: number, y0: number, n: number, dFirst: number, x1 = 300): Box[] {
  return Array.from({ length: n }, (_, i) => [x0 + (i === 0 ? dFirst : 0), y0 + 16 * i, x1, y0 + 16 * i + 10] as Box);
}

const det = (cls: Detection['cls'], box: Box, score = 0.9): Detection => ({ cls, box, score });

describe('splitFused', () => {
  // dark pixels per row: a text line's body is dense, its ascender and descender rows sparse
  const line = [20, 25, 200, 260, 240, 250, 255, 230, 245, 270, 30, 25, 20];
  it('cuts two touching lines at the emptiest row between their bodies', () => {
    expect(splitFused([...line, 3, ...line])).toEqual([[0, 13], [14, 27]]);
    // a shorter second line (less ink per row) is a line too
    expect(splitFused([...line, 1, 0, 1, ...line.map((n) => Math.round(n / 2))])).toEqual([[0, 14], [15, 29]]);
    // three lines in one run
    expect(splitFused([...line, 2, ...line, 2, ...line])).toEqual([[0, 13], [14, 27], [28, 41]]);
  });
  it('leaves one line whole: descenders, a subscript, capitals with serifs', () => {
    expect(splitFused(line)).toEqual([[0, 13]]);
    expect(splitFused([...line, 4, 18, 20, 16, 12, 10])).toEqual([[0, 19]]);
    // a line in capitals: dense serif rows at top and bottom, stems (30 %) between
    expect(splitFused([300, 290, 90, 90, 95, 140, 95, 90, 90, 92, 90, 280, 300])).toEqual([[0, 13]]);
  });
});

describe('inkLines / indentKind', () => {
  it('finds each line and where it starts', () => {
    const img = page(320, 100, para(20, 10, 3, -8));
    const ls = inkLines(img, [10, 5, 310, 60]);
    expect(ls.map((l) => [l.y0, l.y1, l.x])).toEqual([[10, 20, 12], [26, 36, 20], [42, 52, 20]]);
  });
  it('tells hanging, indented, flush and one-line blocks apart', () => {
    const kind = (bars: Box[]) => indentKind(inkLines(page(320, 100, bars), [0, 0, 320, 100]));
    expect(kind(para(20, 10, 3, -10))).toBe('hanging');
    expect(kind(para(20, 10, 3, 12))).toBe('indent');
    expect(kind(para(20, 10, 3, 2))).toBe('flush');
    expect(kind(para(20, 10, 1, 0))).toBe('one');
  });
});

describe('splitListItem', () => {
  it('splits a box holding two items before the second marker line', () => {
    const bars = [...para(20, 10, 2, -10), ...para(20, 42, 3, -10)];
    const img = page(320, 120, bars);
    const d = det('list_item', [8, 8, 302, 86]);
    const parts = splitListItem(d, inkLines(img, d.box));
    expect(parts.map((p) => p.box)).toEqual([[8, 8, 302, 38], [8, 40, 302, 86]]);
    expect(parts.every((p) => p.cls === 'list_item' && p.score === 0.9)).toBe(true);
  });
  it('leaves a single item (or flush lines) whole', () => {
    const one = page(320, 100, para(20, 10, 4, -10));
    expect(splitListItem(det('list_item', [8, 8, 302, 70]), inkLines(one, [8, 8, 302, 70]))).toHaveLength(1);
    const flush = page(320, 100, para(20, 10, 4, 0));
    expect(splitListItem(det('list_item', [8, 8, 302, 70]), inkLines(flush, [8, 8, 302, 70]))).toHaveLength(1);
  });
});

describe('relabelByContext', () => {
  const H = 1000;
  it('the region next to a table with caption evidence becomes its caption; a stray caption does not', () => {
    // table at y 100..300, a one-line region 10 px below it, a far one-line "caption" at y 700
    const img = page(400, H, [[20, 310, 300, 320], [20, 700, 300, 710]]);
    const table = det('table', [10, 100, 310, 300]);
    const below = det('text', [18, 308, 302, 322], 0.8);
    const stray = det('caption', [18, 698, 302, 712], 0.7);
    const raw = [table, below, stray, det('caption', [18, 308, 302, 322], 0.7), det('text', [18, 698, 302, 712], 0.6)];
    const out = relabelByContext(img, [table, below, stray], raw);
    expect(out.map((d) => d.cls)).toEqual(['table', 'caption', 'text']);
    // inputs untouched
    expect(below.cls).toBe('text');
    // the detector's veto: text evidence 0.2 beside its caption 0.7 (< 0.7 × 0.7) keeps the caption
    const sure = [table, below, stray, det('caption', [18, 308, 302, 322], 0.7), det('text', [18, 698, 302, 712], 0.2)];
    expect(relabelByContext(img, [table, below, stray], sure, { veto: 0.7 }).map((d) => d.cls)).toEqual(['table', 'caption', 'caption']);
    expect(relabelByContext(img, [table, below, stray], sure).map((d) => d.cls)).toEqual(['table', 'caption', 'text']);
  });
  it('a caption between a figure and a table goes to the one that leaves the other its own caption', () => {
    // figure 100..300, its caption 310..320, table 330..500 (stronger, so it picks first), a one-line
    // region hugging the table below (text 0.8, caption 0.5)
    const img = page(400, H, [[20, 310, 300, 320], [20, 504, 300, 514]]);
    const fig = det('figure', [10, 100, 310, 300], 0.8);
    const cap = det('caption', [18, 308, 302, 322], 0.87);
    const table = det('table', [10, 330, 310, 500], 0.9);
    const below = det('text', [18, 502, 302, 516], 0.8);
    const raw = [fig, cap, table, below, det('caption', [18, 502, 302, 516], 0.5)];
    expect(relabelByContext(img, [fig, cap, table, below], raw).map((d) => d.cls)).toEqual(['figure', 'caption', 'table', 'caption']);
    // without the figure the table keeps the stronger caption above; the region below stays text
    expect(relabelByContext(img, [cap, table, below], raw).map((d) => d.cls)).toEqual(['caption', 'table', 'text']);
  });
  it('no or weak caption evidence: the neighbour keeps its class', () => {
    const img = page(400, H, [[20, 310, 300, 320]]);
    const table = det('table', [10, 100, 310, 300]);
    const below = det('text', [18, 308, 302, 322], 0.8);
    expect(relabelByContext(img, [table, below], [table, below]).map((d) => d.cls)).toEqual(['table', 'text']);
    // a caption score of 0.5 beside a text score of 0.8 (< 0.8 × 0.8): a paragraph above an uncaptioned table
    const weak = [table, below, det('caption', [18, 308, 302, 322], 0.5)];
    expect(relabelByContext(img, [table, below], weak).map((d) => d.cls)).toEqual(['table', 'text']);
    // caption 0.6 beside text 0.7 (ratio met) 8 px off with 10-px lines: a caption; 16 px off
    // (1.6 line heights, beyond ratioGap) a paragraph above an uncaptioned table
    const near = [table, below, det('caption', [18, 308, 302, 322], 0.6)];
    expect(relabelByContext(img, [table, { ...below, score: 0.7 }], near).map((d) => d.cls)).toEqual(['table', 'caption']);
    const img2 = page(400, H, [[20, 316, 300, 326]]);
    const far = det('text', [18, 314, 302, 328], 0.7);
    expect(relabelByContext(img2, [table, far], [table, far, det('caption', far.box, 0.6)]).map((d) => d.cls)).toEqual(['table', 'text']);
    expect(relabelByContext(img2, [table, far], [table, far, det('caption', far.box, 0.6)], { ratioGap: 0 }).map((d) => d.cls)).toEqual(['table', 'caption']);
  });
  it('hanging indent makes a list item, flush lines a paragraph; merged items are split', () => {
    const bars = [...para(20, 10, 2, -10), ...para(20, 42, 2, -10), ...para(20, 120, 3, 0)];
    const img = page(320, 200, bars);
    const list = det('text', [8, 8, 302, 70]);
    const text = det('list_item', [8, 118, 302, 164]);
    // the detector's second choices are close enough (≥ 0.7 × its first) for the ink to decide, veto or not
    const raw = [list, text, det('list_item', list.box, 0.7), det('text', text.box, 0.7)];
    const out = relabelByContext(img, [list, text], raw, { veto: 0.7 });
    expect(out.map((d) => d.cls)).toEqual(['list_item', 'list_item', 'text']);
    expect(out[0].box[3]).toBeLessThanOrEqual(out[1].box[1]);
    // with the veto, a hanging indent still makes list items (plain evidence), but flush lines do
    // not overrule a detector sure of "list item" (its boxes may have cut the markers off)
    expect(relabelByContext(img, [list, text], [list, text], { veto: 0.7 }).map((d) => d.cls)).toEqual(['list_item', 'list_item', 'list_item']);
    expect(relabelByContext(img, [list, text], [list, text]).map((d) => d.cls)).toEqual(['list_item', 'list_item', 'text']);
  });
});

describe('oneBlock / mergeSplitBlocks', () => {
  it('a paragraph cut in two is joined; two paragraphs (indent, skip or short last line) are not', () => {
    const lines = (bars: Box[]) => inkLines(page(320, 200, bars), [0, 0, 320, 200]);
    expect(oneBlock(lines(para(20, 10, 5, 0)), false)).toBe(true);
    // second paragraph indented
    expect(oneBlock(lines([...para(20, 10, 3, 0), ...para(20, 58, 2, 12)]), false)).toBe(false);
    // paragraph skip of 10 px
    expect(oneBlock(lines([...para(20, 10, 3, 0), ...para(20, 68, 2, 0)]), false)).toBe(false);
    // first paragraph ends with a short line
    const short = para(20, 10, 5, 0);
    short[2] = [20, 42, 150, 52];
    expect(oneBlock(lines(short), false)).toBe(false);
    // a list item: marker line then continuation lines; a second marker breaks it
    expect(oneBlock(lines(para(20, 10, 4, -10)), true)).toBe(true);
    expect(oneBlock(lines([...para(20, 10, 2, -10), ...para(20, 42, 2, -10)]), true)).toBe(false);
  });
  it('a short line is no paragraph end when the next line starts with a word too long for the room it left', () => {
    // words are bars with 4 px spaces (line height 10: a word break is a blank of >= 2 px)
    const words = (y: number, spans: [number, number][]): Box[] => spans.map(([a, b]) => [a, y, b, y + 10] as Box);
    const body = [...words(10, [[20, 140], [144, 300]]), ...words(58, [[20, 300]]), ...words(74, [[20, 200], [204, 300]])];
    // line 2 ends at 120 (room 180); line 3 opens with a 250-px word that could not have fitted there
    const wrapped = [...body, ...words(26, [[20, 120]]), ...words(42, [[20, 270], [274, 300]])];
    const img = page(320, 200, wrapped);
    const ls = inkLines(img, [0, 0, 320, 200]);
    expect(firstWordEnd(img, ls[2], 2)).toBe(270);
    expect(oneBlock(ls, false)).toBe(false);        // without the page: a short line ends a paragraph
    expect(oneBlock(ls, false, img)).toBe(true);
    // the same short line before a 60-px word that would have fitted: a paragraph end
    const ended = page(320, 200, [...body, ...words(26, [[20, 120]]), ...words(42, [[20, 80], [84, 300]])]);
    expect(oneBlock(inkLines(ended, [0, 0, 320, 200]), false, ended)).toBe(false);
  });
  it('a line taller for its inline math keeps the blank between lines, not the pitch', () => {
    const lines = (bars: Box[]) => inkLines(page(320, 200, bars), [0, 0, 320, 200]);
    // blanks of 6 px throughout; the middle line is 20 px tall (pitches 16 and 26)
    expect(oneBlock(lines([[20, 10, 300, 20], [20, 26, 300, 46], [20, 52, 300, 62]]), false)).toBe(true);
    // a 16 px blank after 6 px ones is a skip
    expect(oneBlock(lines([[20, 10, 300, 20], [20, 26, 300, 36], [20, 52, 300, 62]]), false)).toBe(false);
  });
  it('two lines are one block only by their shape', () => {
    const lines = (bars: Box[]) => inkLines(page(320, 200, bars), [0, 0, 320, 200]);
    // marker line over its indented continuation: one item; two marker lines: two items
    expect(oneBlock(lines(para(20, 10, 2, -10)), true)).toBe(true);
    expect(oneBlock(lines([...para(10, 10, 1, 0), ...para(10, 26, 1, 0)]), true)).toBe(false);
    // indented first line reaching the right edge over a flush line: one paragraph
    expect(oneBlock(lines(para(20, 10, 2, 12)), false)).toBe(true);
    // flush over flush at the block pitch, the first line running to the column's right edge: one
    // paragraph; the same lines in a column whose other blocks run 40 px further (the first line
    // stopped short: a one-line paragraph), or 10 px further apart (a paragraph skip): two
    expect(oneBlock(lines(para(20, 10, 2, 0)), false, undefined, 302)).toBe(true);
    expect(oneBlock(lines(para(20, 10, 2, 0)), false, undefined, 340)).toBe(false);
    expect(oneBlock(lines([...para(20, 10, 1, 0), ...para(20, 36, 1, 0)]), false, undefined, 302)).toBe(false);
    // with no column edge known, two flush lines may be two one-line paragraphs
    expect(oneBlock(lines(para(20, 10, 2, 0)), false)).toBe(false);
    // a short indented line, or lines too far apart: no
    expect(oneBlock(lines([[32, 10, 200, 20], [20, 26, 300, 36]]), false)).toBe(false);
    expect(oneBlock(lines([[32, 10, 300, 20], [20, 36, 300, 46]]), false)).toBe(false);
  });
  it('a line without ascenders, or with tall inline math, keeps its baseline on the block pitch', () => {
    // each "line" is an x-height body (rows 4–10 of 13) plus sparse ascender/descender strokes
    const line = (y: number, x1 = 300, asc = true, desc = true): Box[] => [
      [20, y + 4, x1, y + 10],
      ...(asc ? [[40, y, 42, y + 4] as Box, [200, y, 202, y + 4] as Box] : []),
      ...(desc ? [[100, y + 10, 102, y + 13] as Box] : []),
    ];
    const img = page(320, 200, [...line(10), ...line(30), ...line(50), ...line(70, 300, false, true), ...line(90, 150)]);
    const ls = inkLines(img, [0, 0, 320, 200]);
    expect(ls.map((l) => l.base)).toEqual([20, 40, 60, 80, 100]);
    // the fourth line's top is 4 px low (pitch 24 from the third, others 20) and the blank above it
    // 11 px (others 7): only its baseline keeps the block's pitch
    expect(oneBlock(ls, false, img)).toBe(true);
    // a skip of 4 px (blank 11 px, under a line height, so no blank rule) moves the baseline too
    const skip = page(320, 200, [...line(10), ...line(30), ...line(50), ...line(74), ...line(94, 150)]);
    expect(oneBlock(inkLines(skip, [0, 0, 320, 200]), false, skip)).toBe(false);
  });
  it('lines joined by a thin stroke are cut apart; lines fused by dense ink hide an indent: not one block', () => {
    const lines = (bars: Box[]) => inkLines(page(320, 200, bars), [0, 0, 320, 200]);
    // a paragraph's last line and the next one's indented first line joined by a 2-px-wide stroke
    // (a tall fraction, a descender on an ascender): cut at the stroke, so the indent shows
    const thin: Box[] = [...para(20, 10, 3, 0), [150, 52, 152, 62], ...para(20, 58, 3, 12)];
    expect(lines(thin).map((l) => [l.y0, l.y1])).toEqual([[10, 20], [26, 36], [42, 52], [53, 68], [74, 84], [90, 100]]);
    expect(lines(thin)[3].x).toBe(32);
    expect(oneBlock(lines(thin), false)).toBe(false);
    // joined by dense ink (no valley to cut at): one run of 2.6 line heights, which hides the indent
    const dense: Box[] = [...para(20, 10, 3, 0), [20, 52, 300, 58], ...para(20, 58, 3, 12)];
    expect(lines(dense).length).toBe(5);
    expect(oneBlock(lines(dense), false)).toBe(false);
  });
  it('an identifier wrapped whole with underscores below its letters is one word', () => {
    // letters 6 px apart (over the 0.3-line-height word gap) with an underscore under each gap, 2 px
    // below the letters' rows: the underscores are their own ink run, under 4 px, dropped as a line
    const ident: Box[] = [];
    for (let x = 20; x < 280; x += 16) ident.push([x, 42, x + 10, 52], [x + 10, 54, x + 16, 55]);
    const body = [...para(20, 10, 1, 0), [20, 26, 100, 36] as Box, ...ident, ...para(20, 58, 2, 0)];
    const img = page(320, 200, body);
    const ls = inkLines(img, [0, 0, 320, 200]);
    expect(ls.length).toBe(5);
    expect(oneBlock(ls, false, img)).toBe(true);
    // the same letters without underscores are words that would have fitted after the short line
    const plain = page(320, 200, body.filter((b) => b[3] - b[1] > 1));
    expect(oneBlock(inkLines(plain, [0, 0, 320, 200]), false, plain)).toBe(false);
  });
  it('the halves of a paragraph join even when the lower box cuts into the next paragraph\'s first line', () => {
    // paragraph of 4 lines, then an indented paragraph; the lower box ends 4 px into its first line
    const img = page(320, 240, [...para(20, 10, 4, 0), ...para(20, 84, 2, 12)]);
    const box: Box = [18, 8, 302, 88];
    expect(inkLines(img, box).length).toBe(5);
    expect(withoutSlivers(inkLines(img, box), box).length).toBe(4);
    expect(oneBlock(inkLines(img, box), false)).toBe(false);
    const out = mergeSplitBlocks(img, [det('text', [18, 8, 302, 38]), det('text', [18, 40, 302, 88]), det('text', [18, 82, 302, 116])]);
    expect(out.map((d) => [d.cls, ...d.box])).toEqual([['text', 18, 8, 302, 88], ['text', 18, 82, 302, 116]]);
    // a full line at the box edge is no sliver
    expect(withoutSlivers(inkLines(img, [18, 8, 302, 94]), [18, 8, 302, 94]).length).toBe(5);
  });
  it('a blank of more than a line height between two lines is a paragraph skip, at any pitch', () => {
    const lines = (bars: Box[]) => inkLines(page(320, 200, bars), [0, 0, 320, 200]);
    // item: marker line + continuation (6 px leading), then a quoted line 11 px further down at the
    // continuation column; by pitch alone (median of two) the three lines read as one item
    const item: Box[] = [...para(20, 10, 2, -10), [20, 53, 300, 63]];
    expect(oneBlock(lines(item), true)).toBe(false);
    item[2] = [20, 42, 300, 52];
    expect(oneBlock(lines(item), true)).toBe(true);
  });
  it('merges the two halves of one paragraph and leaves separate ones alone', () => {
    const img = page(320, 240, [...para(20, 10, 6, 0), ...para(20, 130, 3, 12)]);
    const top = det('text', [18, 8, 302, 54], 0.8);
    const bottom = det('text', [18, 56, 302, 102], 0.6);
    const next = det('text', [18, 128, 302, 174], 0.9);
    const out = mergeSplitBlocks(img, [top, bottom, next]);
    expect(out.map((d) => [d.cls, ...d.box, d.score])).toEqual([['text', 18, 8, 302, 102, 0.8], ['text', 18, 128, 302, 174, 0.9]]);
    // something between the halves (here a formula) keeps them apart
    const f = det('formula', [100, 50, 200, 58]);
    expect(mergeSplitBlocks(img, [top, f, bottom])).toHaveLength(3);
  });
  it('a list item takes back its continuation lines whatever they were called', () => {
    const img = page(320, 200, para(20, 10, 5, -10));
    const out = mergeSplitBlocks(img, [det('list_item', [8, 8, 302, 38]), det('text', [8, 40, 302, 86])]);
    expect(out.map((d) => [d.cls, ...d.box])).toEqual([['list_item', 8, 8, 302, 86]]);
  });
  it('a list item joins the indented line below only when its first line is full up to the other items\' edge', () => {
    // items in a column whose right edge is 300 (the paragraph beside them runs to 312)
    const items = (firstEnd: number) => page(340, 200, [[20, 10, firstEnd, 20], [32, 26, 60, 36], [66, 26, 200, 36], [20, 60, 300, 70], [20, 90, 312, 100]]);
    const boxes = [det('list_item', [18, 8, 302, 22]), det('list_item', [18, 24, 302, 38]), det('list_item', [18, 58, 302, 72]), det('text', [18, 88, 314, 102])];
    expect(mergeSplitBlocks(items(299), boxes).map((d) => d.box)).toEqual([[18, 8, 302, 38], boxes[2].box, boxes[3].box]);
    // a short first line is a one-line item; the indented line below is something else
    expect(mergeSplitBlocks(items(200), boxes)).toHaveLength(4);
    // without other items the column's edge is unknown: the shape alone decides, as before
    expect(mergeSplitBlocks(items(200), boxes.slice(0, 2))).toHaveLength(1);
  });
  it('a third, overlapping fragment of the merged block is dropped', () => {
    const img = page(320, 200, para(20, 10, 3, 0));
    // the detector's three boxes: lines 1–2, lines 2–3 and lines 1–2 again (a little tighter, so
    // not "between" the other two); the first two join and the third lies inside the result
    const out = mergeSplitBlocks(img, [det('text', [18, 8, 302, 38]), det('text', [18, 24, 302, 54]), det('text', [18, 9, 302, 37])]);
    expect(out.map((d) => [d.cls, ...d.box])).toEqual([['text', 18, 8, 302, 54]]);
  });
});

describe('splitHeading', () => {
  // a line of "letters": vertical strokes `w` px wide every 6 px from x0 to x1
  const strokes = (y: number, x0: number, x1: number, w: number, h = 12): Box[] => {
    const out: Box[] = [];
    for (let x = x0; x + w <= x1; x += 6) out.push([x, y, x + w, y + h]);
    return out;
  };
  it('a bold first line over body lines becomes a heading fitted to its ink; the rest stays text', () => {
    const bars = [...strokes(10, 20, 160, 4), ...strokes(30, 20, 300, 2), ...strokes(46, 20, 300, 2), ...strokes(62, 20, 200, 2)];
    const img = page(320, 100, bars);
    const d = det('text', [16, 6, 304, 78]);
    const parts = splitHeading(img, d, inkLines(img, d.box));
    expect(parts.map((p) => p.cls)).toEqual(['section_heading', 'text']);
    const [h, t] = parts.map((p) => p.box);
    expect(h[0]).toBeCloseTo(20 - 1.2, 5);
    expect(h[2]).toBeCloseTo(156 + 1.2, 5);
    expect(h[3]).toBeLessThanOrEqual(30);
    expect(t[1]).toBeGreaterThanOrEqual(h[3]);
    expect([t[0], t[2], t[3]]).toEqual([16, 304, 78]);
  });
  it('leaves paragraphs alone: same strokes throughout, a heavy line cut by the box top, list items', () => {
    const plain = page(320, 100, [...strokes(10, 20, 300, 2), ...strokes(30, 20, 300, 2), ...strokes(46, 20, 200, 2)]);
    const d = det('text', [16, 6, 304, 62]);
    expect(splitHeading(plain, d, inkLines(plain, d.box))).toEqual([d]);
    const bold = page(320, 100, [...strokes(10, 20, 160, 4), ...strokes(30, 20, 300, 2), ...strokes(46, 20, 200, 2)]);
    const cut = det('text', [16, 16, 304, 62]);
    expect(splitHeading(bold, cut, inkLines(bold, cut.box))).toEqual([cut]);
    const item = det('list_item', [16, 6, 304, 62]);
    expect(splitHeading(bold, item, inkLines(bold, item.box))).toEqual([item]);
  });
});

describe('mergeHeadingParts', () => {
  it('joins a heading boxed line by line or twice; keeps headings apart that have room between them', () => {
    const l1 = det('section_heading', [74, 280, 363, 317], 0.83);
    const l2 = det('section_heading', [88, 321, 517, 355], 0.75);
    expect(mergeHeadingParts([l2, l1]).map((d) => [...d.box, d.score])).toEqual([[74, 280, 517, 355, 0.83]]);
    const twice = [det('section_heading', [82, 315, 508, 359], 0.82), det('section_heading', [92, 325, 376, 376], 0.62)];
    expect(mergeHeadingParts(twice).map((d) => d.box)).toEqual([[82, 315, 508, 376]]);
    // 8 px apart (0.24 of the 34-px box), another column, or text: untouched
    const apart = [l1, det('section_heading', [88, 325, 517, 359])];
    expect(mergeHeadingParts(apart)).toEqual(apart);
    const other = [l1, det('section_heading', [620, 321, 900, 355])];
    expect(mergeHeadingParts(other)).toEqual(other);
    const text = [l1, det('text', [74, 318, 517, 400])];
    expect(mergeHeadingParts(text)).toEqual(text);
    // a title boxed line by line joins too; a title and a heading do not
    const title = [det('title', [138, 96, 1082, 160], 0.78), det('title', [480, 161, 771, 225], 0.69)];
    expect(mergeHeadingParts(title).map((d) => [d.cls, ...d.box])).toEqual([['title', 138, 96, 1082, 225]]);
    const mixed = [title[0], det('section_heading', [480, 161, 771, 225])];
    expect(mergeHeadingParts(mixed)).toEqual(mixed);
  });
});

describe('trimBlankRows', () => {
  it('cuts blank rows past the ink, not rows with the region\'s own (even short) lines', () => {
    const img = page(320, 200, para(20, 40, 3, 0));
    const d = det('text', [18, 10, 302, 120]);
    const t = trimBlankRows(img, d, inkLines(img, d.box), [d]);
    expect(t.box[1]).toBeCloseTo(40 - 0.28 * 10);
    expect(t.box[3]).toBeCloseTo(82 + 0.11 * 10);
    const tight = det('text', [18, 37, 302, 84]);
    expect(trimBlankRows(img, tight, inkLines(img, tight.box), [tight])).toBe(tight);
  });
  it('a sliver of a neighbour\'s line at the edge does not count as ink of this box', () => {
    const img = page(320, 200, [...para(20, 10, 2, 0), ...para(20, 80, 2, 0)]);
    // the box starts inside the neighbour's last line (rows 26..36) and reaches past blank rows to ours
    const d = det('text', [18, 31, 302, 108]);
    const above = det('text', [18, 8, 302, 37]);
    const t = trimBlankRows(img, d, inkLines(img, d.box), [above, d]);
    expect(t.box[1]).toBeCloseTo(80 - 0.28 * 10);
    expect(trimBlankRows(img, d, inkLines(img, d.box), [d]).box[1]).toBe(31);
  });
});

describe('cutMarkerX', () => {
  it('finds a marker left of the box on the first line only', () => {
    const bars: Box[] = [[26, 10, 32, 20], ...para(40, 10, 3, 0)];
    const img = page(320, 100, bars);
    const box: Box = [38, 8, 302, 60];
    expect(cutMarkerX(img, box, inkLines(img, box))).toBe(26);
    // ink left of every line (a neighbouring column) is not a marker
    const col = page(320, 100, [[26, 10, 32, 60], ...para(40, 10, 3, 0)]);
    expect(cutMarkerX(col, box, inkLines(col, box))).toBeNull();
  });
  it('a box that also cut the first letter of the second line still finds the marker', () => {
    // marker at 22..26, text from 30 on both lines; the box starts at 40, inside the first letters
    const img = page(320, 100, [[22, 10, 26, 20], ...para(30, 10, 3, 0)]);
    const box: Box = [40, 8, 302, 60];
    expect(cutMarkerX(img, box, inkLines(img, box))).toBe(22);
    // flush lines whose first letters the box cut: no marker
    const flush = page(320, 100, para(30, 10, 3, 0));
    expect(cutMarkerX(flush, box, inkLines(flush, box))).toBeNull();
  });
  it('relabelByContext takes the marker into a list item box that cut it off', () => {
    const img = page(320, 100, [[26, 10, 32, 20], ...para(40, 10, 3, 0)]);
    const out = relabelByContext(img, [det('list_item', [38, 8, 302, 60])], []);
    expect(out[0].cls).toBe('list_item');
    expect(out[0].box[0]).toBeLessThan(26);
  });
});

describe('oneLineClass', () => {
  const line = (x: number) => [{ y0: 0, y1: 20, x, xEnd: 300, base: 20 }];
  const block = (cls: Detection['cls'], kind: 'hanging' | 'flush', x: number) => ({
    d: det(cls, [90, 0, 310, 100]),
    kind,
    lines: kind === 'hanging' ? [{ y0: 0, y1: 20, x, xEnd: 300, base: 20 }, { y0: 25, y1: 45, x: x + 20, xEnd: 300, base: 45 }] : [{ y0: 0, y1: 20, x, xEnd: 300, base: 20 }, { y0: 25, y1: 45, x, xEnd: 300, base: 45 }],
  });
  it('a line at a list\'s marker column is an item; at the paragraphs\' body x it is text', () => {
    const d = det('text', [90, 200, 310, 220]);
    expect(oneLineClass(d, line(110), [block('list_item', 'hanging', 110)])).toBe('list_item');
    expect(oneLineClass(det('list_item', [90, 200, 310, 220]), line(100), [block('text', 'flush', 100)])).toBe('text');
    // ~0.5 line heights right of the body x: a marker
    expect(oneLineClass(d, line(110), [block('text', 'flush', 100)])).toBe('list_item');
    // indented or centred well past it: text
    expect(oneLineClass(det('list_item', [90, 200, 310, 220]), line(160), [block('text', 'flush', 100)])).toBe('text');
    // no blocks in the column: the detector's class stands
    expect(oneLineClass(d, line(110), [])).toBe('text');
  });
});

describe('split list items', () => {
  it('a piece of a split item that another box already holds is dropped', () => {
    const img = page(320, 120, [...para(20, 10, 2, -10), ...para(20, 42, 3, -10)]);
    const both = det('list_item', [8, 8, 302, 86], 0.9);
    const first = det('list_item', [8, 6, 302, 40], 0.7);
    const out = relabelByContext(img, [both, first], [both, first]);
    expect(out.map((d) => [d.cls, ...d.box])).toEqual([['list_item', 8, 40, 302, 86], ['list_item', 8, 6, 302, 40]]);
    // alone, the box is split in two
    expect(relabelByContext(img, [both], [both]).map((d) => d.box)).toEqual([[8, 8, 302, 38], [8, 40, 302, 86]]);
  });
});

describe('splitFlushItems', () => {
  it('two one-line items in one box are split along the detector\'s boxes for each', () => {
    const img = page(320, 100, [[20, 10, 250, 20], [20, 26, 180, 36]]);
    const both = det('list_item', [15, 6, 305, 40], 0.76);
    const raw = [both, det('list_item', [14, 7, 260, 22], 0.54), det('list_item', [16, 23, 200, 39], 0.66)];
    const out = relabelByContext(img, [both], raw, { veto: 0.6 });
    expect(out.map((d) => [d.cls, ...d.box.map((v) => Math.round(v * 10) / 10)])).toEqual([['list_item', 18, 7.2, 252, 21.1], ['list_item', 18, 23.2, 182, 37.1]]);
    // without those boxes it stays one region; a hanging item (marker line + continuation) is never split this way
    expect(relabelByContext(img, [both], [both], { veto: 0.6 })).toHaveLength(1);
    const hanging = page(320, 100, para(30, 10, 2, -10));
    expect(relabelByContext(hanging, [both], raw, { veto: 0.6 })).toHaveLength(1);
  });
});

describe('splitParagraphs', () => {
  it('splits before an indented line that follows a short one', () => {
    // a one-line indented paragraph (short), then a paragraph with its first line indented
    const img = page(320, 100, [[32, 10, 200, 20], [32, 26, 300, 36], [20, 42, 300, 52], [20, 58, 300, 68]]);
    const d = det('text', [18, 8, 302, 72]);
    const parts = splitParagraphs(img, d, inkLines(img, d.box));
    expect(parts.map((p) => p.box.map((v) => Math.round(v * 100) / 100))).toEqual([[30, 7.2, 202, 21.1], [18, 23.2, 302, 72]]);
    // the box cut the first line at its top: the piece follows the line up to its first row
    const cut = det('text', [18, 14, 302, 72]);
    expect(splitParagraphs(img, cut, inkLines(img, cut.box))[0].box[1]).toBeCloseTo(10 - 2.8);
  });
  it('where paragraphs open with an indent, a line indented like the first starts one even after a full line', () => {
    // two paragraphs of two lines each, first lines indented by 12 px, every line running to x 300
    const img = page(320, 100, [...para(20, 10, 2, 12), ...para(20, 44, 2, 12)]);
    const d = det('text', [18, 8, 302, 74]);
    const parts = splitParagraphs(img, d, inkLines(img, d.box));
    expect(parts).toHaveLength(2);
    expect(parts[1].box[1]).toBeGreaterThan(36);
    expect(parts[1].box[1]).toBeLessThan(44);
    // the same lines with a flush first line: an indented line after a full one is no paragraph start
    const flush = page(320, 100, [...para(20, 10, 2, 0), ...para(20, 44, 2, 12)]);
    expect(splitParagraphs(flush, d, inkLines(flush, d.box))).toEqual([d]);
  });
  it('relabelByContext: the lower part split off a box joins the first line boxed on its own', () => {
    // paragraph 1: indented line (its own box) + short flush line; paragraph 2: indented + 2 flush,
    // one box over paragraph 1's second line and all of paragraph 2
    const img = page(320, 100, [[32, 10, 300, 20], [20, 26, 200, 36], [32, 42, 300, 52], ...para(20, 58, 2, 0)]);
    const first = det('text', [18, 8, 302, 22], 0.7);
    const rest = det('text', [18, 24, 302, 88], 0.86);
    const out = relabelByContext(img, [rest, first], [rest, first]);
    const boxes = out.map((d) => [d.cls, ...d.box.map((v) => Math.round(v * 10) / 10)]).sort((p, q) => (p[2] as number) - (q[2] as number));
    expect(boxes).toEqual([['text', 18, 8, 302, 37.1], ['text', 18, 39.2, 302, 88]]);
  });
  it('one paragraph (first line indented, or a short line then a flush one) stays whole', () => {
    const img = page(320, 100, para(20, 10, 4, 12));
    const d = det('text', [18, 8, 302, 72]);
    expect(splitParagraphs(img, d, inkLines(img, d.box))).toEqual([d]);
    const flush = page(320, 100, [[20, 10, 200, 20], ...para(20, 26, 3, 0)]);
    expect(splitParagraphs(flush, d, inkLines(flush, d.box))).toEqual([d]);
    // a short last line, then the top 5 px of the next paragraph's indented line cut by the box
    const sliver = page(320, 100, [...para(20, 10, 2, 0), [20, 42, 200, 52], [40, 66, 300, 76]]);
    const over = det('text', [18, 8, 302, 71]);
    expect(splitParagraphs(sliver, over, inkLines(sliver, over.box))).toEqual([over]);
  });
});

describe('markerBefore', () => {
  const line = { y0: 10, y1: 30, x: 60, xEnd: 300, base: 30 };
  it('finds a small blob of ink just left of a line, alone in its rows', () => {
    expect(markerBefore(page(320, 60, [[44, 15, 50, 25], [60, 10, 300, 30]]), line)).toBe(44);
    // "(a)": three glyphs joined across gaps ≤ 0.3 line heights
    expect(markerBefore(page(320, 60, [[30, 10, 34, 30], [38, 14, 44, 30], [48, 10, 52, 30], [60, 10, 300, 30]]), line)).toBe(30);
    // the line seen from x 62, inside its first letter (56..66): the letter is the line's, the
    // marker the blob 10 px before it (a gap wider than the 6 px that joins a marker's glyphs)
    const cut = page(320, 60, [[40, 15, 46, 25], [56, 10, 66, 30], [70, 10, 300, 30]]);
    expect(markerBefore(cut, { ...line, x: 62 })).toBe(40);
  });
  it('no ink, ink too far off, or the neighbouring column\'s text is not a marker', () => {
    expect(markerBefore(page(320, 60, [[60, 10, 300, 30]]), line)).toBeNull();
    expect(markerBefore(page(320, 60, [[20, 15, 26, 25], [60, 10, 300, 30]]), line)).toBeNull();
    // words with word gaps (5 px) running on to the left: wider than a marker
    const words: Box[] = Array.from({ length: 5 }, (_, k) => [5 + 10 * k, 10, 10 + 10 * k, 30] as Box);
    expect(markerBefore(page(320, 60, [...words, [60, 10, 300, 30]]), line)).toBeNull();
  });
  it('relabelByContext: a one-line "item" without a marker at a list\'s text column is text', () => {
    // a list item (marker line at 20, continuation at 40), then a quoted line at 40 after a skip
    const img = page(320, 200, [...para(40, 10, 2, -20), [40, 60, 300, 70], ...para(20, 100, 3, 0)]);
    const kept = [det('list_item', [18, 8, 302, 38], 0.9), det('list_item', [38, 58, 302, 72], 0.8), det('text', [18, 98, 302, 144], 0.9)];
    const out = relabelByContext(img, kept, kept, { veto: 0.6 });
    expect(out.map((d) => d.cls)).toEqual(['list_item', 'text', 'text']);
    // with its marker (cut off by the box) it stays an item, and the box takes the marker in
    const img2 = page(320, 200, [...para(40, 10, 2, -20), [20, 60, 26, 70], [40, 60, 300, 70], ...para(20, 100, 3, 0)]);
    const out2 = relabelByContext(img2, kept, kept, { veto: 0.6 });
    expect(out2.map((d) => d.cls)).toEqual(['list_item', 'list_item', 'text']);
    expect(out2[1].box[0]).toBeLessThan(20);
  });
});

describe('tight captions', () => {
  it('a region hugging a table is claimed on modest caption evidence; one further off is not', () => {
    const img = page(400, 1000, [[20, 304, 300, 314], [20, 640, 300, 650]]);
    const table = det('table', [10, 100, 310, 300]);
    const near = det('text', [18, 302, 302, 316], 0.8);
    const table2 = det('table', [10, 400, 310, 620]);
    const far = det('text', [18, 638, 302, 652], 0.8); // 18 px = 1.8 line heights below table2
    const raw = [table, near, table2, far, det('caption', [18, 302, 302, 316], 0.45), det('caption', [18, 638, 302, 652], 0.45)];
    expect(relabelByContext(img, [table, near, table2, far], raw).map((d) => d.cls)).toEqual(['table', 'caption', 'table', 'text']);
    expect(relabelByContext(img, [table, near], raw, { tightGap: 0 }).map((d) => d.cls)).toEqual(['table', 'text']);
  });
});

describe('strokeWidth / bold headings', () => {
  /** "words" of 2-px (regular) or 5-px (bold) strokes with 3-px gaps, on rows y0..y0+10 */
  const strokes = (x0: number, x1: number, y0: number, w: number): Box[] => {
    const out: Box[] = [];
    for (let x = x0; x + w <= x1; x += w + 3) out.push([x, y0, x + w, y0 + 10]);
    return out;
  };
  it('measures the mean run of ink', () => {
    const img = page(320, 40, strokes(20, 300, 10, 2));
    const box: Box = [10, 5, 310, 25];
    expect(strokeWidth(img, box, inkLines(img, box))).toBe(2);
  });
  it('a bold one-line region becomes a heading, a regular one called heading does not', () => {
    const body = [...strokes(20, 300, 100, 2), ...strokes(20, 300, 116, 2), ...strokes(20, 300, 132, 2)];
    const img = page(320, 200, [...strokes(20, 200, 10, 5), ...strokes(20, 200, 50, 2), ...body]);
    const para = det('text', [10, 98, 310, 144]);
    const boldLine = det('text', [10, 8, 310, 22], 0.6);
    const plainLine = det('section_heading', [10, 48, 310, 62], 0.6);
    const raw = [para, boldLine, plainLine, det('text', [10, 48, 310, 62], 0.4)];
    const out = relabelByContext(img, [para, boldLine, plainLine], raw);
    expect(out.map((d) => d.cls)).toEqual(['text', 'section_heading', 'text']);
    expect(relabelByContext(img, [para, boldLine, plainLine], raw, { weight: false }).map((d) => d.cls)).toEqual(['text', 'text', 'section_heading']);
  });
});
