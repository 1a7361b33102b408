// Copies runtime assets that live in node_modules (pdf.js fonts/cmaps/wasm,
// onnxruntime-web wasm) into public/vendor so the app serves them from its own
// origin: no CDN, works offline. Run automatically before start/build.
import { cpSync, mkdirSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const nm = join(root, 'node_modules');
const out = join(root, 'public', 'vendor');
mkdirSync(out, { recursive: true });

for (const dir of ['standard_fonts', 'cmaps', 'wasm']) {
  cpSync(join(nm, 'pdfjs-dist', dir), join(out, 'pdfjs', dir), { recursive: true });
}
const ortDist = join(nm, 'onnxruntime-web', 'dist');
mkdirSync(join(out, 'ort'), { recursive: true });
for (const f of readdirSync(ortDist)) {
  if (/^ort-wasm-simd-threaded\.(jsep\.)?(mjs|wasm)$/.test(f)) cpSync(join(ortDist, f), join(out, 'ort', f));
}
if (!existsSync(join(out, 'ort', 'ort-wasm-simd-threaded.jsep.wasm'))) {
  throw new Error('onnxruntime-web wasm files not found: run npm ci');
}
console.log('copied vendor assets to public/vendor');
