/**
 * Generator tests: determinism (same seed -> same JSON bytes and PNG bytes), box alignment (line boxes
 * inside region boxes, ink inside every line box), crop export. Uses the committed fixtures and 2
 * freshly generated pages (corpus derived from the fixtures, so no `npm run corpus` is needed).
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type PageRecord } from './generate.ts';
import { loadCorpus } from './corpus.ts';
import { decodePng, toGray, type Image } from './png.ts';
import { exportCrops } from './crops.ts';
import { normalizeTarget } from './normalize.ts';
import { buildPage, CLASSES, parseBoost, TEXT_LIKE } from './content.ts';
import { pageSeed, splitOf, SPLITS } from './splits.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, 'fixtures');

function records(dir: string): PageRecord[] {
  return readdirSync(dir)
    .filter((f) => /^p\d+\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as PageRecord);
}

/** a tiny corpus made of the fixture pages' own sentences and words */
function fixtureCorpus(dir: string): string {
  const sents = new Set<string>();
  const words = new Set<string>();
  for (const r of records(FIXTURES)) {
    for (const g of r.regions) {
      for (const w of g.target.toLowerCase().split(/[^a-z]+/)) if (w.length >= 3 && w.length <= 12) words.add(w);
      if (!['text', 'list_item', 'caption', 'footnote'].includes(g.cls) || g.target.includes('$')) continue;
      for (const s of g.target.split(/(?<=[.!?])\s+(?=[A-Z])/)) if (s.length >= 40 && s.length <= 320 && /^[A-Z]/.test(s)) sents.add(s);
    }
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sentences.txt'), [...sents].join('\n') + '\n');
  writeFileSync(join(dir, 'words.txt'), [...words].join('\n') + '\n');
  return dir;
}

function inkRange(img: Image, b: number[]): number {
  let lo = 255, hi = 0;
  for (let y = Math.max(0, b[1]); y < Math.min(img.height, b[3]); y++)
    for (let x = Math.max(0, b[0]); x < Math.min(img.width, b[2]); x++) {
      const v = img.data[y * img.width + x];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  return hi - lo;
}

function inside(inner: number[], outer: number[]): boolean {
  return inner[0] >= outer[0] && inner[1] >= outer[1] && inner[2] <= outer[2] && inner[3] <= outer[3];
}

function checkAlignment(dir: string): number {
  let checked = 0;
  for (const r of records(dir)) {
    const img = toGray(decodePng(readFileSync(join(dir, r.image))));
    expect([img.width, img.height]).toEqual([r.width, r.height]);
    r.regions.forEach((g, i) => {
      expect(g.order).toBe(i);
      expect(CLASSES).toContain(g.cls);
      const [x0, y0, x1, y1] = g.box;
      expect(x0 >= 0 && y0 >= 0 && x1 <= r.width && y1 <= r.height && x1 > x0 && y1 > y0, `${r.id} ${g.cls} box ${g.box}`).toBe(true);
      expect(inkRange(img, g.box), `${r.id} region ${i} (${g.cls}) has no ink`).toBeGreaterThan(60);
      for (const l of g.lines) {
        expect(inside(l.box, g.box), `${r.id} region ${i} line ${l.box} outside ${g.box}`).toBe(true);
        expect(inkRange(img, l.box), `${r.id} region ${i} (${g.cls}) line "${l.text.slice(0, 30)}" has no ink`).toBeGreaterThan(60);
        checked++;
      }
      if (TEXT_LIKE.has(g.cls)) {
        expect(g.lines.length).toBeGreaterThan(0);
        expect(normalizeTarget('text', g.lines.map((l) => l.text).join(' '))).toBe(g.target);
      }
      if (g.cls === 'table') expect(`<table>${g.lines.map((l) => l.text).join('')}</table>`).toBe(g.target);
    });
  }
  return checked;
}

describe('splits', () => {
  it('maps runs into disjoint seed ranges', () => {
    expect(pageSeed('train', 0, 5)).toBe(5);
    expect(pageSeed('val', 0, 0)).toBe(SPLITS.val.start);
    expect(pageSeed('test', 3, 1)).toBe(SPLITS.test.start + 4);
    expect(splitOf(pageSeed('val', 49_999, 1))).toBe('val');
    expect(splitOf(pageSeed('train', 899_999, 1))).toBe('train');
  });
});

describe('fixtures', () => {
  it('are 3 pages with PNG, JSON and PDF, one with a table and a formula, < 1.5 MB', () => {
    const recs = records(FIXTURES);
    expect(recs.length).toBe(3);
    let total = 0;
    for (const r of recs) {
      for (const f of [r.image, r.pdf!, `${r.id}.json`]) {
        expect(existsSync(join(FIXTURES, f)), f).toBe(true);
        total += readFileSync(join(FIXTURES, f)).length;
      }
    }
    expect(total).toBeLessThan(1.5e6);
    expect(recs.some((r) => r.regions.some((g) => g.cls === 'table') && r.regions.some((g) => g.cls === 'formula'))).toBe(true);
  });
  it('boxes contain their rendered text', () => {
    expect(checkAlignment(FIXTURES)).toBeGreaterThan(50);
  });
  it('export to recognizer crops and detector samples', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-crops-'));
    const stats = exportCrops(FIXTURES, out);
    expect(stats.pages).toBe(3);
    const lines = readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBe(stats.samples.text + stats.samples.table + stats.samples.formula);
    expect(stats.samples.table).toBeGreaterThan(0);
    expect(stats.samples.formula).toBeGreaterThan(0);
    for (const s of lines) {
      expect(Object.keys(s)).toEqual(expect.arrayContaining(['id', 'task', 'target', 'image', 'cls', 'lines']));
      expect(normalizeTarget(s.task, s.target)).toBe(s.target);
      const img = decodePng(readFileSync(join(out, s.image)));
      expect(img.channels).toBe(1);
      for (const b of s.lines) expect(b[0] >= 0 && b[1] >= 0 && b[2] <= img.width && b[3] <= img.height).toBe(true);
    }
    const det = readFileSync(join(out, 'detector.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(det.length).toBe(3);
    expect(existsSync(join(out, det[0].image))).toBe(true);
    expect(det[0].boxes.length).toBe(det[0].classes.length);
  });
  it('crop export can keep only some tasks', () => {
    const out = mkdtempSync(join(tmpdir(), 'synth-crops-tf-'));
    const all = exportCrops(FIXTURES, mkdtempSync(join(tmpdir(), 'synth-crops-all-')));
    const stats = exportCrops(FIXTURES, out, 4, () => undefined, ['table', 'formula']);
    expect(stats.samples).toEqual({ text: 0, table: all.samples.table, formula: all.samples.formula });
    const tasks = readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).task);
    expect(new Set(tasks)).toEqual(new Set(['table', 'formula']));
  });
});

describe('block boost', () => {
  it('parses kind=weight lists and rejects anything else', () => {
    expect(parseBoost(undefined)).toEqual({});
    expect(parseBoost('table=4,formula=2.5')).toEqual({ table: 4, formula: 2.5 });
    expect(() => parseBoost('tables=4')).toThrow(/--boost/);
    expect(() => parseBoost('table=-1')).toThrow(/--boost/);
    expect(() => parseBoost('table')).toThrow(/--boost/);
  });
  it('no boost gives the same page; a table boost gives pages with more tables', () => {
    const dir = mkdtempSync(join(tmpdir(), 'synth-boost-'));
    const corpus = loadCorpus(fixtureCorpus(join(dir, 'corpus')));
    const count = (boost: Parameters<typeof buildPage>[3]) => {
      let n = 0;
      for (let seed = 0; seed < 20; seed++) n += Object.values(buildPage(seed, corpus, undefined, boost).truth).filter((t) => t.cls === 'table').length;
      return n;
    };
    expect(JSON.stringify(buildPage(5, corpus, undefined, {}))).toBe(JSON.stringify(buildPage(5, corpus)));
    expect(count({ table: 6 })).toBeGreaterThan(2 * count({}));
  });
});

describe('generator', () => {
  let a: string, b: string, fontCheck: Record<string, boolean>;
  beforeAll(async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'synth-gen-'));
    const corpus = loadCorpus(fixtureCorpus(join(tmp, 'corpus')));
    a = join(tmp, 'a');
    b = join(tmp, 'b');
    const s1 = await generate({ pages: 2, seed: 123, split: 'val', out: a, dpi: 150, pdf: true, degrade: false, tabs: 2, corpus });
    await generate({ pages: 2, seed: 123, split: 'val', out: b, dpi: 150, pdf: true, degrade: false, tabs: 1, corpus });
    fontCheck = s1.fontCheck;
  });
  it('finds at least 12 real font families', () => {
    expect(Object.values(fontCheck).filter(Boolean).length).toBeGreaterThanOrEqual(12);
  });
  it('same seed gives the same JSON bytes, identical PNGs and PDFs', () => {
    const fa = readdirSync(a).sort();
    expect(fa).toEqual(readdirSync(b).sort());
    expect(fa.filter((f) => f.endsWith('.png')).length).toBe(2);
    for (const f of fa) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true);
    expect(records(a).map((r) => r.seed)).toEqual([SPLITS.val.start + 123, SPLITS.val.start + 124]);
  });
  it('generated boxes contain their rendered text', () => {
    expect(checkAlignment(a)).toBeGreaterThan(10);
  });
});
