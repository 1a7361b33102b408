// App entry: file intake, page thumbnails/view, the OCR worker (comlink), live progress, cancel,
// settings, and the Markdown / region panels.
import './style.css';
import * as Comlink from 'comlink';
import { openDocument, type OpenDocument } from '../pdf/document';
import { DocError, userMessage } from '../pdf/errors';
import type { EngineInfo, OcrWorkerApi, PageAnalysis } from '../worker/api';
import type { DecodeSettings, PageEvent, PageResult, RegionResult } from '../engine/types';
import { exportBundle } from '../markdown/export';
import { toRGBA, type Image } from '../recognizer/image';
import { DEFAULT_SETTINGS, OCR_DPI } from '../engine/types';
import { assembleDocument } from '../markdown/assemble';
import { $, el } from './dom';
import { renderMarkdown } from './preview';
import { drawRegions } from './regions-view';
import { renderRegionDetail, pageStatsHtml } from './trace-view';

const workerObj = new Worker(new URL('../worker/ocr.worker.ts', import.meta.url), { type: 'module' });
const worker = Comlink.wrap<OcrWorkerApi>(workerObj);

interface State {
  doc: OpenDocument | null;
  current: number;
  analyses: Map<number, PageAnalysis & { backend: string }>;
  /** The resolution each analysed page was drawn at (OCR_DPI unless the page is huge). */
  dpi: Map<number, number>;
  results: Map<number, PageResult>;
  /** Live regions (layout + partial text) of pages being read. */
  live: Map<number, RegionResult[]>;
  selected: number | null;
  generation: number;
  /** Bumped by every read; events of an earlier read are dropped. */
  read: number;
  running: boolean;
  engine: EngineInfo | null;
  /** Figure crops of the open document as PNG: object URL for the preview, bytes for the export. */
  figures: Map<string, { url: string; bytes: Uint8Array }>;
  /** The running read's cancel flag, shared with the worker (null without cross-origin isolation). */
  cancelFlag: Int32Array | null;
  /** Figure encodings still running (Export waits for them). */
  figureJobs: Set<Promise<void>>;
}
const state: State = { doc: null, current: 0, analyses: new Map(), dpi: new Map(), results: new Map(), live: new Map(), selected: null, generation: 0, read: 0, running: false, engine: null, figures: new Map(), figureJobs: new Set(), cancelFlag: null };

function showError(message: string | null): void {
  const box = $('#error');
  box.textContent = message ?? '';
  box.hidden = !message;
}

