import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readingOrder, sortRows } from './reading-order.ts';
import type { Box, RegionClass } from './types.ts';

interface R {
  id: string;
  cls: RegionClass;
  box: Box;
}
const r = (id: string, cls: RegionClass, box: Box): R => ({ id, cls, box });
const ids = (rs: { id: string }[]) => rs.map((x) => x.id);

// deterministic shuffle so the input order never helps
function shuffled<T>(xs: T[], seed = 7): T[] {
  const a = [...xs];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const PAGE = { width: 1275, height: 1650 };

describe('reading order', () => {
  it('one column, with captions above a table and below a figure, furniture flagged', () => {
    const rs = [
      r('hdr', 'page_header', [150, 40, 500, 60]),
      r('num', 'page_number', [1050, 40, 1100, 60]),
      r('title', 'title', [300, 120, 975, 180]),
      r('p1', 'text', [150, 220, 1125, 400]),
      r('h1', 'section_heading', [150, 430, 450, 460]),
      r('p2', 'text', [150, 480, 1125, 600]),
      r('cap1', 'caption', [150, 620, 800, 650]),
      r('tab1', 'table', [300, 660, 975, 900]),
      r('p3', 'text', [150, 920, 1125, 1000]),
      r('fig1', 'figure', [400, 1020, 875, 1300]),
      r('cap2', 'caption', [150, 1310, 900, 1340]),
      r('fn', 'footnote', [150, 1480, 1125, 1510]),
      r('foot', 'page_footer', [150, 1580, 400, 1600]),
      r('num2', 'page_number', [1000, 1580, 1100, 1600]),
    ];
    const out = readingOrder(shuffled(rs), PAGE);
    expect(ids(out)).toEqual(ids(rs));
    expect(out.map((x) => x.order)).toEqual(rs.map((_, i) => i));
    expect(out.filter((x) => x.skipInMarkdown).map((x) => x.id)).toEqual(['hdr', 'num', 'foot', 'num2']);
  });

  it('two columns under a full-width title and abstract', () => {
    const rs = [
      r('hdrL', 'page_header', [150, 40, 400, 60]),
      r('hdrR', 'page_header', [900, 40, 1125, 60]),
      r('title', 'title', [250, 100, 1025, 160]),
      r('aff', 'text', [500, 170, 775, 195]),
      r('absh', 'section_heading', [590, 220, 685, 245]),
      r('abs', 'text', [220, 250, 1055, 400]),
      r('l1', 'section_heading', [150, 430, 400, 460]),
      r('l2', 'text', [150, 470, 620, 800]),
      r('l3', 'formula', [250, 820, 520, 880]),
      r('l4', 'text', [150, 900, 620, 1400]),
      r('r1', 'text', [655, 430, 1125, 700]),
      r('r2', 'list_item', [670, 710, 1125, 800]),
      r('r3', 'list_item', [670, 805, 1125, 900]),
      r('r4', 'section_heading', [655, 930, 900, 960]),
      r('r5', 'text', [655, 970, 1125, 1400]),
      r('num', 'page_number', [610, 1580, 665, 1600]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('full-width table and formula between two columns, caption kept with its table', () => {
    const rs = [
      r('l1', 'text', [150, 100, 620, 400]),
      r('r1', 'text', [655, 100, 1125, 400]),
      r('cap', 'caption', [150, 420, 700, 450]), // narrower than the table, sits left of the gutter
      r('tab', 'table', [150, 460, 1125, 700]),
      r('l2', 'text', [150, 720, 620, 900]),
      r('r2', 'text', [655, 720, 1125, 900]),
      r('eq', 'formula', [400, 920, 900, 980]),
      r('l3', 'text', [150, 1000, 620, 1300]),
      r('r3', 'text', [655, 1000, 1125, 1250]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('caption below a figure in the right column; caption under a table at a column end', () => {
    const rs = [
      r('l1', 'text', [150, 100, 620, 700]),
      r('tab', 'table', [200, 720, 570, 1000]),
      r('capT', 'caption', [150, 1010, 620, 1060]),
      r('r1', 'text', [655, 100, 1125, 300]),
      r('fig', 'figure', [700, 320, 1080, 600]),
      r('capF', 'caption', [655, 610, 1125, 660]),
      r('r2', 'text', [655, 680, 1125, 1060]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('a heading overhanging the gutter stays in its column', () => {
    const rs = [
      r('l1', 'text', [150, 100, 620, 400]),
      r('lh', 'section_heading', [150, 420, 700, 480]),
      r('l2', 'text', [150, 500, 620, 900]),
      r('r1', 'text', [655, 100, 1125, 600]),
      r('r2', 'text', [655, 620, 1125, 900]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('caption beside its figure is read right after it', () => {
    const rs = [
      r('p1', 'text', [150, 100, 1125, 300]),
      r('fig', 'figure', [150, 320, 700, 700]),
      r('cap', 'caption', [730, 450, 1125, 560]),
      r('p2', 'text', [150, 720, 1125, 900]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('one column with a short left heading and a narrow centred formula stays top to bottom', () => {
    const rs = [
      r('p1', 'text', [150, 100, 1125, 300]),
      r('eq', 'formula', [560, 320, 720, 380]),
      r('h', 'section_heading', [150, 400, 420, 430]),
      r('p2', 'text', [150, 450, 1125, 700]),
    ];
    expect(ids(readingOrder(shuffled(rs), PAGE))).toEqual(ids(rs));
  });

  it('rows: same-line regions left to right', () => {
    const rows = sortRows([r('b', 'text', [600, 12, 700, 30]), r('a', 'text', [10, 10, 100, 30]), r('c', 'text', [10, 50, 100, 70])]);
    expect(ids(rows)).toEqual(['a', 'b', 'c']);
  });

  it('empty and single inputs', () => {
    expect(readingOrder([], PAGE)).toEqual([]);
    const one = readingOrder([r('x', 'text', [1, 2, 3, 4])]);
    expect(one[0].order).toBe(0);
    expect(one[0].skipInMarkdown).toBe(false);
  });

  const FIX = 'tools/synth/fixtures';
  it.runIf(existsSync(FIX))('matches the generator order on the synth fixture pages (ground-truth boxes)', () => {
    const files = readdirSync(FIX).filter((f) => /^p\d+\.json$/.test(f));
    let ok = 0;
    const bad: string[] = [];
    for (const f of files) {
      const page = JSON.parse(readFileSync(`${FIX}/${f}`, 'utf8'));
      const regs = (page.regions as { cls: RegionClass; box: Box; order: number }[]).map((x) => ({ ...x, id: String(x.order) }));
      const want = [...regs].sort((a, b) => a.order - b.order).map((x) => x.id);
      const got = ids(readingOrder(shuffled(regs), { width: page.width, height: page.height }));
      if (JSON.stringify(got) === JSON.stringify(want)) ok++;
      else bad.push(f);
    }
    expect(bad).toEqual([]);
    expect(ok).toBe(files.length);
  });
});
