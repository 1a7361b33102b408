// Region classes shared by the layout detector, the synthetic corpus and Markdown assembly.
export const REGION_CLASSES = [
  'title',
  'section_heading',
  'text',
  'list_item',
  'table',
  'formula',
  'figure',
  'caption',
  'page_header',
  'page_footer',
  'page_number',
  'footnote',
] as const;
export type RegionClass = (typeof REGION_CLASSES)[number];

/** Which recognizer prompt reads a class; null = not read (figures are kept as image crops). */
export function taskOf(cls: RegionClass): 'text' | 'table' | 'formula' | null {
  if (cls === 'table') return 'table';
  if (cls === 'formula') return 'formula';
  if (cls === 'figure') return null;
  return 'text';
}

/** Page furniture: kept as regions, left out of the Markdown by default (GLM-OCR convention). */
export const FURNITURE: ReadonlySet<RegionClass> = new Set(['page_header', 'page_footer', 'page_number']);

export interface AssembledRegion {
  cls: RegionClass;
  /** Reading-order index within its page. */
  order: number;
  /** Recognized text (text-like: lines separated by '\n'; table: HTML; formula: LaTeX). */
  text: string;
  /** For figures: the file name the exported crop will have. */
  imageName?: string;
}
