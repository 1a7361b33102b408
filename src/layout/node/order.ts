/**
 * Reading order as a filter for other languages (used by training/layout/evaluate.py):
 * stdin  {"pages": [{"width", "height", "regions": [{"cls", "box", "score"?}]}]}
 * stdout {"pages": [[index of the input region at reading position 0, 1, ...], ...]}
 */
import { readFileSync } from 'node:fs';
import { readingOrder } from '../reading-order.ts';
import type { Box, RegionClass } from '../types.ts';

interface InPage {
  width: number;
  height: number;
  regions: { cls: RegionClass; box: Box }[];
}

const input = JSON.parse(readFileSync(0, 'utf8')) as { pages: InPage[] };
const pages = input.pages.map((p) => readingOrder(p.regions.map((r, i) => ({ ...r, i })), { width: p.width, height: p.height }).map((r) => r.i));
process.stdout.write(JSON.stringify({ pages }));
