/** Minimal PNG codec (8-bit gray/GA/RGB/RGBA, non-interlaced) for crops and overlays. No dependencies. */
import { deflateSync, inflateSync, crc32 } from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** channels per pixel: 1 (gray), 3 (RGB) or 4 (RGBA) */
  channels: 1 | 3 | 4;
  data: Uint8Array;
}

const SIG = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

export function pngSize(buf: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (!b.subarray(0, 8).equals(SIG)) throw new Error('not a PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

export function decodePng(buf: Uint8Array): Image {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (!b.subarray(0, 8).equals(SIG)) throw new Error('not a PNG');
  let off = 8;
  let width = 0, height = 0, depth = 0, ctype = 0, interlace = 0;
  const idat: Buffer[] = [];
  let palette: Buffer | null = null;
  while (off < b.length) {
    const len = b.readUInt32BE(off);
    const type = b.toString('ascii', off + 4, off + 8);
    const body = b.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      depth = body[8];
      ctype = body[9];
      interlace = body[12];
    } else if (type === 'PLTE') palette = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  if (depth !== 8 || interlace !== 0) throw new Error(`unsupported PNG (depth ${depth}, interlace ${interlace})`);
  const inCh = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[ctype];
  if (!inCh) throw new Error(`unsupported PNG color type ${ctype}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * inCh;
  const px = new Uint8Array(stride * height);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = px.subarray(y * stride, (y + 1) * stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= inCh ? cur[x - inCh] : 0;
      const up = prev[x];
      const c = x >= inCh ? prev[x - inCh] : 0;
      let v = line[x];
      switch (f) {
        case 1: v += a; break;
        case 2: v += up; break;
        case 3: v += (a + up) >> 1; break;
        case 4: {
          const p = a + up - c;
          const pa = Math.abs(p - a), pb = Math.abs(p - up), pc = Math.abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
          break;
        }
      }
      cur[x] = v;
    }
    prev = cur;
  }
  if (ctype === 3) {
    if (!palette) throw new Error('palette PNG without PLTE');
    const out = new Uint8Array(width * height * 3);
    for (let i = 0; i < width * height; i++) {
      out[i * 3] = palette[px[i] * 3];
      out[i * 3 + 1] = palette[px[i] * 3 + 1];
      out[i * 3 + 2] = palette[px[i] * 3 + 2];
    }
    return { width, height, channels: 3, data: out };
  }
  if (inCh === 2) {
    const out = new Uint8Array(width * height);
    for (let i = 0; i < width * height; i++) out[i] = px[i * 2];
    return { width, height, channels: 1, data: out };
  }
  return { width, height, channels: inCh as 1 | 3 | 4, data: px };
}

function chunk(type: string, body: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}

export function encodePng(img: Image, level = 6): Buffer {
  const { width, height, channels, data } = img;
  const ctype = channels === 1 ? 0 : channels === 3 ? 2 : 6;
  const stride = width * channels;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1);
    raw[o] = 2; // "up" filter: good for text crops
    const cur = data.subarray(y * stride, (y + 1) * stride);
    if (y === 0) raw.set(cur, o + 1);
    else {
      const prev = data.subarray((y - 1) * stride, y * stride);
      for (let x = 0; x < stride; x++) raw[o + 1 + x] = (cur[x] - prev[x]) & 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = ctype;
  return Buffer.concat([SIG, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level })), chunk('IEND', new Uint8Array(0))]);
}

/** ITU-R BT.601 luma, alpha composited on white */
export function toGray(img: Image): Image {
  if (img.channels === 1) return img;
  const n = img.width * img.height;
  const out = new Uint8Array(n);
  const c = img.channels;
  for (let i = 0; i < n; i++) {
    let r = img.data[i * c], g = img.data[i * c + 1], b = img.data[i * c + 2];
    if (c === 4) {
      const a = img.data[i * c + 3] / 255;
      r = r * a + 255 * (1 - a);
      g = g * a + 255 * (1 - a);
      b = b * a + 255 * (1 - a);
    }
    out[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
  }
  return { width: img.width, height: img.height, channels: 1, data: out };
}

/** crop [x0,y0,x1,y1) clamped to the image; area outside the image is filled with `fill` */
export function crop(img: Image, x0: number, y0: number, x1: number, y1: number, fill = 255): Image {
  const w = Math.max(1, x1 - x0), h = Math.max(1, y1 - y0);
  const c = img.channels;
  const out = new Uint8Array(w * h * c).fill(fill);
  for (let y = 0; y < h; y++) {
    const sy = y0 + y;
    if (sy < 0 || sy >= img.height) continue;
    const sx0 = Math.max(0, x0), sx1 = Math.min(img.width, x1);
    if (sx1 <= sx0) continue;
    out.set(img.data.subarray((sy * img.width + sx0) * c, (sy * img.width + sx1) * c), (y * w + (sx0 - x0)) * c);
  }
  return { width: w, height: h, channels: c, data: out };
}
