import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inkLines, strokeWidth, median } from '../src/layout/context.ts';
import { readPngRgb } from '../src/layout/node/io.ts';
const dir = process.argv[2]; const lim = Number(process.argv[3] ?? 200);
const files = readdirSync(dir).filter((f) => /^p\d+\.json$/.test(f)).sort().slice(0, lim);
const rows: string[] = [];
for (const f of files) {
  const page = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  const img = readPngRgb(join(dir, page.image));
  const regs = page.regions;
  const body = regs.filter((r: any) => r.cls === 'text').map((r: any) => ({ r, l: inkLines(img, r.box) })).filter((x: any) => x.l.length >= 3);
  if (!body.length) continue;
  const ref = median(body.map((x: any) => strokeWidth(img, x.r.box, x.l)));
  const bodyLh = median(body.flatMap((x: any) => x.l.map((l: any) => l.y1 - l.y0)));
  for (const r of regs) {
    if (!['section_heading', 'list_item', 'text', 'title'].includes(r.cls)) continue;
    const l = inkLines(img, r.box);
    if (l.length !== 1) continue;
    const sw = strokeWidth(img, r.box, l) / ref;
    const lh = (l[0].y1 - l[0].y0) / bodyLh;
    const num = /^\d+(\.\d+)*\.?\s/.test(r.target ?? '') ? 'num' : '-';
    rows.push(`${r.cls}\t${sw.toFixed(3)}\t${lh.toFixed(3)}\t${num}`);
  }
}
console.log(rows.join('\n'));
