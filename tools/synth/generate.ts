/** Page generation loop: build (Node) -> layout + measure (Chromium) -> PNG/PDF/JSON. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPage, CLASSES, TEXT_LIKE, type BlockBoost } from './content.ts';
import type { Corpus } from './corpus.ts';
import { FONTS } from './fonts.ts';
import { normalizeText } from './normalize.ts';
import { pngSize } from './png.ts';
import { Renderer, type DegradeParams, type Measured } from './render.ts';
import { Rng } from './rng.ts';
import { pageId, pageSeed, type Split } from './splits.ts';

export type Box = [number, number, number, number];

export interface RegionRecord {
  order: number;
  cls: string;
  box: Box;
  /** text-like: text with $..$ inline math; table: normalized HTML; formula: normalized LaTeX; figure: '' */
  target: string;
  /** text: one entry per rendered line; table: one per row (text = normalized <tr> HTML); formula: one */
  lines: { box: Box; text: string }[];
}

export interface PageRecord {
  schema: 'gravityocr-synth/1';
  id: string;
  seed: number;
  split: Split;
  image: string;
  pdf: string | null;
  width: number;
  height: number;
  dpi: number;
  corpus: string;
  layout: ReturnType<typeof buildPage>['layout'];
  degrade: DegradeParams | null;
  regions: RegionRecord[];
}

export interface GenerateOptions {
  pages: number;
  seed: number;
  split: Split;
  out: string;
  dpi: number;
  pdf: boolean;
  degrade: boolean;
  tabs: number;
  corpus: Corpus;
  /** body-block weight multipliers (pages rich in tables/formulas); default none */
  boost?: BlockBoost;
  log?: (s: string) => void;
}

export interface GenerateSummary {
  pages: number;
  seconds: number;
  pagesPerSecond: number;
  classes: Record<string, number>;
  fonts: Record<string, number>;
  styles: Record<string, number>;
  fontCheck: Record<string, boolean>;
  removedBlocks: number;
}

function degradeParams(seed: number): DegradeParams {
  const r = new Rng(seed, 7);
  return {
    seed: r.u32(),
    angleDeg: r.chance(0.7) ? Math.round(r.range(-1.2, 1.2) * 100) / 100 : 0,
    blur: r.chance(0.6) ? Math.round(r.range(0.2, 0.9) * 100) / 100 : 0,
    noise: r.chance(0.6) ? Math.round(r.range(2, 12) * 10) / 10 : 0,
    jpeg: r.chance(0.6) ? Math.round(r.range(0.35, 0.9) * 100) / 100 : 0,
  };
}

/** page-pixel boxes: outward rounding, clamped to the image */
function toPx(b: number[], s: number, W: number, H: number): Box {
  return [Math.max(0, Math.floor(b[0] * s)), Math.max(0, Math.floor(b[1] * s)), Math.min(W, Math.ceil(b[2] * s)), Math.min(H, Math.ceil(b[3] * s))];
}

function rotateBox(b: Box, deg: number, W: number, H: number): Box {
  if (!deg) return b;
  const t = (deg * Math.PI) / 180, c = Math.cos(t), s = Math.sin(t), cx = W / 2, cy = H / 2;
  const xs: number[] = [], ys: number[] = [];
  for (const [x, y] of [[b[0], b[1]], [b[2], b[1]], [b[0], b[3]], [b[2], b[3]]]) {
    xs.push(cx + (x - cx) * c - (y - cy) * s);
    ys.push(cy + (x - cx) * s + (y - cy) * c);
  }
  return [Math.max(0, Math.floor(Math.min(...xs))), Math.max(0, Math.floor(Math.min(...ys))), Math.min(W, Math.ceil(Math.max(...xs))), Math.min(H, Math.ceil(Math.max(...ys)))];
}

export function makeRecord(seed: number, split: Split, built: ReturnType<typeof buildPage>, m: Measured, scale: number, W: number, H: number, opts: { dpi: number; pdf: boolean; corpus: string; degrade: DegradeParams | null }): PageRecord {
  const id = pageId(seed);
  const regions: RegionRecord[] = [];
  const angle = opts.degrade?.angleDeg ?? 0;
  const px = (b: number[]) => rotateBox(toPx(b, scale, W, H), angle, W, H);
  for (const r of m.regions) {
    const truth = built.truth[r.k];
    if (!truth) throw new Error(`page ${id}: region k=${r.k} has no truth`);
    if (truth.cls !== r.cls) throw new Error(`page ${id}: class mismatch for k=${r.k}`);
    let lines: { box: Box; text: string }[];
    if (r.cls === 'table') {
      if (r.lines.length !== truth.rows!.length) throw new Error(`page ${id}: table rows ${r.lines.length} != ${truth.rows!.length}`);
      lines = r.lines.map((l, i) => ({ box: px(l.box), text: truth.rows![i] }));
    } else if (r.cls === 'formula') {
      lines = [{ box: px(r.box), text: truth.target }];
    } else if (r.cls === 'figure') {
      lines = [];
    } else {
      lines = r.lines.map((l) => ({ box: px(l.box), text: normalizeText(l.text ?? '') }));
      const joined = normalizeText(lines.map((l) => l.text).join(' '));
      if (joined !== truth.target) throw new Error(`page ${id}: line texts do not reassemble the target of k=${r.k}:\n${joined}\n${truth.target}`);
    }
    let box = px(r.box);
    if (TEXT_LIKE.has(r.cls) || r.cls === 'table') {
      for (const l of lines) box = [Math.min(box[0], l.box[0]), Math.min(box[1], l.box[1]), Math.max(box[2], l.box[2]), Math.max(box[3], l.box[3])];
    }
    regions.push({ order: regions.length, cls: r.cls, box, target: truth.target, lines });
  }
  return {
    schema: 'gravityocr-synth/1',
    id,
    seed,
    split,
    image: `${id}.png`,
    pdf: opts.pdf ? `${id}.pdf` : null,
    width: W,
    height: H,
    dpi: opts.dpi,
    corpus: opts.corpus,
    layout: built.layout,
    degrade: opts.degrade,
    regions,
  };
}

