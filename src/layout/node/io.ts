/** Node-only helpers for the layout CLIs: PNG I/O (pngjs), argument parsing, model loading. */
import { readFileSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import type { Image } from '../../recognizer/image.ts';
import type { OrtModuleLike } from '../../recognizer/vision.ts';
import { LayoutDetector } from '../detector.ts';

/** PNG file → RGB image (alpha composited over white). */
export function readPngRgb(path: string): Image {
  const png = PNG.sync.read(readFileSync(path));
  const n = png.width * png.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const a = png.data[i * 4 + 3] / 255;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(png.data[i * 4 + c] * a + 255 * (1 - a));
  }
  return { width: png.width, height: png.height, channels: 3, data: out };
}

export function writePngRgb(path: string, img: Image): void {
  const png = new PNG({ width: img.width, height: img.height });
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) png.data[i * 4 + c] = img.channels >= 3 ? img.data[i * img.channels + c] : img.data[i * img.channels];
    png.data[i * 4 + 3] = 255;
  }
  writeFileSync(path, PNG.sync.write(png));
}

export function parseFlags(argv: string[]): { flags: Record<string, string>; rest: string[] } {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2);
      if (v !== undefined) flags[k] = v;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[k] = argv[++i];
      else flags[k] = 'true';
    } else rest.push(a);
  }
  return { flags, rest };
}

/** Loads <dir>/layout.onnx + config.json with onnxruntime-node (default) or onnxruntime-web (wasm). */
export async function loadDetector(dir: string, runtime: 'node' | 'wasm' = 'node', threads = 1): Promise<LayoutDetector> {
  const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
  const bytes = new Uint8Array(readFileSync(`${dir}/layout.onnx`));
  const rc = config?.reclass?.model ? new Uint8Array(readFileSync(`${dir}/${config.reclass.model}`)) : undefined;
  if (runtime === 'wasm') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    return LayoutDetector.create(ort as unknown as OrtModuleLike, bytes, config, { executionProviders: ['wasm'] }, rc);
  }
  const ort = await import('onnxruntime-node');
  return LayoutDetector.create(ort as unknown as OrtModuleLike, bytes, config, { intraOpNumThreads: threads, interOpNumThreads: 1 }, rc);
}
