// Page-level quality: the text of a page in reading order, end to end (layout decides which regions
// exist, their classes and their order). Only body text counts: text-like regions (title, section
// heading, text, list item, caption, footnote); tables, formulas and figures are scored per region
// elsewhere, and page furniture (header, footer, page number) is dropped as the Markdown drops it.
// Each region's text is normalized (tools/synth/normalize.ts) and regions are joined by one space,
// so a wrong reading order costs edits while line breaks inside a region cost nothing.
import { normalizeText } from '../../tools/synth/normalize.ts';
import { textEdits, type EditCount } from './text.ts';

export interface OrderedText {
  cls: string;
  order: number;
  text: string;
}

export const BODY_TEXT_CLASSES: ReadonlySet<string> = new Set(['title', 'section_heading', 'text', 'list_item', 'caption', 'footnote']);

export function readingOrderText(regions: OrderedText[]): string {
  return [...regions]
    .filter((r) => BODY_TEXT_CLASSES.has(r.cls))
    .sort((a, b) => a.order - b.order)
    .map((r) => normalizeText(r.text))
    .filter((t) => t.length > 0)
    .join(' ');
}

/** Edits between a page's predicted and reference body text in reading order. */
export function pageTextEdits(pred: OrderedText[], ref: OrderedText[]): EditCount {
  return textEdits(readingOrderText(pred), readingOrderText(ref));
}
