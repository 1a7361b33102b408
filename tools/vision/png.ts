/** PNG <-> Image for Node tools and tests (the browser gets ImageData from a canvas instead). */
import { readFileSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import type { Image } from '../../src/recognizer/image.ts';

/** Decode PNG bytes to an RGBA image (pngjs expands gray/palette/16-bit to 8-bit RGBA). */
export function decodePng(bytes: Uint8Array): Image {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return {
    width: png.width,
    height: png.height,
    channels: 4,
    data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength),
  };
}

export function readPng(path: string): Image {
  return decodePng(readFileSync(path));
}

/** Encode gray/RGB/RGBA as an 8-bit PNG (gray stays gray, RGB(A) becomes RGBA). */
export function encodePng(img: Image): Buffer {
  const png = new PNG({ width: img.width, height: img.height });
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const o = 4 * i;
    if (img.channels === 1) {
      png.data[o] = png.data[o + 1] = png.data[o + 2] = img.data[i];
      png.data[o + 3] = 255;
    } else {
      const c = img.channels;
      png.data[o] = img.data[c * i];
      png.data[o + 1] = img.data[c * i + 1];
      png.data[o + 2] = img.data[c * i + 2];
      png.data[o + 3] = c === 4 ? img.data[c * i + 3] : 255;
    }
  }
  return PNG.sync.write(png, img.channels === 1 ? { colorType: 0 } : { colorType: 6 });
}

export function writePng(path: string, img: Image): void {
  writeFileSync(path, encodePng(img));
}
