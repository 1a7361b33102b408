import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tokenizer, type VocabJson } from './tokenizer';

const vocab = JSON.parse(readFileSync(new URL('../../training/vocab.json', import.meta.url), 'utf8')) as VocabJson;
const vectors = JSON.parse(
  readFileSync(new URL('../../training/tests/tokenizer_vectors.json', import.meta.url), 'utf8'),
) as { vocab_size: number; cases: { text: string; ids: number[]; decoded: string }[] };

describe('tokenizer parity with training/gocr/tokenizer.py', () => {
  const tok = new Tokenizer(vocab);

  it('has the vocab size the vectors were made with', () => {
    expect(tok.vocabSize).toBe(vectors.vocab_size);
  });

  for (const [k, c] of vectors.cases.entries()) {
    it(`case ${k}: ${JSON.stringify(c.text).slice(0, 40)}`, () => {
      expect(tok.encode(c.text)).toEqual(c.ids);
      expect(tok.decode(c.ids)).toBe(c.decoded);
    });
  }

  it('rejects a vocab whose specials are out of order', () => {
    const bad = { ...vocab, tokens: ['<bos>', '<pad>', ...vocab.tokens.slice(2)] };
    expect(() => new Tokenizer(bad)).toThrow(/specials|must be/);
  });
});
