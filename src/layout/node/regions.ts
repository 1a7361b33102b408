/**
 * The regions the shipped pipeline finds on synthetic pages (before the second look, reclass.ts),
 * each labelled with the class of the ground-truth region it matches (IoU ≥ 0.5, any class), one
 * JSON line per page. training/layout/reclass.py measures itself on these boxes (`--eval_regions`),
 * the ones it will be shown (trimmed, split, a marker cut off), not ideal ones; a file of them is
 * also a `--train` root.
 *
 *   npm run layout:regions -- --data data/synth/train --out data/reclass/train-regions.jsonl [--model public/models/layout]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Box, RegionClass } from '../types.ts';
import { matchToTruth } from './eval.ts';
import { loadDetector, parseFlags, readPngRgb } from './io.ts';

async function main() {
  const { flags } = parseFlags(process.argv.slice(2));
  if (!flags.data || !flags.out) throw new Error('usage: npm run layout:regions -- --data DIR --out FILE.jsonl [--model DIR] [--limit N]');
  const det = await loadDetector(flags.model ?? 'public/models/layout', 'node', Number(flags.threads ?? 1));
  let files = readdirSync(flags.data).filter((f) => /^p\d+\.json$/.test(f)).sort();
  if (flags.limit) files = files.slice(0, Number(flags.limit));
  const lines: string[] = [];
  let n = 0;
  let matched = 0;
  for (const f of files) {
    const page = JSON.parse(readFileSync(join(flags.data, f), 'utf8'));
    const img = readPngRgb(join(flags.data, page.image));
    const gt: { cls: RegionClass; box: Box; order: number }[] = page.regions;
    const regions = await det.detect(img, { reclass: false });
    const m = matchToTruth(regions, gt, 0.5, true);
    const out = regions.flatMap((r, i) => (m[i] >= 0 ? [{ box: r.box.map((v) => Math.round(v * 100) / 100), cls: gt[m[i]].cls, detected: r.cls }] : []));
    n += regions.length;
    matched += out.length;
    lines.push(JSON.stringify({ image: join(flags.data, page.image), width: img.width, height: img.height, regions: out }));
  }
  writeFileSync(flags.out, lines.join('\n') + '\n');
  console.log(`${files.length} pages, ${n} regions, ${matched} matched to the truth → ${flags.out}`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
