/**
 * npm run crops -- --in DIR --out DIR2 [--margin 4] [--tasks table,formula]
 * Page records -> recognizer samples (grayscale region crops + normalized targets) and a detector export.
 *   DIR2/index.jsonl    {"id","task","target","image","cls","lines":[[x0,y0,x1,y1],...],"page"}
 *   DIR2/detector.jsonl {"id","image","width","height","boxes":[[...]],"classes":[...],"class_ids":[...],"order":[...]}
 *   DIR2/{text,table,formula}/<page>_<order>.png
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from './args.ts';
import { CLASSES } from './content.ts';
import type { PageRecord } from './generate.ts';
import { normalizeTarget, type Task } from './normalize.ts';
import { crop, decodePng, encodePng, toGray } from './png.ts';
import { listPages } from './overlay.ts';

export const TASK_OF: Record<string, Task> = {
  text: 'text',
  title: 'text',
  section_heading: 'text',
  list_item: 'text',
  caption: 'text',
  footnote: 'text',
  table: 'table',
  formula: 'formula',
};

export interface CropSample {
  id: string;
  task: Task;
  target: string;
  image: string;
  cls: string;
  lines: [number, number, number, number][];
  page: string;
}

export interface CropStats {
  pages: number;
  samples: Record<string, number>;
}

/** tasks: only crop regions of these recognizer tasks (default all three) */
export function exportCrops(inDir: string, outDir: string, margin = 4, log: (s: string) => void = () => undefined, tasks: readonly Task[] = ['text', 'table', 'formula']): CropStats {
  for (const t of ['text', 'table', 'formula']) mkdirSync(join(outDir, t), { recursive: true });
  const index: string[] = [];
  const det: string[] = [];
  const samples: Record<string, number> = { text: 0, table: 0, formula: 0 };
  const files = listPages(inDir);
  files.forEach((f, n) => {
    const rec = JSON.parse(readFileSync(join(inDir, f), 'utf8')) as PageRecord;
    const pagePath = join(inDir, rec.image);
    det.push(
      JSON.stringify({
        id: rec.id,
        image: relative(resolve(outDir), resolve(pagePath)),
        width: rec.width,
        height: rec.height,
        boxes: rec.regions.map((r) => r.box),
        classes: rec.regions.map((r) => r.cls),
        class_ids: rec.regions.map((r) => CLASSES.indexOf(r.cls as (typeof CLASSES)[number])),
        order: rec.regions.map((r) => r.order),
      }),
    );
    const wanted = rec.regions.filter((r) => TASK_OF[r.cls] && tasks.includes(TASK_OF[r.cls]) && r.target.length > 0);
    if (wanted.length === 0) return;
    const gray = toGray(decodePng(readFileSync(pagePath)));
    for (const r of wanted) {
      const task = TASK_OF[r.cls];
      const x0 = r.box[0] - margin, y0 = r.box[1] - margin, x1 = r.box[2] + margin, y1 = r.box[3] + margin;
      const img = crop(gray, x0, y0, x1, y1);
      const id = `${rec.id}_${String(r.order).padStart(2, '0')}`;
      const rel = `${task}/${id}.png`;
      writeFileSync(join(outDir, rel), encodePng(img, 6));
      const s: CropSample = {
        id,
        task,
        target: normalizeTarget(task, r.target),
        image: rel,
        cls: r.cls,
        lines: r.lines.map((l) => [l.box[0] - x0, l.box[1] - y0, l.box[2] - x0, l.box[3] - y0]),
        page: rec.id,
      };
      index.push(JSON.stringify(s));
      samples[task]++;
    }
    if ((n + 1) % 100 === 0) log(`${n + 1}/${files.length} pages`);
  });
  writeFileSync(join(outDir, 'index.jsonl'), index.join('\n') + (index.length ? '\n' : ''));
  writeFileSync(join(outDir, 'detector.jsonl'), det.join('\n') + (det.length ? '\n' : ''));
  return { pages: files.length, samples };
}

async function main() {
  const a = parseArgs(process.argv.slice(2), { in: 'string', out: 'string', margin: 'number', tasks: 'string' });
  if (!a.in || !a.out) throw new Error('usage: npm run crops -- --in DIR --out DIR2 [--margin 4] [--tasks table,formula]');
  const tasks = ((a.tasks as string | undefined) ?? 'text,table,formula').split(',');
  for (const t of tasks) if (!['text', 'table', 'formula'].includes(t)) throw new Error(`--tasks: unknown task "${t}" (text, table, formula)`);
  const t0 = Date.now();
  const stats = exportCrops(a.in as string, a.out as string, (a.margin as number | undefined) ?? 4, (s) => console.error(s), tasks as Task[]);
  console.log(JSON.stringify({ ...stats, seconds: (Date.now() - t0) / 1000 }));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
