import { describe, expect, it } from 'vitest';
import { encodeSafetensors, f16ToF32, parseSafetensors } from './safetensors.ts';

function rawFile(header: object, data: Uint8Array): Uint8Array {
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const hb = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + hb.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(hb.length), true);
  out.set(hb, 8);
  out.set(data, 8 + hb.length);
  return out;
}

describe('safetensors', () => {
  it('round-trips F32 tensors and metadata', () => {
    const a = Float32Array.from([1, -2.5, 3e-8, 1e30]);
    const b = Float32Array.from([7]);
    const f = parseSafetensors(encodeSafetensors({ a: { shape: [2, 2], data: a }, b: { shape: [1], data: b } }, { format: 'pt' }));
    expect(f.metadata.format).toBe('pt');
    expect(f.tensors.get('a')!.shape).toEqual([2, 2]);
    expect(Array.from(f.tensors.get('a')!.data)).toEqual(Array.from(a));
    expect(Array.from(f.tensors.get('b')!.data)).toEqual([7]);
  });

  it('decodes F16 and BF16', () => {
    const f16 = [0x3c00, 0xc000, 0x0001, 0x7bff, 0x3555]; // 1, -2, 2^-24, 65504, ~0.333
    const bf16 = [0x3f80, 0xc0a0, 0x3eab]; // 1, -5, ~0.334
    const data = new Uint8Array(16);
    const dv = new DataView(data.buffer);
    f16.forEach((h, i) => dv.setUint16(2 * i, h, true));
    bf16.forEach((h, i) => dv.setUint16(10 + 2 * i, h, true));
    const f = parseSafetensors(rawFile({ h: { dtype: 'F16', shape: [5], data_offsets: [0, 10] }, b: { dtype: 'BF16', shape: [3], data_offsets: [10, 16] } }, data));
    const h = Array.from(f.tensors.get('h')!.data);
    expect(h.slice(0, 4)).toEqual([1, -2, 2 ** -24, 65504]);
    expect(h[4]).toBeCloseTo(1 / 3, 3);
    const b = Array.from(f.tensors.get('b')!.data);
    expect(b.slice(0, 2)).toEqual([1, -5]);
    expect(b[2]).toBeCloseTo(0.334, 2);
    expect(f16ToF32(0x7c00)).toBe(Infinity);
  });

  it('rejects a truncated file and inconsistent offsets', () => {
    expect(() => parseSafetensors(new Uint8Array(4))).toThrow(/header length/);
    expect(() => parseSafetensors(rawFile({ x: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8)))).toThrow(/do not fit/);
  });
});
