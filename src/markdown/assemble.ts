// Page → Markdown assembly with the GLM-OCR conventions (DESIGN §2): `# ` document title,
// `## ` section headings, tables as HTML, display formulas as `$$\n…\n$$`, figures as image
// references (never OCR'd), page furniture dropped, hyphenated line breaks joined.
// Pure string work: no DOM, used by the worker, the CLI and tests.
import { FURNITURE, type AssembledRegion } from './types';

export interface AssembleOptions {
  /** Keep page headers/footers/numbers (default false). */
  keepFurniture?: boolean;
}

const HYPHEN_BREAK = /([A-Za-zÀ-ÿ])[-\u00ad]\n([a-zà-ÿ])/g;

/** Joins the lines of a text region: "infor-\nmation" → "information", other breaks → space. */
export function joinLines(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(HYPHEN_BREAK, '$1$2')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/[ \t]+/g, ' ');
}

/** Strips any `$$`/`\[ \]` wrapper the model may have produced around a display formula. */
export function bareLatex(latex: string): string {
  let s = latex.trim();
  if (s.startsWith('$$') && s.endsWith('$$') && s.length >= 4) s = s.slice(2, -2);
  else if (s.startsWith('\\[') && s.endsWith('\\]')) s = s.slice(2, -2);
  return s.trim();
}

/**
 * Text regions are plain text: `<` and `&` are escaped so that text which merely *looks* like HTML
 * (`<script>`, `<img onerror=…>`) stays text in every Markdown viewer. Only tables carry HTML.
 */
export function escapeText(s: string): string {
  return s.replace(/&(?!(?:[a-z]+|#\d+|#x[0-9a-f]+);)/gi, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const BULLET = /^(?:[•◦▪‣●○■□·*–—-]\s+)/;
const NUMBERED = /^(\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;

export function regionMarkdown(r: AssembledRegion): string | null {
  const text = r.cls === 'table' || r.cls === 'formula' ? (r.text ?? '') : escapeText(r.text ?? '');
  switch (r.cls) {
    case 'title':
      return `# ${joinLines(text)}`;
    case 'section_heading':
      return `## ${joinLines(text)}`;
    case 'list_item': {
      const line = joinLines(text);
      if (NUMBERED.test(line)) return line;
      return `- ${line.replace(BULLET, '')}`;
    }
    case 'table':
      return text.trim() || null;
    case 'formula': {
      const body = bareLatex(text);
      return body ? `$$\n${body}\n$$` : null;
    }
    case 'figure':
      return r.imageName ? `![Figure](${r.imageName})` : null;
    case 'caption':
    case 'footnote':
    case 'text':
    case 'page_header':
    case 'page_footer':
    case 'page_number':
      return joinLines(text) || null;
  }
}

/** Markdown for one page: regions in reading order, blank line between blocks. */
export function assemblePage(regions: readonly AssembledRegion[], opts: AssembleOptions = {}): string {
  const blocks: string[] = [];
  let prevList = false;
  for (const r of [...regions].sort((a, b) => a.order - b.order)) {
    if (!opts.keepFurniture && FURNITURE.has(r.cls)) continue;
    const md = regionMarkdown(r);
    if (!md) continue;
    // Consecutive list items form one list (single newline between them).
    if (r.cls === 'list_item' && prevList) blocks[blocks.length - 1] += `\n${md}`;
    else blocks.push(md);
    prevList = r.cls === 'list_item';
  }
  return blocks.join('\n\n');
}

/** Joins pages; a paragraph split across a page break stays two paragraphs (we cannot know). */
export function assembleDocument(pages: readonly string[]): string {
  return pages.filter((p) => p.trim()).join('\n\n') + '\n';
}
