import { describe, expect, it } from 'vitest';
import { averagePrecision, mapReport } from './map.ts';
import type { Box } from './types.ts';

const t = (box: Box) => ({ cls: 'text' as const, box });
const d = (box: Box, score: number) => ({ cls: 'text' as const, box, score });

describe('mAP', () => {
  it('perfect detections give AP 1', () => {
    const gts = [[t([0, 0, 10, 10]), t([20, 20, 40, 40])]];
    const dets = [[d([0, 0, 10, 10], 0.9), d([20, 20, 40, 40], 0.8)]];
    expect(averagePrecision(dets, gts, 'text', 0.5).ap).toBeCloseTo(1, 10);
    expect(mapReport(dets, gts, ['text', 'table']).per_class).toEqual({ text: { ap50: 1, ap: 1, n: 2 } });
  });
  it('a duplicate is a false positive; a miss caps recall', () => {
    const gts = [[t([0, 0, 10, 10]), t([20, 20, 40, 40])]];
    // TP, FP (duplicate), and the second box is missed: precision envelope 1 up to recall 0.5
    const dets = [[d([0, 0, 10, 10], 0.9), d([0, 0, 10, 10], 0.8)]];
    expect(averagePrecision(dets, gts, 'text', 0.5).ap).toBeCloseTo(51 / 101, 10);
  });
  it('IoU threshold decides a match', () => {
    const gts = [[t([0, 0, 10, 10])]];
    const dets = [[d([0, 0, 10, 6], 0.9)]]; // IoU 0.6
    expect(averagePrecision(dets, gts, 'text', 0.5).ap).toBeCloseTo(1, 10);
    expect(averagePrecision(dets, gts, 'text', 0.7).ap).toBe(0);
  });
});
