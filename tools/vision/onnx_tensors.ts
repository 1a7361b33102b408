/**
 * Minimal ONNX protobuf reader: pulls a float32 weight (initializer or Constant node value) out
 * of a .onnx file by tensor name. Just enough wire-format parsing for verification tools/tests;
 * onnxruntime does not expose weights.
 */
import { readFileSync } from 'node:fs';

export interface Tensor { name: string; dims: number[]; data: Float32Array }

class Reader {
  pos: number;
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) { this.pos = start; }
  varint(): number {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  }
  /** Iterate fields: calls fn(field, wireType, start, end) for length-delimited, value for varint. */
  fields(fn: (field: number, wire: number, a: number, b: number) => void): void {
    while (this.pos < this.end) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      if (wire === 0) { const v = this.varint(); fn(field, wire, v, v); }
      else if (wire === 1) { fn(field, wire, this.pos, this.pos + 8); this.pos += 8; }
      else if (wire === 5) { fn(field, wire, this.pos, this.pos + 4); this.pos += 4; }
      else if (wire === 2) { const n = this.varint(); fn(field, wire, this.pos, this.pos + n); this.pos += n; }
      else throw new Error(`protobuf: unsupported wire type ${wire} at ${this.pos}`);
    }
  }
}

const utf8 = new TextDecoder();

function parseTensor(buf: Uint8Array, a: number, b: number): Tensor & { dtype: number } {
  const dims: number[] = [];
  let name = '';
  let dtype = 0;
  let raw: Uint8Array | null = null;
  const floats: number[] = [];
  new Reader(buf, a, b).fields((f, w, s, e) => {
    if (f === 1) {
      if (w === 0) dims.push(s);
      else { const r = new Reader(buf, s, e); while (r.pos < e) dims.push(r.varint()); }
    } else if (f === 2) dtype = s;
    else if (f === 8) name = utf8.decode(buf.subarray(s, e));
    else if (f === 9) raw = buf.slice(s, e);
    else if (f === 4) {
      const dv = new DataView(buf.buffer, buf.byteOffset);
      if (w === 5) floats.push(dv.getFloat32(s, true));
      else for (let p = s; p < e; p += 4) floats.push(dv.getFloat32(p, true));
    }
  });
  let data: Float32Array;
  if (raw) {
    const r = raw as Uint8Array;
    data = new Float32Array(r.buffer, r.byteOffset, r.byteLength / 4);
  } else data = Float32Array.from(floats);
  return { name, dims, data, dtype };
}

/** Read named float32 tensors (initializers or Constant outputs) from an ONNX model file. */
export function readOnnxTensors(path: string, names: string[]): Map<string, Tensor> {
  const buf = new Uint8Array(readFileSync(path));
  const want = new Set(names);
  const found = new Map<string, Tensor>();
  const take = (t: Tensor & { dtype: number }, name: string) => {
    if (t.dtype !== 1) throw new Error(`${name}: data_type ${t.dtype}, only float32 supported`);
    found.set(name, { name, dims: t.dims, data: t.data });
  };
  new Reader(buf).fields((f, w, a, b) => {
    if (f !== 7 || w !== 2) return; // ModelProto.graph
    new Reader(buf, a, b).fields((gf, gw, ga, gb) => {
      if (gw !== 2) return;
      if (gf === 5) { // GraphProto.initializer
        const t = parseTensor(buf, ga, gb);
        if (want.has(t.name)) take(t, t.name);
      } else if (gf === 1) { // GraphProto.node
        let op = '';
        const outputs: string[] = [];
        const attrs: Array<[number, number]> = [];
        new Reader(buf, ga, gb).fields((nf, nw, na, nb) => {
          if (nf === 2) outputs.push(utf8.decode(buf.subarray(na, nb)));
          else if (nf === 4) op = utf8.decode(buf.subarray(na, nb));
          else if (nf === 5 && nw === 2) attrs.push([na, nb]);
        });
        if (op !== 'Constant' || !outputs.some((o) => want.has(o))) return;
        for (const [aa, ab] of attrs) {
          new Reader(buf, aa, ab).fields((af, aw, ta, tb) => {
            if (af === 5 && aw === 2) take(parseTensor(buf, ta, tb), outputs[0]);
          });
        }
      }
    });
  });
  for (const n of names) if (!found.has(n)) throw new Error(`tensor ${n} not found in ${path}`);
  return found;
}
