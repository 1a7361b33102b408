// Test data for the benchmark, made with one command: synthetic test-split pages (PNG + JSON ground
// truth + PDF) from the corpus generator, then region crops from the crop exporter. Reuses a folder
// that is already complete. A different folder (e.g. under data/) can be given with --data.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PageTruth } from './core/pages.ts';

export interface CropIndexEntry {
  id: string;
  task: 'text' | 'table' | 'formula';
  target: string;
  image: string;
  cls: string;
  page: string;
}

export interface TestData {
  dir: string;
  pagesDir: string;
  cropsDir: string;
  pages: (PageTruth & { image: string; pdf: string | null; dpi: number })[];
  crops: CropIndexEntry[];
}

function run(cmd: string, args: string[], what: string): void {
  console.error(`[bench] ${what}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}); run it by hand to see why: ${cmd} ${args.join(' ')}`);
}

export function prepareData(o: { dir: string; pages: number; seed: number; corpus?: string }): TestData {
  const pagesDir = join(o.dir, 'pages');
  const cropsDir = join(o.dir, 'crops');
  const havePages = existsSync(join(pagesDir, 'summary.json'));
  if (!havePages) {
    const corpus = o.corpus ?? 'data/corpus';
    if (!existsSync(join(corpus, 'sentences.txt'))) run('/usr/bin/python3', ['tools/corpus/extract.py', '--out', corpus], 'text corpus (npm run corpus)');
    run(process.execPath, ['--import', 'tsx', 'tools/synth/cli.ts', '--pages', String(o.pages), '--seed', String(o.seed), '--out', pagesDir, '--split', 'test', '--pdf', '--corpus', corpus], 'synthetic test pages (npm run synth)');
  }
  if (!existsSync(join(cropsDir, 'index.jsonl'))) run(process.execPath, ['--import', 'tsx', 'tools/synth/crops.ts', '--in', pagesDir, '--out', cropsDir], 'region crops (npm run crops)');
  const pages = readdirSync(pagesDir)
    .filter((f) => /^p\d+\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(pagesDir, f), 'utf8')))
    .map((p) => ({ id: p.id, width: p.width, height: p.height, dpi: p.dpi, image: p.image, pdf: p.pdf, regions: p.regions.map((r: PageTruth['regions'][number]) => ({ order: r.order, cls: r.cls, box: r.box, target: r.target })) }));
  const crops = readFileSync(join(cropsDir, 'index.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CropIndexEntry);
  return { dir: o.dir, pagesDir, cropsDir, pages, crops };
}

/**
 * Regions for the region-level runs. Full: all of them. Quick: per task the `n` shortest targets
 * (at least a few characters), so a short run still sees every task without hitting the token cap.
 */
export function pickRegions(crops: CropIndexEntry[], quick: { text: number; table: number; formula: number } | null): CropIndexEntry[] {
  if (!quick) return crops;
  const out: CropIndexEntry[] = [];
  for (const task of ['text', 'table', 'formula'] as const) {
    const c = crops.filter((x) => x.task === task && x.target.length >= 4).sort((a, b) => a.target.length - b.target.length || a.id.localeCompare(b.id));
    out.push(...c.slice(0, quick[task]));
  }
  return out;
}
