// safetensors reader (and a small writer for tests): 8-byte little-endian header length, a
// JSON header {name: {dtype, shape, data_offsets}, "__metadata__"?}, then raw little-endian
// tensor bytes. Float tensors (F32, F16, BF16) are returned as Float32Array.

export type StDtype = 'F32' | 'F16' | 'BF16' | 'I32' | 'I64' | 'U8';

export interface Tensor {
  name: string;
  dtype: StDtype;
  shape: number[];
  data: Float32Array;
}

export interface SafetensorsFile {
  tensors: Map<string, Tensor>;
  metadata: Record<string, string>;
}

const BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2, I32: 4, I64: 8, U8: 1 };

export class SafetensorsError extends Error {
  constructor(msg: string) {
    super(`model.safetensors: ${msg}`);
    this.name = 'SafetensorsError';
  }
}

export function parseSafetensors(buf: ArrayBuffer | Uint8Array): SafetensorsFile {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  if (bytes.length < 8) throw new SafetensorsError('file shorter than its 8-byte header length');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(dv.getBigUint64(0, true));
  if (8 + n > bytes.length) throw new SafetensorsError(`header length ${n} exceeds file size ${bytes.length}`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new SafetensorsError(`bad JSON header (${(e as Error).message})`);
  }
  const base = 8 + n;
  const metadata = (header.__metadata__ ?? {}) as Record<string, string>;
  const tensors = new Map<string, Tensor>();
  for (const [name, h] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets } = h as { dtype: StDtype; shape: number[]; data_offsets: [number, number] };
    const size = BYTES[dtype];
    if (!size) throw new SafetensorsError(`${name}: unsupported dtype ${dtype}`);
    const count = shape.reduce((a, b) => a * b, 1);
    const [b, e] = data_offsets;
    if (e - b !== count * size || base + e > bytes.length) throw new SafetensorsError(`${name}: offsets [${b}, ${e}] do not fit shape ${JSON.stringify(shape)} ${dtype}`);
    tensors.set(name, { name, dtype, shape, data: decode(dv, base + b, count, dtype) });
  }
  return { tensors, metadata };
}

function decode(dv: DataView, off: number, count: number, dtype: StDtype): Float32Array {
  const out = new Float32Array(count);
  switch (dtype) {
    case 'F32':
      if ((dv.byteOffset + off) % 4 === 0) return new Float32Array(dv.buffer, dv.byteOffset + off, count).slice();
      for (let i = 0; i < count; i++) out[i] = dv.getFloat32(off + 4 * i, true);
      break;
    case 'F16':
      for (let i = 0; i < count; i++) out[i] = f16ToF32(dv.getUint16(off + 2 * i, true));
      break;
    case 'BF16': {
      const u = new Uint32Array(1);
      const f = new Float32Array(u.buffer);
      for (let i = 0; i < count; i++) {
        u[0] = dv.getUint16(off + 2 * i, true) << 16;
        out[i] = f[0];
      }
      break;
    }
    case 'I32':
      for (let i = 0; i < count; i++) out[i] = dv.getInt32(off + 4 * i, true);
      break;
    case 'I64':
      for (let i = 0; i < count; i++) out[i] = Number(dv.getBigInt64(off + 8 * i, true));
      break;
    case 'U8':
      for (let i = 0; i < count; i++) out[i] = dv.getUint8(off + i);
      break;
  }
  return out;
}

export function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Writes F32 tensors (tests, tools). */
export function encodeSafetensors(tensors: Record<string, { shape: number[]; data: Float32Array }>, metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = {};
  let off = 0;
  const names = Object.keys(tensors).sort();
  for (const name of names) {
    const t = tensors[name];
    header[name] = { dtype: 'F32', shape: t.shape, data_offsets: [off, off + t.data.length * 4] };
    off += t.data.length * 4;
  }
  if (metadata) header.__metadata__ = metadata;
  let hb = new TextEncoder().encode(JSON.stringify(header));
  const pad = (8 - (hb.length % 8)) % 8;
  if (pad) hb = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(pad));
  const out = new Uint8Array(8 + hb.length + off);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(hb.length), true);
  out.set(hb, 8);
  let p = 8 + hb.length;
  for (const name of names) {
    for (const v of tensors[name].data) {
      dv.setFloat32(p, v, true);
      p += 4;
    }
  }
  return out;
}
