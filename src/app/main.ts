// App entry: file intake (drop / pick), page thumbnails and view, and the OCR worker via comlink.
import './style.css';
import * as Comlink from 'comlink';
import { openDocument, type OpenDocument } from '../pdf/document';
import { userMessage } from '../pdf/errors';
import type { OcrWorkerApi, PageAnalysis } from '../worker/api';
import { $, el } from './dom';

const worker = Comlink.wrap<OcrWorkerApi>(new Worker(new URL('../worker/ocr.worker.ts', import.meta.url), { type: 'module' }));

interface State {
  doc: OpenDocument | null;
  current: number;
  analyses: Map<number, PageAnalysis>;
  /** Incremented per opened document; stale async work checks it and stops. */
  generation: number;
}
const state: State = { doc: null, current: 0, analyses: new Map(), generation: 0 };

function showError(message: string | null): void {
  const box = $('#error');
  box.textContent = message ?? '';
  box.hidden = !message;
}

async function openFile(file: File): Promise<void> {
  showError(null);
  let doc: OpenDocument;
  try {
    doc = await openDocument({ name: file.name, bytes: await file.arrayBuffer() });
  } catch (e) {
    // The previous document (if any) stays on screen and usable.
    showError(`${file.name}: ${userMessage(e)}`);
    return;
  }
  const gen = ++state.generation;
  await state.doc?.close().catch(() => undefined);
  state.doc = doc;
  state.current = 0;
  state.analyses.clear();
  document.body.dataset.state = 'loaded';
  $('#dropzone').hidden = true;
  for (const id of ['#thumbs', '#pageview', '#side']) $(id).hidden = false;
  $('#doc-title').textContent = `${doc.name} — ${doc.numPages} page${doc.numPages === 1 ? '' : 's'}`;
  const thumbs = $('#thumbs');
  thumbs.replaceChildren();
  for (let i = 0; i < doc.numPages; i++) {
    const b = el('button', { type: 'button', 'data-page': String(i), 'aria-label': `Page ${i + 1}` });
    b.append(el('img', { alt: '' }), el('span', { class: 'num' }, String(i + 1)));
    b.addEventListener('click', () => void showPage(i));
    thumbs.append(b);
  }
  await showPage(0);
  // Thumbnails and analysis one page at a time: the app stays responsive on long documents.
  for (let i = 0; i < doc.numPages && gen === state.generation; i++) {
    try {
      const bmp = await doc.render(i, { longSide: 220 });
      const c = el('canvas') as HTMLCanvasElement;
      c.width = bmp.width;
      c.height = bmp.height;
      c.getContext('2d')!.drawImage(bmp, 0, 0);
      bmp.close();
      const img = thumbs.querySelector(`[data-page="${i}"] img`) as HTMLImageElement | null;
      if (img && gen === state.generation) img.src = c.toDataURL('image/png');
      await analyze(i, gen);
    } catch (e) {
      if (gen === state.generation) showError(userMessage(e));
    }
  }
  if (gen === state.generation) document.body.dataset.state = 'analyzed';
}

async function analyze(i: number, gen: number): Promise<void> {
  const doc = state.doc;
  if (!doc || state.analyses.has(i)) return;
  const bmp = await doc.render(i, { dpi: 150 });
  const res = await worker.analyzePage(i, Comlink.transfer(bmp, [bmp]));
  if (gen !== state.generation) return;
  state.analyses.set(i, res);
  if (i === state.current) renderInfo();
}

async function showPage(i: number): Promise<void> {
  const doc = state.doc;
  if (!doc) return;
  state.current = i;
  for (const b of document.querySelectorAll('#thumbs button')) b.setAttribute('aria-current', String(b.getAttribute('data-page') === String(i)));
  const bmp = await doc.render(i, { longSide: 1400 });
  const canvas = $('#page-canvas') as HTMLCanvasElement;
  canvas.width = bmp.width;
  canvas.height = bmp.height;
  canvas.getContext('2d')!.drawImage(bmp, 0, 0);
  bmp.close();
  renderInfo();
}

function renderInfo(): void {
  const a = state.analyses.get(state.current);
  const dl = $('#page-info');
  const rows: Array<[string, string]> = [['Page', `${state.current + 1} of ${state.doc?.numPages ?? 0}`]];
  if (a) {
    rows.push(['Rendered at', `${a.width} × ${a.height} px (150 dpi)`]);
    rows.push(['Content box', a.contentBox ? `x ${a.contentBox.x0}–${a.contentBox.x1}, y ${a.contentBox.y0}–${a.contentBox.y1}` : 'blank page']);
    rows.push(['Computed on', a.backend]);
    rows.push(['Time', `${a.ms.toFixed(1)} ms`]);
  } else rows.push(['Status', 'analysing…']);
  dl.replaceChildren(...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { 'data-key': k }, v)]));
  drawOverlay(a);
}

function drawOverlay(a: PageAnalysis | undefined): void {
  const page = $('#page-canvas') as HTMLCanvasElement;
  const ov = $('#overlay') as HTMLCanvasElement;
  ov.width = page.width;
  ov.height = page.height;
  const ctx = ov.getContext('2d')!;
  ctx.clearRect(0, 0, ov.width, ov.height);
  if (!a?.contentBox) return;
  const s = page.width / a.width;
  const b = a.contentBox;
  ctx.strokeStyle = 'rgba(59,91,219,0.8)';
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 2;
  ctx.strokeRect(b.x0 * s, b.y0 * s, (b.x1 - b.x0 + 1) * s, (b.y1 - b.y0 + 1) * s);
}

function setupIntake(): void {
  const input = $('#file-input') as HTMLInputElement;
  input.addEventListener('change', () => {
    const f = input.files?.[0];
    if (f) void openFile(f);
    input.value = '';
  });
  window.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
  });
  window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) void openFile(f);
  });
  $('#dropzone').addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter' || (e as KeyboardEvent).key === ' ') input.click();
  });
  window.addEventListener('keydown', (e) => {
    if (!state.doc || (e.target as HTMLElement).closest('input,select,textarea')) return;
    if (e.key === 'ArrowDown' || e.key === 'PageDown') void showPage(Math.min(state.doc.numPages - 1, state.current + 1));
    if (e.key === 'ArrowUp' || e.key === 'PageUp') void showPage(Math.max(0, state.current - 1));
  });
}

function setupTheme(): void {
  const saved = localStorage.getItem('gocr-theme');
  const dark = saved ? saved === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  $('#theme').addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    localStorage.setItem('gocr-theme', next);
  });
}

async function main(): Promise<void> {
  setupTheme();
  setupIntake();
  const info = await worker.init();
  const badge = $('#backend');
  badge.textContent = info.kind === 'webgpu' ? `WebGPU · ${info.adapter}` : `CPU · ${info.adapter}`;
  badge.className = `badge ${info.kind}`;
  document.body.dataset.ready = 'true';
}

void main();
