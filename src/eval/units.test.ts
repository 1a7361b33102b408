import { describe, expect, it } from 'vitest';
import { regionTextFromUnits, sortByBox, summarizeUnits, textRegionEdits, type TextUnit, type TruthRegion } from './units.ts';

const truth: TruthRegion[] = [
  { order: 0, cls: 'title', box: [0, 0, 100, 20], target: 'A Title' },
  { order: 1, cls: 'text', box: [0, 30, 100, 80], target: 'left right next line' },
  { order: 2, cls: 'table', box: [0, 90, 100, 120], target: '<table><tr><td>x</td></tr></table>' },
  { order: 3, cls: 'page_number', box: [40, 130, 60, 140], target: '7' },
];

describe('text units → regions', () => {
  it('orders units top to bottom, left to right within a row', () => {
    const boxes: [number, number, number, number][] = [
      [60, 31, 90, 41], // row 1 right
      [0, 50, 50, 60], // row 2
      [0, 30, 50, 40], // row 1 left (1 px higher than the right one)
    ];
    expect(sortByBox(boxes, (b) => b)).toEqual([boxes[2], boxes[0], boxes[1]]);
  });
  it('assigns units by centre and ignores units outside body text', () => {
    const units: TextUnit[] = [
      { text: 'next line', box: [0, 50, 60, 60] },
      { text: 'right', box: [55, 31, 95, 41] },
      { text: 'left', box: [0, 30, 50, 40] },
      { text: 'A Title', box: [10, 2, 90, 18] },
      { text: 'x', box: [10, 95, 20, 105] }, // inside the table: not scored
      { text: '7', box: [45, 131, 55, 139] }, // page number: not scored
      { text: 'noise', box: [200, 200, 210, 210] },
    ];
    const m = regionTextFromUnits(truth, units);
    expect([...m.keys()]).toEqual([0, 1]);
    expect(m.get(1)).toBe('left right next line');
    expect(textRegionEdits(truth, units).map((e) => e.edits)).toEqual([0, 0]);
  });
  it('counts an unread region as all deletions', () => {
    const e = textRegionEdits(truth, [{ text: 'A Title', box: [0, 0, 100, 20] }]);
    expect(e).toEqual([
      { edits: 0, refChars: 7 },
      { edits: 20, refChars: 20 },
    ]);
  });
  it('summarizes pages per second and pooled CER, also over a subset of pages', () => {
    const truths = new Map([
      ['p1', truth],
      ['p2', truth],
    ]);
    const perfect: TextUnit[] = [
      { text: 'A Title', box: [0, 0, 100, 20] },
      { text: 'left right next line', box: [0, 30, 100, 80] },
    ];
    const s = summarizeUnits(
      [
        { page: 'p1', ms: 1000, lines: perfect },
        { page: 'p2', ms: 3000, lines: [perfect[0]] },
      ],
      truths,
      new Set(['p1']),
    );
    expect(s.pages).toBe(2);
    expect(s.pages_s).toBeCloseTo(0.5, 12);
    expect(s.text_regions).toBe(4);
    expect(s.text_cer).toBeCloseTo(20 / 54, 12);
    expect(s.text_cer_same_pages).toBe(0);
  });
});
