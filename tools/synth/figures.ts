/** Seeded SVG figures (charts, diagrams, shapes): drawn content the OCR pipeline keeps as images. */
import { Rng } from './rng.ts';

const PALETTES = [
  ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'],
  ['#333333', '#777777', '#aaaaaa', '#555555', '#999999', '#222222'],
  ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948'],
  ['#08519c', '#3182bd', '#6baed6', '#9ecae1', '#c6dbef', '#2171b5'],
];

const f1 = (v: number) => (Math.round(v * 10) / 10).toString();

export function svgFigure(rng: Rng, w: number, h: number, font: string, words: string[]): string {
  const pal = rng.pick(PALETTES);
  const kind = rng.int(0, 4);
  const fs = rng.int(8, 11);
  const parts: string[] = [];
  const text = (x: number, y: number, s: string, anchor = 'middle') =>
    parts.push(`<text x="${f1(x)}" y="${f1(y)}" font-size="${fs}" text-anchor="${anchor}" fill="#222">${s}</text>`);
  const word = () => {
    const s = rng.pick(words);
    return s.length > 8 ? s.slice(0, 8) : s;
  };
  const L = 34, B = h - 22, T = 10, R = w - 10;
  const axes = () => {
    parts.push(`<path d="M${L} ${T}V${B}H${R}" stroke="#222" fill="none" stroke-width="1"/>`);
    const ticks = rng.int(3, 5);
    const top = rng.pick([1, 10, 50, 100, 1000]);
    for (let i = 0; i <= ticks; i++) {
      const y = B - ((B - T) * i) / ticks;
      parts.push(`<path d="M${L - 3} ${f1(y)}H${L}" stroke="#222"/>`);
      if (rng.chance(0.3)) parts.push(`<path d="M${L} ${f1(y)}H${R}" stroke="#ddd" stroke-width="0.5"/>`);
      text(L - 5, y + fs / 3, f1((top * i) / ticks), 'end');
    }
  };
  if (kind === 0) {
    // bar chart
    axes();
    const n = rng.int(3, 8);
    const series = rng.chance(0.3) ? 2 : 1;
    const slot = (R - L - 8) / n;
    for (let i = 0; i < n; i++) {
      for (let s = 0; s < series; s++) {
        const bh = rng.range(0.1, 0.95) * (B - T);
        const bw = (slot * 0.7) / series;
        const x = L + 6 + i * slot + s * bw;
        parts.push(`<rect x="${f1(x)}" y="${f1(B - bh)}" width="${f1(bw)}" height="${f1(bh)}" fill="${pal[s]}"/>`);
      }
      if (slot > fs * 3) text(L + 6 + i * slot + slot * 0.35, B + fs + 3, word());
    }
  } else if (kind === 1) {
    // line chart
    axes();
    const series = rng.int(1, 3);
    const n = rng.int(5, 14);
    for (let s = 0; s < series; s++) {
      let v = rng.range(0.2, 0.8);
      const pts: string[] = [];
      for (let i = 0; i < n; i++) {
        v = Math.min(0.97, Math.max(0.03, v + rng.range(-0.18, 0.18)));
        pts.push(`${f1(L + 4 + ((R - L - 8) * i) / (n - 1))},${f1(B - v * (B - T))}`);
      }
      parts.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${pal[s]}" stroke-width="${rng.pick([1, 1.5, 2])}"${rng.chance(0.3) ? ' stroke-dasharray="4 2"' : ''}/>`);
      if (rng.chance(0.5)) for (const p of pts) {
        const [x, y] = p.split(',');
        parts.push(`<circle cx="${x}" cy="${y}" r="2" fill="${pal[s]}"/>`);
      }
    }
    for (let i = 0; i < 4; i++) text(L + ((R - L) * i) / 3, B + fs + 3, String(i * rng.pick([5, 10, 25])));
  } else if (kind === 2) {
    // pie chart + legend
    const cx = Math.min(w, h) / 2, cy = h / 2, rr = Math.min(w, h) / 2 - 8;
    const n = rng.int(2, 6);
    const vals = Array.from({ length: n }, () => rng.range(0.5, 3));
    const sum = vals.reduce((a, b) => a + b, 0);
    let a0 = -Math.PI / 2;
    vals.forEach((v, i) => {
      const a1 = a0 + (2 * Math.PI * v) / sum;
      const large = a1 - a0 > Math.PI ? 1 : 0;
      parts.push(`<path d="M${f1(cx)} ${f1(cy)}L${f1(cx + rr * Math.cos(a0))} ${f1(cy + rr * Math.sin(a0))}A${f1(rr)} ${f1(rr)} 0 ${large} 1 ${f1(cx + rr * Math.cos(a1))} ${f1(cy + rr * Math.sin(a1))}Z" fill="${pal[i % pal.length]}" stroke="#fff"/>`);
      a0 = a1;
      if (2 * cx + 60 < w) {
        parts.push(`<rect x="${f1(2 * cx + 12)}" y="${f1(14 + i * (fs + 6))}" width="${fs}" height="${fs}" fill="${pal[i % pal.length]}"/>`);
        text(2 * cx + 16 + fs, 14 + i * (fs + 6) + fs - 1, word(), 'start');
      }
    });
  } else if (kind === 3) {
    // box-and-arrow diagram
    const n = rng.int(2, 4);
    const bw = Math.min(110, (w - 20) / n - 18), bh = Math.min(40, h / 3);
    const y = h / 2 - bh / 2;
    parts.push(`<defs><marker id="ah" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto"><path d="M0,0L8,4L0,8z" fill="#222"/></marker></defs>`);
    for (let i = 0; i < n; i++) {
      const x = 10 + i * ((w - 20) / n);
      parts.push(`<rect x="${f1(x)}" y="${f1(y)}" width="${f1(bw)}" height="${f1(bh)}" rx="${rng.pick([0, 4, 8])}" fill="${rng.chance(0.5) ? '#fff' : pal[i % pal.length] + '33'}" stroke="#222"/>`);
      text(x + bw / 2, y + bh / 2 + fs / 3, word());
      if (i < n - 1) parts.push(`<path d="M${f1(x + bw + 2)} ${f1(h / 2)}H${f1(x + (w - 20) / n - 4)}" stroke="#222" marker-end="url(#ah)"/>`);
    }
  } else {
    // scatter plot with shapes
    axes();
    const n = rng.int(15, 60);
    for (let i = 0; i < n; i++) {
      const x = L + 4 + rng.next() * (R - L - 8), y = T + 4 + rng.next() * (B - T - 8);
      const c = pal[rng.int(0, 2)];
      parts.push(rng.chance(0.5) ? `<circle cx="${f1(x)}" cy="${f1(y)}" r="2.5" fill="${c}"/>` : `<rect x="${f1(x - 2)}" y="${f1(y - 2)}" width="4" height="4" fill="${c}"/>`);
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" text-rendering="geometricPrecision" width="${f1(w)}" height="${f1(h)}" viewBox="0 0 ${f1(w)} ${f1(h)}" font-family="${font.replace(/"/g, "'")}">${parts.join('')}</svg>`;
}
