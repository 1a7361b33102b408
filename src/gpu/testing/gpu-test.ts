// Test helpers for kernel parity tests: the shared device (or a loud skip) and a check
// that prints llm.c-style mismatch reports on failure.
import { expect } from 'vitest';
import { getTestDevice, gpuRequired, NO_GPU_MESSAGE, type TestDevice } from './node-device.ts';
import { validate } from '../../reference/validate.ts';

export async function gpuOrSkip(): Promise<TestDevice | null> {
  const dev = await getTestDevice();
  if (!dev && gpuRequired) throw new Error(`GOCR_REQUIRE_GPU=1 but ${NO_GPU_MESSAGE}`);
  if (!dev) console.warn(NO_GPU_MESSAGE);
  return dev;
}

export function expectClose(name: string, got: ArrayLike<number>, ref: ArrayLike<number>, atol: number, rtol: number): void {
  const res = validate(name, got, ref, atol, rtol);
  if (!res.ok) console.error(res.report);
  expect(res.ok, res.report).toBe(true);
}

export function expectBitEqual(name: string, a: Float32Array, b: Float32Array): void {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  expect(a.length, `${name}: length`).toBe(b.length);
  let first = -1;
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) { first = i; break; }
  expect(first, `${name}: first bit difference at ${first}: ${a[first]} vs ${b[first]}`).toBe(-1);
}