export async function generate(o: GenerateOptions): Promise<GenerateSummary> {
  const log = o.log ?? (() => undefined);
  mkdirSync(o.out, { recursive: true });
  const t0 = Date.now();
  const renderer = await Renderer.launch({ dpi: o.dpi, tabs: o.tabs });
  try {
    const check = await renderer.checkFonts(FONTS.map((f) => f.name));
    const available = FONTS.map((f) => f.name).filter((n) => check[n]?.ok);
    const missing = FONTS.map((f) => f.name).filter((n) => !check[n]?.ok);
    if (missing.length) log(`warning: font families not installed (skipped): ${missing.join(', ')}`);
    if (available.length < 12) throw new Error(`only ${available.length} font families available; install the Debian font packages listed in docs/SYNTH.md`);
    // warm up each tab once with a real page (the first capture in a new tab renders text lighter)
    await Promise.all(
      Array.from({ length: renderer.tabCount }, async (_, t) => {
        const b = buildPage(0xfffff0 + t, o.corpus, available);
        await renderer.layout(t, b.html);
        await renderer.screenshot(t, b.layout.widthCss, b.layout.heightCss);
      }),
    );
    const tStart = Date.now();
    const classes: Record<string, number> = Object.fromEntries(CLASSES.map((c) => [c, 0]));
    const fonts: Record<string, number> = {};
    const styles: Record<string, number> = {};
    let removed = 0;
    let next = 0;
    let done = 0;
    const worker = async (t: number) => {
      for (;;) {
        const i = next++;
        if (i >= o.pages) return;
        const seed = pageSeed(o.split, o.seed, i);
        const built = buildPage(seed, o.corpus, available, o.boost);
        const m = await renderer.layout(t, built.html);
        let png = await renderer.screenshot(t, built.layout.widthCss, built.layout.heightCss);
        const pdf = o.pdf ? await renderer.pdf(t, built.layout.widthCss, built.layout.heightCss) : null;
        const dp = o.degrade ? degradeParams(seed) : null;
        if (dp) png = await renderer.degrade(t, png, dp);
        const { width: W, height: H } = pngSize(png);
        const rec = makeRecord(seed, o.split, built, m, renderer.scale, W, H, { dpi: o.dpi, pdf: o.pdf, corpus: o.corpus.hash, degrade: dp });
        const id = rec.id;
        writeFileSync(join(o.out, `${id}.png`), png);
        if (pdf) writeFileSync(join(o.out, `${id}.pdf`), pdf);
        writeFileSync(join(o.out, `${id}.json`), JSON.stringify(rec) + '\n');
        for (const r of rec.regions) classes[r.cls] = (classes[r.cls] ?? 0) + 1;
        for (const f of built.families) fonts[f] = (fonts[f] ?? 0) + 1;
        styles[built.layout.style] = (styles[built.layout.style] ?? 0) + 1;
        removed += m.removed;
        done++;
        if (done % 50 === 0) log(`${done}/${o.pages} pages, ${(done / ((Date.now() - tStart) / 1000)).toFixed(2)} pages/s`);
      }
    };
    await Promise.all(Array.from({ length: renderer.tabCount }, (_, t) => worker(t)));
    const seconds = (Date.now() - tStart) / 1000;
    const summary: GenerateSummary = {
      pages: o.pages,
      seconds: Math.round(seconds * 100) / 100,
      pagesPerSecond: Math.round((o.pages / seconds) * 100) / 100,
      classes,
      fonts: Object.fromEntries(Object.entries(fonts).sort((a, b) => b[1] - a[1])),
      styles,
      fontCheck: Object.fromEntries(Object.entries(check).map(([k, v]) => [k, v.ok])),
      removedBlocks: removed,
    };
    log(`done: ${o.pages} pages in ${seconds.toFixed(1)} s (${summary.pagesPerSecond} pages/s, startup ${((tStart - t0) / 1000).toFixed(1)} s)`);
    return summary;
  } finally {
    await renderer.close();
  }
}
