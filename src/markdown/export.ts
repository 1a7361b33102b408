// What "Export" writes: the Markdown alone, or, when it links figure crops, one .zip holding the
// Markdown and those PNGs side by side (the links are bare file names, so they resolve as unpacked).
// DOM-free: the app hands it PNG bytes it encoded, the CLI writes the same names to a folder.
import { strToU8, zipSync, type Zippable } from 'fflate';

export interface ExportFile {
  filename: string;
  mime: string;
  bytes: Uint8Array;
}

const IMAGE_LINK = /!\[[^\]\n]*\]\(([^)\s]+)\)/g;

/** The image file names a Markdown text links (`![alt](name)`), first-seen order, no duplicates. */
export function linkedImages(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(IMAGE_LINK)].map((m) => m[1]))];
}

/**
 * The Markdown with each image link's target passed through `rename` (e.g. to prefix figure files
 * with the document's name); the alt text and everything else are kept byte for byte.
 */
export function renameImageLinks(markdown: string, rename: (name: string) => string): string {
  return markdown.replace(IMAGE_LINK, (all, name: string) => all.slice(0, all.length - name.length - 1) + rename(name) + ')');
}

/**
 * The export of one document. `figures` maps figure file names to PNG bytes; only the ones the
 * Markdown links go in. A link with no bytes (a figure that could not be cropped) is listed in
 * `missing` so the caller can say so; the Markdown is written unchanged.
 */
export function exportBundle(baseName: string, markdown: string, figures: ReadonlyMap<string, Uint8Array>): ExportFile & { missing: string[] } {
  const base = baseName.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').trim() || 'document';
  const linked = linkedImages(markdown);
  const present = linked.filter((n) => figures.has(n));
  const missing = linked.filter((n) => !figures.has(n));
  const md = strToU8(markdown);
  if (present.length === 0) return { filename: `${base}.md`, mime: 'text/markdown;charset=utf-8', bytes: md, missing };
  const files: Zippable = { [`${base}.md`]: md };
  // PNGs are deflated already: store them
  for (const n of present) files[n] = [figures.get(n)!, { level: 0 }];
  return { filename: `${base}.zip`, mime: 'application/zip', bytes: zipSync(files, { level: 6, mtime: new Date('2000-01-01T00:00:00Z') }), missing };
}