function setProgress(text: string, fraction: number | null): void {
  $('#progress-text').textContent = text;
  const fill = $('#progress-fill');
  fill.style.width = fraction === null ? '0%' : `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
  $('#progress').classList.toggle('indeterminate', fraction === null);
}

function settings(): DecodeSettings {
  const method = ($('#method') as HTMLSelectElement).value as DecodeSettings['method'];
  const block = Math.round(Number(($('#block') as HTMLInputElement).value));
  const threshold = Number(($('#threshold') as HTMLInputElement).value);
  const maxTokens = Math.round(Number(($('#max-tokens') as HTMLInputElement).value));
  return {
    ...DEFAULT_SETTINGS,
    maxNewTokens: Number.isFinite(maxTokens) ? Math.min(2048, Math.max(8, maxTokens)) : DEFAULT_SETTINGS.maxNewTokens,
    method,
    blockSize: Number.isFinite(block) ? Math.min(64, Math.max(1, block)) : DEFAULT_SETTINGS.blockSize,
    threshold: Number.isFinite(threshold) ? Math.min(1, Math.max(0.05, threshold)) : DEFAULT_SETTINGS.threshold,
  };
}

async function openFile(file: File): Promise<void> {
  showError(null);
  let doc: OpenDocument;
  try {
    doc = await openDocument({ name: file.name, bytes: await file.arrayBuffer() });
  } catch (e) {
    showError(`${file.name}: ${userMessage(e)}`);
    return;
  }
  if (state.running) await cancel();
  const gen = ++state.generation;
  await state.doc?.close().catch(() => undefined);
  Object.assign(state, { doc, current: 0, selected: null });
  state.analyses.clear();
  state.dpi.clear();
  state.results.clear();
  state.live.clear();
  clearFigures();
  document.body.dataset.state = 'loaded';
  // a read of the previous document may have been stopped above: its status line goes with it
  delete document.body.dataset.ocr;
  if (state.engine) setProgress(`Opened ${doc.name}.`, null);
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
  updateMarkdown();
  updateButtons();
  await showPage(0);
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
      const { page, dpi } = await renderForOcr(doc, i);
      const a = await worker.analyzePage(i, Comlink.transfer(page, [page]));
      if (gen !== state.generation) return;
      state.dpi.set(i, dpi);
      state.analyses.set(i, a);
      if (i === state.current) renderPageInfo();
    } catch (e) {
      if (gen === state.generation) showError(userMessage(e));
    }
  }
  if (gen === state.generation) {
    document.body.dataset.state = 'analyzed';
    if (state.engine?.model) void readDocument();
  }
}

/** Page `i` as the engine reads it: at OCR_DPI, lower for posters and other huge pages (src/pdf/fit.ts). */
async function renderForOcr(doc: OpenDocument, i: number): Promise<{ page: ImageBitmap; dpi: number }> {
  const dpi = await doc.ocrDpi(i, OCR_DPI);
  return { page: await doc.render(i, { dpi }), dpi };
}

/** The dpi the shown page was drawn at (null for an image, read at its own pixels). */
function currentDpi(): number | null {
  return state.doc?.kind === 'image' ? null : (state.dpi.get(state.current) ?? OCR_DPI);
}

const isCancel = (e: unknown): boolean => (e as Error)?.name === 'CancelledError' || /cancelled/.test(String((e as Error)?.message));

async function readDocument(): Promise<void> {
  const doc = state.doc;
  if (!doc || state.running || !state.engine?.model) return;
  const gen = state.generation;
  const read = ++state.read;
  const s = settings();
  // Pages an earlier read finished are set aside while this read runs; any page this read does not
  // finish (cancelled, or failed) gets its earlier result back at the end instead of losing it.
  const earlier = new Map(state.results);
  state.running = true;
  state.cancelFlag = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(4)) : null;
  const cancelFlag = state.cancelFlag ?? undefined;
  state.results.clear();
  state.live.clear();
  document.body.dataset.ocr = 'running';
  updateButtons();
  showError(null);
  const failed: Array<{ page: number; message: string }> = [];
  // pages this read has finished or given up on: their late events are dropped
  const settled = new Set<number>();
  const current = () => gen === state.generation && read === state.read;
  try {
    for (let i = 0; i < doc.numPages; i++) {
      if (!current() || !state.running) break;
      setProgress(`Reading page ${i + 1} of ${doc.numPages}…`, i / doc.numPages);
      try {
        const { page, dpi } = await renderForOcr(doc, i);
        // a cancel pressed while the page was being drawn: do not start reading it
        if (!current() || !state.running) {
          page.close();
          break;
        }
        const onEvent = Comlink.proxy((e: PageEvent) => {
          if (!settled.has(e.pageIndex)) onPageEvent(e, gen, read, i, doc.numPages);
        });
        // PDFs: regions a task encoder reads at s x the resolution are re-rendered at s x the page's dpi
        const renderRect = doc.renderRect?.bind(doc);
        const detail = renderRect
          ? Comlink.proxy({
              async render(box: [number, number, number, number], scale: number) {
                const bmp = await renderRect(i, dpi * scale, [box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale]);
                return Comlink.transfer(bmp, [bmp]);
              },
            })
          : undefined;
        const res = await worker.recognizePage(i, Comlink.transfer(page, [page]), s, onEvent, detail, cancelFlag);
        if (!current()) return;
        settled.add(i);
        state.dpi.set(i, dpi);
        state.results.set(i, res);
        state.live.delete(i);
        const job = keepFigures(res, gen).finally(() => state.figureJobs.delete(job));
        state.figureJobs.add(job);
        if (i === state.current) renderPageInfo();
        updateMarkdown();
      } catch (e) {
        if (isCancel(e) || !current()) throw e;
        settled.add(i);
        // one bad page (a render or recognition failure) does not stop the others
        failed.push({ page: i + 1, message: e instanceof DocError ? e.message : ((e as Error)?.message ?? String(e)) });
        state.live.delete(i);
        if (i === state.current) renderPageInfo();
        showError(failedText(failed));
      }
    }
    if (current() && state.running) {
      const ok = doc.numPages - failed.length;
      const n = `${doc.numPages} page${doc.numPages === 1 ? '' : 's'}`;
      setProgress(failed.length ? `Done: ${ok} of ${n} read (${labelOf(s.method)}).` : `Done: ${n} read (${labelOf(s.method)}).`, 1);
      document.body.dataset.ocr = ok > 0 ? 'done' : 'error';
    } else if (current()) {
      // cancelled between two pages: the worker had nothing left to stop
      setProgress('Cancelled.', null);
      document.body.dataset.ocr = 'cancelled';
    }
  } catch (e) {
    if (current()) {
      if (isCancel(e)) {
        setProgress('Cancelled.', null);
        document.body.dataset.ocr = 'cancelled';
      } else {
        showError(`Recognition failed: ${(e as Error)?.message ?? e}`);
        document.body.dataset.ocr = 'error';
      }
    }
  } finally {
    if (current()) {
      let kept = 0;
      for (const [k, v] of earlier) if (!state.results.has(k)) (state.results.set(k, v), kept++);
      if (kept) {
        updateMarkdown();
        renderPageInfo();
        const done = document.body.dataset.ocr === 'done';
        setProgress(`${$('#progress-text').textContent} ${kept} page${kept === 1 ? '' : 's'} keep${kept === 1 ? 's' : ''} the earlier reading.`, done ? 1 : null);
      }
    }
    // a later read (or none) owns the running flag once this one is superseded
    if (read === state.read) {
      state.running = false;
      updateButtons();
    }
  }
}

function failedText(failed: ReadonlyArray<{ page: number; message: string }>): string {
  const pages = failed.map((f) => f.page).join(', ');
  const n = state.doc?.numPages ?? 0;
  const rest = failed.length < n ? '; the other pages are read' : '';
  return `Page${failed.length === 1 ? '' : 's'} ${pages} could not be read (${failed[failed.length - 1].message})${rest}.`;
}

async function pngOf(img: Image): Promise<Blob> {
  const rgba = toRGBA(img);
  const c = new OffscreenCanvas(rgba.width, rgba.height);
  c.getContext('2d')!.putImageData(new ImageData(rgba.data as Uint8ClampedArray<ArrayBuffer>, rgba.width, rgba.height), 0, 0);
  return c.convertToBlob({ type: 'image/png' });
}

/** Encodes a read page's figure crops for the preview and the export. */
async function keepFigures(res: PageResult, gen: number): Promise<void> {
  let added = 0;
  for (const f of res.figures) {
    try {
      const blob = await pngOf(f.image);
      const bytes = new Uint8Array(await blob.arrayBuffer());
      if (gen !== state.generation) return;
      const old = state.figures.get(f.name);
      if (old) URL.revokeObjectURL(old.url);
      state.figures.set(f.name, { url: URL.createObjectURL(blob), bytes });
      added++;
    } catch {
      // left out: the preview shows the figure's alt text and the export names it as missing
    }
  }
  if (added && gen === state.generation) updateMarkdown();
}

function clearFigures(): void {
  for (const f of state.figures.values()) URL.revokeObjectURL(f.url);
  state.figures.clear();
}

function onPageEvent(e: PageEvent, gen: number, read: number, pageIndex: number, numPages: number): void {
  // Events come over the callback's own MessagePort, so the last ones can arrive after
  // recognizePage has returned (and after the next read began): a finished page keeps its result
  // and the progress line keeps "Done".
  if (gen !== state.generation || read !== state.read || state.results.has(e.pageIndex)) return;
  if (e.type === 'layout') {
    state.live.set(e.pageIndex, e.regions.map((r) => ({ ...r, text: '', tokens: [], rounds: [], forwards: { ar: 0, draft: 0, verify: 0, cacheWrite: 0 }, tpf: 0, strips: 0, stop: 'pending' })));
  } else if (e.type === 'round') {
    const r = state.live.get(e.pageIndex)?.find((x) => x.id === e.regionId);
    if (r) {
      r.text = e.text;
      r.rounds.push(e.round);
    }
    const regions = state.live.get(e.pageIndex) ?? [];
    const readable = regions.filter((x) => x.task);
    const tokens = readable.reduce((s, x) => s + x.text.length, 0);
    setProgress(`Reading page ${pageIndex + 1} of ${numPages}: ${readable.length} regions, ${tokens} characters so far…`, (pageIndex + 0.5) / numPages);
  } else if (e.type === 'region-done') {
    const list = state.live.get(e.pageIndex);
    if (list) list[list.findIndex((x) => x.id === e.region.id)] = e.region;
  }
  if (e.pageIndex === state.current) renderPageInfo();
}

async function cancel(): Promise<void> {
  if (!state.running) return;
  state.running = false;
  if (state.cancelFlag) Atomics.store(state.cancelFlag, 0, 1);
  await worker.cancel();
}

function labelOf(m: DecodeSettings['method']): string {
  return m === 'selfspec' ? 'self-speculative' : m === 'ar' ? 'autoregressive' : 'direct diffusion';
}

function updateButtons(): void {
  const run = $('#run') as HTMLButtonElement;
  run.disabled = !state.doc || state.running || !state.engine?.model;
  $('#cancel').hidden = !state.running;
  const md = documentMarkdown();
  ($('#copy-md') as HTMLButtonElement).disabled = !md;
  ($('#export-md') as HTMLButtonElement).disabled = !md;
}

function documentMarkdown(): string {
  if (!state.doc || state.results.size === 0) return '';
  const pages: string[] = [];
  for (let i = 0; i < state.doc.numPages; i++) pages.push(state.results.get(i)?.markdown ?? '');
  return assembleDocument(pages);
}

function updateMarkdown(): void {
  const md = documentMarkdown();
  $('#md-text').textContent = md;
  renderMarkdown(md, $('#md-preview'), (src) => state.figures.get(src)?.url);
  updateButtons();
}

async function showPage(i: number): Promise<void> {
  const doc = state.doc;
  if (!doc) return;
  state.current = i;
  state.selected = null;
  for (const b of document.querySelectorAll('#thumbs button')) b.setAttribute('aria-current', String(b.getAttribute('data-page') === String(i)));
  const canvas = $('#page-canvas') as HTMLCanvasElement;
  try {
    const bmp = await doc.render(i, { longSide: 1400 });
    if (doc !== state.doc || i !== state.current) return bmp.close();
    canvas.width = bmp.width;
    canvas.height = bmp.height;
    canvas.getContext('2d')!.drawImage(bmp, 0, 0);
    bmp.close();
  } catch (e) {
    // the page view stays blank; reading and the other pages are unaffected
    if (doc !== state.doc || i !== state.current) return;
    const ctx = canvas.getContext('2d')!;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    showError(`Page ${i + 1} cannot be shown: ${userMessage(e)}`);
  }
  renderPageInfo();
}

function currentRegions(): { regions: RegionResult[]; width: number } | null {
  const res = state.results.get(state.current);
  if (res) return { regions: res.regions, width: res.width };
  const live = state.live.get(state.current);
  const a = state.analyses.get(state.current);
  if (live && a) return { regions: live, width: a.width };
  return null;
}

function renderPageInfo(): void {
  const a = state.analyses.get(state.current);
  const res = state.results.get(state.current);
  const stats = $('#page-stats');
  stats.innerHTML = '';
  stats.append(pageStatsHtml(state.current, state.doc?.numPages ?? 0, a, res, currentDpi()));
  const cur = currentRegions();
  drawRegions($('#overlay'), cur?.regions ?? [], cur ? ($('#page-canvas') as HTMLCanvasElement).clientWidth / cur.width : 1, state.selected, (id) => selectRegion(id));
  renderSelected();
}

function selectRegion(id: number): void {
  state.selected = id;
  selectTab('region');
  renderPageInfo();
  // the overlay was redrawn: keep keyboard focus on the region just chosen
  $('#overlay').querySelector<HTMLElement>(`.region[data-id="${id}"]`)?.focus({ preventScroll: true });
}

function renderSelected(): void {
  const cur = currentRegions();
  const r = cur?.regions.find((x) => x.id === state.selected);
  $('#region-empty').hidden = !!r;
  const detail = $('#region-detail');
  detail.replaceChildren();
  if (r) renderRegionDetail(detail, r, state.results.get(state.current)?.method ?? settings().method, currentDpi());
}

function selectTab(which: 'md' | 'region'): void {
  $('#tab-md').setAttribute('aria-selected', String(which === 'md'));
  $('#tab-region').setAttribute('aria-selected', String(which === 'region'));
  $('#panel-md').hidden = which !== 'md';
  $('#panel-region').hidden = which !== 'region';
}

/** Export: the Markdown, or a .zip of it and the figure crops it links. */
async function exportDocument(): Promise<void> {
  await Promise.all([...state.figureJobs]);
  const pngs = new Map([...state.figures].map(([name, f]) => [name, f.bytes]));
  const file = exportBundle((state.doc?.name ?? 'document').replace(/\.[^.]+$/, ''), documentMarkdown(), pngs);
  // only our own figure links can be missing crops; other image links are the model's text
  const ours = new Set([...state.results.values()].flatMap((r) => r.figures.map((f) => f.name)));
  const lost = file.missing.filter((n) => ours.has(n));
  if (lost.length) showError(`Exported without ${lost.join(', ')}: the figure crop could not be made.`);
  download(file.filename, new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.mime }));
}

function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name }) as HTMLAnchorElement;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function setupControls(): void {
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
    if (e.key === 'Escape') return void cancel(); // from anywhere, a settings field included
    if (!state.doc || (e.target as HTMLElement).closest('input,select,textarea')) return;
    if (e.key === 'ArrowDown' || e.key === 'PageDown') void showPage(Math.min(state.doc.numPages - 1, state.current + 1));
    if (e.key === 'ArrowUp' || e.key === 'PageUp') void showPage(Math.max(0, state.current - 1));
  });
  $('#method').addEventListener('change', () => {
    $('#threshold-ctl').hidden = ($('#method') as HTMLSelectElement).value !== 'diffusion';
  });
  $('#run').addEventListener('click', () => void readDocument());
  $('#cancel').addEventListener('click', () => void cancel());
  $('#tab-md').addEventListener('click', () => selectTab('md'));
  $('#tab-region').addEventListener('click', () => selectTab('region'));
  $('#md-source').addEventListener('change', () => {
    const src = ($('#md-source') as HTMLInputElement).checked;
    $('#md-text').hidden = !src;
    $('#md-preview').hidden = src;
  });
  $('#copy-md').addEventListener('click', () => {
    void navigator.clipboard.writeText(documentMarkdown()).then(
      () => setProgress('Markdown copied to the clipboard.', null),
      () => showError('The browser refused clipboard access; use Export instead.'),
    );
  });
  $('#export-md').addEventListener('click', () => void exportDocument());
  window.addEventListener('resize', () => renderPageInfo());
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
  // Production builds work offline after the first visit (public/sw.js); dev server is left alone.
  if (import.meta.env.PROD && 'serviceWorker' in navigator) void navigator.serviceWorker.register('./sw.js').catch(() => undefined);
  setupTheme();
  setupControls();
  setProgress('Loading models…', 0);
  const info = await worker.init(
    Comlink.proxy((p: { file: string; loaded: number; total: number }) => {
      setProgress(`Loading ${p.file}: ${(p.loaded / 1048576).toFixed(1)} / ${(p.total / 1048576).toFixed(1)} MB`, p.total ? p.loaded / p.total : null);
    }),
  );
  state.engine = info;
  const badge = $('#backend');
  badge.textContent = info.kind === 'webgpu' ? `WebGPU · ${info.adapter}` : `CPU · ${info.adapter}`;
  badge.className = `badge ${info.kind}`;
  if (info.error) {
    showError(`The OCR models could not be loaded (${info.error}). Documents still open and render.`);
    setProgress('Models unavailable.', 0);
  } else setProgress(`Ready: ${info.model} + ${info.layout}, decoder on ${info.kind === 'webgpu' ? 'WebGPU' : 'CPU'}.`, 1);
  document.body.dataset.ready = 'true';
  updateButtons();
  // a document dropped while the models loaded, already analysed: read it now
  if (state.engine.model && state.doc && document.body.dataset.state === 'analyzed') void readDocument();
}

// A worker that fails to load (or dies) would leave every call pending: say so instead of waiting.
workerObj.addEventListener('error', (e) => {
  e.preventDefault();
  showError(`The OCR worker stopped (${e.message || 'it could not be loaded'}). Reload the page to try again; documents still open and render.`);
  setProgress('OCR unavailable.', 0);
  if (state.running) document.body.dataset.ocr = 'error';
  state.running = false;
  state.engine = null;
  updateButtons();
});

void main();
