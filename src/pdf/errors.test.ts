import { describe, expect, it } from 'vitest';
import { DocError, sniffKind, userMessage } from './errors';

describe('sniffKind', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('recognises PDF, also with a junk preamble, and rejects text', () => {
    expect(sniffKind(enc('%PDF-1.7\n...'))).toBe('pdf');
    expect(sniffKind(enc('garbage\n%PDF-1.4'))).toBe('pdf');
    expect(sniffKind(enc('hello world'))).toBe('unknown');
    expect(sniffKind(new Uint8Array())).toBe('unknown');
  });
  it('recognises PNG and JPEG magic numbers', () => {
    expect(sniffKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe('png');
    expect(sniffKind(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg');
  });
  it('gives a sentence per error code', () => {
    expect(userMessage(new DocError('encrypted'))).toMatch(/password/);
    expect(userMessage(new DocError('corrupt', 'xref'))).toMatch(/damaged.*xref/);
  });
});
