import { describe, expect, it } from 'vitest';
import { byLength, byType, equalityRate, pageSpeed, pairRecords, quality, speedPair, type RegionRecord } from './summary.ts';

const rec = (o: Partial<RegionRecord> & Pick<RegionRecord, 'id' | 'method'>): RegionRecord => ({
  task: 'text',
  cls: 'text',
  target: 'abcd',
  text: 'abcd',
  ids: [1, 2, 3, 4],
  committed: 5,
  forwards: { ar: 0, draft: 0, verify: 0, cacheWrite: 0 },
  accepted: [],
  stop: 'eos',
  visionMs: 0,
  prefillMs: 0,
  decodeMs: 0,
  ...o,
});

describe('quality summary', () => {
  it('scores each task with its metric', () => {
    const q = quality([
      { task: 'text', text: 'abcx', target: 'abcd', stop: 'eos' }, // 1/4
      { task: 'text', text: '', target: 'efghijkl', stop: 'max_new_tokens' }, // 8/8
      { task: 'table', text: '<table><tr><td>a</td><td>ce</td></tr></table>', target: '<table><tr><td>a</td><td>cd</td></tr></table>', stop: 'eos' },
      { task: 'formula', text: 'a+b', target: 'a+b+c', stop: 'eos' },
      { task: 'formula', text: 'x^{2}', target: 'x^2', stop: 'eos' },
    ]);
    expect(q.regions).toEqual({ text: 2, table: 1, formula: 2 });
    expect(q.text_cer).toBeCloseTo(9 / 12, 12);
    expect(q.text_cer_mean).toBeCloseTo((0.25 + 1) / 2, 12);
    expect(q.table_teds).toBeCloseTo(1 - 0.5 / 4, 12);
    expect(q.table_teds_struct).toBe(1);
    expect(q.formula_nes).toBeCloseTo((0.6 + 1) / 2, 12);
    expect(q.formula_exact).toBe(0.5);
    expect(q.truncated).toBe(1);
  });
  it('reports null for an absent task', () => {
    const q = quality([{ task: 'text', text: 'a', target: 'a', stop: 'eos' }]);
    expect(q.table_teds).toBeNull();
    expect(q.formula_nes).toBeNull();
  });
});

describe('speed summaries', () => {
  const records: RegionRecord[] = [
    // region a: 10 tokens; AR 10 forwards in 100 ms decode (+50 vision +10 prefill); spec 2 rounds in 40 ms
    rec({ id: 'a', method: 'ar', committed: 10, ids: [1, 2, 3], forwards: { ar: 10, draft: 0, verify: 0, cacheWrite: 0 }, decodeMs: 100, visionMs: 50, prefillMs: 10 }),
    rec({ id: 'a', method: 'selfspec', committed: 10, ids: [1, 2, 3], forwards: { ar: 0, draft: 2, verify: 2, cacheWrite: 0 }, accepted: [5, 1], decodeMs: 40, visionMs: 50, prefillMs: 10 }),
    // region b (table): outputs differ
    rec({ id: 'b', task: 'table', method: 'ar', committed: 30, ids: new Array(200).fill(7), forwards: { ar: 30, draft: 0, verify: 0, cacheWrite: 0 }, decodeMs: 300, visionMs: 20, prefillMs: 20 }),
    rec({ id: 'b', task: 'table', method: 'selfspec', committed: 30, ids: [9], forwards: { ar: 0, draft: 3, verify: 3, cacheWrite: 0 }, accepted: [8, 8, 8], decodeMs: 60, visionMs: 20, prefillMs: 20 }),
    // an unpaired record is ignored
    rec({ id: 'c', method: 'ar', committed: 99, decodeMs: 1 }),
  ];
  const pairs = pairRecords(records);
  it('pairs AR and self-spec records by region', () => {
    expect(pairs.map((p) => p.ar.id)).toEqual(['a', 'b']);
  });
  it('computes decode-only throughput, TPF and acceptance', () => {
    const s = speedPair(pairs, 'decode');
    expect(s.ar_tok_s).toBeCloseTo((40 * 1000) / 400, 9);
    expect(s.spec_tok_s).toBeCloseTo((40 * 1000) / 100, 9);
    expect(s.speedup).toBeCloseTo(4, 9);
    expect(s.tpf).toBeCloseTo(40 / 10, 9);
    expect(s.accepted_per_round).toBeCloseTo(30 / 5, 9);
  });
  it('adds vision and prefill for region end-to-end', () => {
    const s = speedPair(pairs, 'region_e2e');
    expect(s.ar_tok_s).toBeCloseTo((40 * 1000) / (400 + 70 + 30), 9);
    expect(s.spec_tok_s).toBeCloseTo((40 * 1000) / (100 + 70 + 30), 9);
    expect(s.speedup).toBeCloseTo(500 / 200, 9);
  });
  it('measures byte-identical outputs', () => {
    expect(equalityRate(pairs)).toBe(0.5);
    expect(equalityRate([])).toBeNull();
  });
  it('splits by type and by AR output length', () => {
    const t = byType(pairs);
    expect(t.text.regions).toBe(1);
    expect(t.table.tpf).toBeCloseTo(5, 9);
    expect(t.formula.regions).toBe(0);
    expect(t.formula.speedup).toBeNull();
    const l = byLength(pairs);
    expect(l['<128'].regions).toBe(1);
    expect(l['128-511'].regions).toBe(1);
    expect(l['>=1024'].tpf).toBeNull();
  });
});

describe('page speed', () => {
  it('computes pages per second and reading-order CER per method', () => {
    const p = pageSpeed([
      { page: 'p1', method: 'ar', ms: 2000, tokens: 100, forwards: 100, edits: { edits: 1, refChars: 10 } },
      { page: 'p2', method: 'ar', ms: 2000, tokens: 100, forwards: 100, edits: { edits: 0, refChars: 30 } },
      { page: 'p1', method: 'selfspec', ms: 1000, tokens: 100, forwards: 20, edits: { edits: 1, refChars: 10 } },
      { page: 'p2', method: 'selfspec', ms: 1000, tokens: 100, forwards: 20, edits: { edits: 1, refChars: 30 } },
    ]);
    expect(p.pages).toBe(2);
    expect(p.ar_pages_s).toBeCloseTo(0.5, 9);
    expect(p.spec_pages_s).toBeCloseTo(1, 9);
    expect(p.speedup).toBeCloseTo(2, 9);
    expect(p.ar_page_text_cer).toBeCloseTo(1 / 40, 9);
    expect(p.spec_page_text_cer).toBeCloseTo(2 / 40, 9);
    expect(p.tpf).toBeCloseTo(5, 9);
  });
});
