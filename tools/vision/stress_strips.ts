/**
 * Stress test for the strip splitter on Chromium-rendered crops with known line/row counts
 * (paragraphs with varied fonts, sizes, line heights, accents, i-dots, sub/superscripts; tables
 * with full grids, booktabs-like rules or no rules). Prints agreement per kind and the failures.
 *   node --import tsx tools/vision/stress_strips.ts [--n 60] [--seed 1] [--save /tmp/stress]
 */
import { chromium } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { decodePng } from './png.ts';
import { splitStrips } from '../../src/recognizer/strips.ts';

const argv = process.argv.slice(2);
const arg = (k: string, d: string) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : d; };
const N = Number(arg('n', '60'));
let seed = Number(arg('seed', '1')) >>> 0;
const save = arg('save', '');
const rnd = () => { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 2 ** 32; };
const pick = <T,>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];

const FONTS = ['DejaVu Sans', 'DejaVu Serif', 'Latin Modern Roman', 'Arimo', 'Carlito', 'Caladea',
  'EB Garamond', 'Gentium', 'FreeSerif', 'Inconsolata', 'C059'];
const WORDS = ('the of and to in is that for it as was with be by on not he this are or his from at ' +
  'which but have an they you were her she there been one all we their has would when if so no ' +
  'minimum univers summit Émile Åsa naïve café façade über jalapeño 2024 $1,280.50 (see §3) ' +
  'mini sun via main axis union venison swim ocean ring nim').split(' ');

function sentence(n: number): string {
  const ws: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = pick(WORDS);
    const r = rnd();
    if (r < 0.04) w += `<sub>${pick(['i', '2', 'max', 'n+1'])}</sub>`;
    else if (r < 0.08) w += `<sup>${pick(['2', '*', 'th', '†'])}</sup>`;
    ws.push(w);
  }
  return ws.join(' ');
}

function paragraph(): { html: string; lines: number } {
  const lines = 1 + Math.floor(rnd() * 6);
  const xOnly = rnd() < 0.25; // lines of x-height letters with i-dots (separate dot bands)
  const rows: string[] = [];
  for (let i = 0; i < lines; i++) {
    rows.push(xOnly ? Array.from({ length: 4 + Math.floor(rnd() * 5) }, () => pick(['mini', 'sun', 'via', 'main', 'union', 'swim', 'ocean', 'ring', 'nim', 'axis'])).join(' ')
      : sentence(4 + Math.floor(rnd() * 9)));
  }
  const size = 11 + Math.floor(rnd() * 14);
  const lh = (1.0 + rnd() * 0.6).toFixed(2);
  return {
    html: `<div id="t" style="display:inline-block;padding:${2 + Math.floor(rnd() * 10)}px;font:${size}px '${pick(FONTS)}';line-height:${lh};white-space:nowrap">${rows.join('<br>')}</div>`,
    lines,
  };
}

function table(): { html: string; lines: number } {
  const rows = 2 + Math.floor(rnd() * 7);
  const cols = 2 + Math.floor(rnd() * 4);
  const style = pick(['grid', 'booktabs', 'none', 'header']);
  const pad = 2 + Math.floor(rnd() * 7);
  const size = 11 + Math.floor(rnd() * 8);
  const cell = (r: number) => {
    const t = rnd() < 0.4 ? (rnd() * 1000).toFixed(rnd() < 0.5 ? 0 : 2) : sentence(1 + Math.floor(rnd() * 3));
    const b = style === 'grid' ? 'border:1px solid #000;' : '';
    const tag = r === 0 ? 'th' : 'td';
    return `<${tag} style="${b}padding:${pad}px ${pad + 4}px">${t}</${tag}>`;
  };
  const trs: string[] = [];
  for (let r = 0; r < rows; r++) {
    let st = '';
    if (style === 'booktabs') {
      if (r === 0) st = 'border-top:2px solid #000;border-bottom:1px solid #000;';
      if (r === rows - 1) st = 'border-bottom:2px solid #000;';
    } else if (style === 'header' && r === 0) st = 'background:#ddd;border-bottom:1px solid #000;';
    trs.push(`<tr style="${st}">${Array.from({ length: cols }, () => cell(r)).join('')}</tr>`);
  }
  return {
    html: `<table id="t" style="border-collapse:collapse;font:${size}px '${pick(FONTS)}';white-space:nowrap;margin:4px">${trs.join('')}</table>`,
    lines: rows,
  };
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic', '--no-first-run'],
});
const stats: Record<string, { n: number; eq: number; over: number; under: number }> = {};
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  if (save) mkdirSync(save, { recursive: true });
  for (let i = -1; i < N; i++) {
    const kind = i % 2 === 0 ? 'text' : 'table';
    const c = kind === 'text' ? paragraph() : table();
    await page.setContent(`<!doctype html><body style="margin:0;background:#fff;color:#111">${c.html}</body>`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const img = decodePng(await page.locator('#t').screenshot());
    if (i < 0) continue; // warm-up
    const n = splitStrips(img, kind).length;
    const s = (stats[kind] ??= { n: 0, eq: 0, over: 0, under: 0 });
    s.n++;
    if (n === c.lines) s.eq++;
    else {
      if (n > c.lines) s.over++; else s.under++;
      console.log(`#${i} ${kind}: ${n} strips vs ${c.lines} lines  ${c.html.slice(0, 140)}`);
      if (save) writeFileSync(`${save}/${i}-${kind}.png`, await page.locator('#t').screenshot());
    }
  }
} finally {
  await browser.close();
}
for (const [k, s] of Object.entries(stats)) {
  console.log(`${k}: ${s.eq}/${s.n} equal (${((100 * s.eq) / s.n).toFixed(1)} %), more ${s.over}, fewer ${s.under}`);
}
