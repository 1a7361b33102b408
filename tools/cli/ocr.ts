// Headless OCR: the app's engine in Node.
//   npm run ocr -- <file.pdf|png|jpg> [-o out.md] [--mode spec|ar|diffusion] [--block 32]
//                  [--threshold 0.9] [--trace trace.json] [--backend webgpu|cpu]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createCanvas, ImageData } from '@napi-rs/canvas';
import { DEFAULT_SETTINGS, OCR_DPI, type DecodeSettings, type PageResult } from '../../src/engine/types';
import { assembleDocument } from '../../src/markdown/assemble';
import { linkedImages, renameImageLinks } from '../../src/markdown/export';
import { toRGBA, type Image } from '../../src/recognizer/image';
import { DocError, sniffKind, userMessage } from '../../src/pdf/errors';
import { createNodeEngine } from './node-engine';
import { pageImages } from './pages';

const USAGE = 'usage: npm run ocr -- <file.pdf|image> [-o out.md] [--mode spec|ar|diffusion] [--block 32] [--threshold 0.9] [--max-tokens 768] [--trace trace.json] [--backend webgpu|cpu]';

function parse(argv: string[]) {
  const o: { file?: string; out?: string; mode: string; block: number; threshold: number; trace?: string; backend?: 'webgpu' | 'cpu'; maxTokens: number } = { mode: 'spec', block: 32, threshold: 0.9, maxTokens: DEFAULT_SETTINGS.maxNewTokens };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return x;
    };
    if (a === '-o' || a === '--out') o.out = v();
    else if (a === '--mode') o.mode = v();
    else if (a === '--block') o.block = Number(v());
    else if (a === '--threshold') o.threshold = Number(v());
    else if (a === '--trace') o.trace = v();
    else if (a === '--max-tokens') o.maxTokens = Number(v());
    else if (a === '--backend') o.backend = v() as 'webgpu' | 'cpu';
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else o.file = a;
  }
  if (!o.file) throw new Error(USAGE);
  if (!['spec', 'ar', 'diffusion'].includes(o.mode)) throw new Error(`--mode must be spec, ar or diffusion\n${USAGE}`);
  if (!(o.block >= 1 && o.block <= 64)) throw new Error('--block must be in 1..64');
  if (!(o.threshold > 0 && o.threshold <= 1)) throw new Error('--threshold must be in (0, 1]');
  if (!(Number.isInteger(o.maxTokens) && o.maxTokens >= 1)) throw new Error('--max-tokens must be a positive integer');
  return o;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const bytes = new Uint8Array(readFileSync(o.file!));
  if (sniffKind(bytes) === 'unknown') throw new DocError('not-pdf');
  const engine = await createNodeEngine({ backend: o.backend });
  const settings: DecodeSettings = { ...DEFAULT_SETTINGS, method: o.mode === 'spec' ? 'selfspec' : (o.mode as 'ar' | 'diffusion'), blockSize: o.block, threshold: o.threshold, maxNewTokens: o.maxTokens };
  console.error(`engine: ${engine.index.recognizer} + ${engine.layout.name}, decoder on ${engine.backend}, ${settings.method} B=${settings.blockSize}`);
  const pages: PageResult[] = [];
  let i = 0;
  for await (const { image, detail, dpi, shrink } of pageImages(bytes)) {
    const res = await engine.recognizePage(image, i, settings, { detail });
    const s = res.stats;
    const lowered =
      dpi !== null && dpi < OCR_DPI
        ? `, drawn at ${dpi.toFixed(1)} dpi (a page this large at ${OCR_DPI} dpi passes the pixel cap)`
        : shrink < 1
          ? `, image shrunk to ${(shrink * 100).toFixed(1)} % (${image.width} × ${image.height} px) to fit the pixel cap`
          : '';
    console.error(`page ${i + 1}: ${s.regions} regions, ${s.tokens} tokens, TPF ${s.tpf.toFixed(2)}, ${s.totalMs.toFixed(0)} ms${lowered}`);
    pages.push(res);
    i++;
  }
  let md = assembleDocument(pages.map((p) => p.markdown));
  const figures = pages.flatMap((p) => p.figures);
  /** engine figure name → the file it was written as */
  const fileOf = new Map<string, string>();
  if (o.out) {
    // the figure crops the Markdown links go beside it, named after it (out/a.md → out/a-page1-figure2.png),
    // so documents written into one folder do not overwrite each other's figures
    // (the stem is reduced to characters a bare Markdown link target may hold: no spaces or parentheses)
    const stem = basename(o.out).replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'document';
    for (const f of figures) fileOf.set(f.name, `${stem}-${f.name}`);
    md = renameImageLinks(md, (n) => fileOf.get(n) ?? n);
    writeFileSync(o.out, md);
    const linked = new Set(linkedImages(md));
    for (const f of figures) if (linked.has(fileOf.get(f.name)!)) writeFileSync(join(dirname(o.out), fileOf.get(f.name)!), png(f.image));
    if (figures.length) console.error(`${figures.length} figure crop${figures.length === 1 ? '' : 's'} written beside ${o.out}`);
  } else {
    process.stdout.write(md);
    if (figures.length) console.error(`${figures.length} figure link${figures.length === 1 ? '' : 's'} in the Markdown: give -o to write the crops too`);
  }
  // the trace keeps each figure's name (the file written, with -o) and size, not its pixels
  const tracePages = pages.map((p) => ({
    ...p,
    markdown: renameImageLinks(p.markdown, (n) => fileOf.get(n) ?? n),
    figures: p.figures.map((f) => ({ name: fileOf.get(f.name) ?? f.name, regionId: f.regionId, width: f.image.width, height: f.image.height })),
  }));
  if (o.trace) writeFileSync(o.trace, JSON.stringify({ file: o.file, settings, backend: engine.backend, model: engine.index, pages: tracePages }, null, 1));
  engine.dispose();
}

function png(img: Image): Buffer {
  const rgba = toRGBA(img);
  const c = createCanvas(rgba.width, rgba.height);
  c.getContext('2d').putImageData(new ImageData(rgba.data as Uint8ClampedArray, rgba.width, rgba.height), 0, 0);
  return c.toBuffer('image/png');
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`ocr: ${userMessage(e).replace(/^Something went wrong: /, '')}`);
    process.exit(1);
  },
);
