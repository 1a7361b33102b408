// CPU twin of shaders/inkbbox.wgsl: the bounding box of pixels whose luma is below a threshold.
// Same integer luma formula as the shader so both agree exactly.

/** Inclusive pixel box; null when the image has no ink. */
export interface InkBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export function lumaOf(rgba: number): number {
  const r = rgba & 0xff;
  const g = (rgba >>> 8) & 0xff;
  const b = (rgba >>> 16) & 0xff;
  return Math.floor((299 * r + 587 * g + 114 * b) / 1000);
}

/** pixels: one little-endian RGBA8 value per pixel (e.g. new Uint32Array(imageData.data.buffer)). */
export function inkBBoxCpu(pixels: Uint32Array, width: number, height: number, threshold = 200): InkBox | null {
  if (pixels.length < width * height) throw new Error(`inkbbox: ${pixels.length} pixels < ${width}×${height}`);
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (lumaOf(pixels[row + x]) < threshold) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
    }
  }
  return x1 < 0 ? null : { x0, y0, x1, y1 };
}
