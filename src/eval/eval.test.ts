import { describe, expect, it } from 'vitest';
import { chars, levenshtein, nes, normalizedLevenshtein } from './levenshtein.ts';
import { cer, corpusCer, textEdits } from './text.ts';
import { formulaExact, formulaNes, latexTokens } from './formula.ts';
import { readingOrderText, pageTextEdits } from './page.ts';
import { lengthBucket, mean, median, pooledTpf, ratio } from './stats.ts';

describe('levenshtein', () => {
  it('matches hand-computed distances', () => {
    expect(levenshtein(chars('kitten'), chars('sitting'))).toBe(3);
    expect(levenshtein(chars('flaw'), chars('lawn'))).toBe(2);
    expect(levenshtein(chars(''), chars('abc'))).toBe(3);
    expect(levenshtein(chars('abc'), chars(''))).toBe(3);
    expect(levenshtein(chars('abc'), chars('abc'))).toBe(0);
    expect(levenshtein(['\\alpha', 'x'], ['\\beta', 'x'])).toBe(1);
  });
  it('is symmetric', () => {
    expect(levenshtein(chars('gumbo'), chars('gambol'))).toBe(levenshtein(chars('gambol'), chars('gumbo')));
  });
  it('counts code points, not UTF-16 units', () => {
    expect(chars('a𝑥b').length).toBe(3);
    expect(levenshtein(chars('a𝑥b'), chars('ayb'))).toBe(1);
  });
  it('normalizes by the longer length', () => {
    expect(normalizedLevenshtein(chars('kitten'), chars('sitting'))).toBeCloseTo(3 / 7, 12);
    expect(normalizedLevenshtein([], [])).toBe(0);
    expect(nes(chars('ab'), chars('ac'))).toBeCloseTo(0.5, 12);
  });
});

describe('text CER', () => {
  it('is edits over reference characters after normalization', () => {
    expect(cer('the cat', 'the cat')).toBe(0);
    expect(cer('the  cat\n', ' the cat')).toBe(0); // whitespace runs and trimming
    expect(cer('the bat', 'the cat')).toBeCloseTo(1 / 7, 12);
    expect(cer('', 'abcd')).toBe(1);
    expect(cer('abcdefgh', 'abcd')).toBe(1); // 4 insertions / 4 characters
  });
  it('treats NFC-equivalent strings as equal', () => {
    expect(cer('caf\u0065\u0301', 'caf\u00e9')).toBe(0);
  });
  it('handles an empty reference', () => {
    expect(cer('', '')).toBe(0);
    expect(cer('x', '')).toBe(1);
  });
  it('pools edits over characters for the corpus', () => {
    const a = textEdits('abcx', 'abcd'); // 1 / 4
    const b = textEdits('', 'efghijkl'); // 8 / 8
    expect(a).toEqual({ edits: 1, refChars: 4 });
    expect(corpusCer([a, b])).toBeCloseTo(9 / 12, 12);
    expect(corpusCer([])).toBe(0);
  });
  it('normalizes inline math before comparing', () => {
    expect(cer('where $x ^{2}\\le y$', 'where $x^2 \\leq y$')).toBe(0);
  });
});

describe('formula NES', () => {
  it('compares LaTeX tokens of the normal form', () => {
    expect(latexTokens('\\frac { a } { b }')).toEqual(['\\frac', '{', 'a', '}', '{', 'b', '}']);
    expect(formulaNes('x^{2} \\le y', 'x^2\\leq y')).toBe(1);
    expect(formulaExact('$$ a \\ne b $$', 'a\\neq b')).toBe(true);
  });
  it('counts a control word as one token', () => {
    // \alpha+b vs \beta+b: 1 substitution over 3 tokens
    expect(formulaNes('\\alpha+b', '\\beta+b')).toBeCloseTo(1 - 1 / 3, 12);
    // a+b vs a+b+c: 2 insertions over 5 tokens
    expect(formulaNes('a+b', 'a+b+c')).toBeCloseTo(1 - 2 / 5, 12);
  });
  it('gives 0 for nothing in common and 1 for two empty formulas', () => {
    expect(formulaNes('', 'abc')).toBe(0);
    expect(formulaNes('', '')).toBe(1);
  });
});

describe('page text in reading order', () => {
  const ref = [
    { cls: 'text', order: 1, text: 'second part' },
    { cls: 'title', order: 0, text: 'Title' },
    { cls: 'page_header', order: 2, text: 'Journal 3' },
    { cls: 'table', order: 3, text: '<table><tr><td>x</td></tr></table>' },
    { cls: 'list_item', order: 4, text: 'item\n one' },
  ];
  it('joins body text by order, dropping furniture, tables and empties', () => {
    expect(readingOrderText(ref)).toBe('Title second part item one');
    expect(readingOrderText([{ cls: 'text', order: 0, text: '  ' }, { cls: 'text', order: 1, text: 'a' }])).toBe('a');
  });
  it('charges a swapped reading order', () => {
    const pred = [
      { cls: 'text', order: 0, text: 'second part' },
      { cls: 'title', order: 1, text: 'Title' },
      { cls: 'list_item', order: 2, text: 'item one' },
    ];
    const e = pageTextEdits(pred, ref);
    expect(e.refChars).toBe('Title second part item one'.length);
    // "second part Title" vs "Title second part": moving 'Title ' costs 12 edits (6 + 6)
    expect(e.edits).toBe(12);
    expect(pageTextEdits(ref, ref).edits).toBe(0);
  });
  it('charges a stray `$` as one character, not as the words it would pair up to the next formula', () => {
    const truth = [{ cls: 'text', order: 0, text: 'dbus 1.8.8 also cut it to eight $\\sigma\\equiv10$ here' }];
    const read = [{ cls: 'text', order: 0, text: 'dbus 1.8.8$ also cut it to eight $\\sigma \\equiv 10$ here' }];
    expect(pageTextEdits(read, truth).edits).toBe(1);
  });
  it('counts a missed region as deletions', () => {
    const pred = ref.filter((r) => r.cls !== 'title');
    expect(pageTextEdits(pred, ref).edits).toBe('Title '.length);
  });
});

describe('stats', () => {
  it('buckets output lengths at 128 / 512 / 1024', () => {
    expect([0, 127, 128, 511, 512, 1023, 1024, 5000].map(lengthBucket)).toEqual(['<128', '<128', '128-511', '128-511', '512-1023', '512-1023', '>=1024', '>=1024']);
  });
  it('computes means, medians, ratios and pooled TPF', () => {
    expect(mean([])).toBeNull();
    expect(mean([1, 2, 6])).toBe(3);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(ratio(6, 3)).toBe(2);
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(null, 2)).toBeNull();
    expect(pooledTpf([{ tokens: 10, forwards: 2 }, { tokens: 2, forwards: 2 }])).toBe(3);
    expect(pooledTpf([])).toBeNull();
  });
});
