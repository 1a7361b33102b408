import { describe, expect, it } from 'vitest';
import { assembleDocument, assemblePage, bareLatex, joinLines } from './assemble';
import type { AssembledRegion } from './types';

describe('joinLines', () => {
  it('joins hyphenated breaks and turns other breaks into spaces', () => {
    expect(joinLines('the infor-\nmation is\nkept here')).toBe('the information is kept here');
    expect(joinLines('state-of-the-art\nModels')).toBe('state-of-the-art Models');
    expect(joinLines('Section A-\nB stays')).toBe('Section A- B stays');
  });
  it('normalises whitespace and CRLF', () => {
    expect(joinLines('  a  b\r\n\r\n c ')).toBe('a b c');
  });
});

describe('bareLatex', () => {
  it('removes $$ and \\[ \\] wrappers only', () => {
    expect(bareLatex('$$ x^2 $$')).toBe('x^2');
    expect(bareLatex('\\[\\frac{a}{b}\\]')).toBe('\\frac{a}{b}');
    expect(bareLatex('a + b')).toBe('a + b');
  });
});

describe('assemblePage', () => {
  const r = (cls: AssembledRegion['cls'], order: number, text: string, extra: Partial<AssembledRegion> = {}): AssembledRegion => ({ cls, order, text, ...extra });
  it('follows the GLM-OCR conventions in reading order', () => {
    const md = assemblePage([
      r('page_header', 0, 'Journal of Tests'),
      r('section_heading', 2, '1 Intro'),
      r('title', 1, 'A Title'),
      r('text', 3, 'Some text that is hyphen-\nated here.'),
      r('formula', 4, '$$E=mc^2$$'),
      r('table', 5, '<table><tr><td>1</td></tr></table>'),
      r('figure', 6, '', { imageName: 'page1-fig6.png' }),
      r('list_item', 7, '• first'),
      r('list_item', 8, '2. second'),
      r('page_number', 9, '17'),
    ]);
    expect(md).toBe(
      [
        '# A Title',
        '## 1 Intro',
        'Some text that is hyphenated here.',
        '$$\nE=mc^2\n$$',
        '<table><tr><td>1</td></tr></table>',
        '![Figure](page1-fig6.png)',
        '- first\n2. second',
      ].join('\n\n'),
    );
  });
  it('escapes HTML-looking text in text regions but not in tables', () => {
    const md = assemblePage([r('text', 0, 'a <img src=x onerror=alert(1)> & <script>x</script> &amp;'), r('table', 1, '<table><tr><td>a</td></tr></table>')]);
    expect(md).toBe('a &lt;img src=x onerror=alert(1)&gt; &amp; &lt;script&gt;x&lt;/script&gt; &amp;\n\n<table><tr><td>a</td></tr></table>');
  });
  it('keeps furniture on request and drops empty regions', () => {
    const md = assemblePage([r('page_number', 1, '3'), r('text', 0, '  ')], { keepFurniture: true });
    expect(md).toBe('3');
  });
  it('joins pages with blank lines and a final newline', () => {
    expect(assembleDocument(['# A', '', 'b'])).toBe('# A\n\nb\n');
  });
});
