import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { exportBundle, linkedImages, renameImageLinks } from './export';

const PNG_A = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const PNG_B = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 9, 8, 7, 6]);

describe('linkedImages', () => {
  it('finds image links once each, in order, and ignores plain links', () => {
    const md = 'See [the site](a.png).\n\n![Figure](page1-figure3.png)\n\ntext ![x](page2-figure1.png) ![Figure](page1-figure3.png)';
    expect(linkedImages(md)).toEqual(['page1-figure3.png', 'page2-figure1.png']);
  });
});

describe('renameImageLinks', () => {
  it('rewrites only link targets, keeping alt text and the rest', () => {
    const md = '# T\n\n![Figure 1](page1-figure2.png)\n\nsee (page1-figure2.png) and ![](page2-figure1.png)\n';
    const out = renameImageLinks(md, (n) => `report-${n}`);
    expect(out).toBe('# T\n\n![Figure 1](report-page1-figure2.png)\n\nsee (page1-figure2.png) and ![](report-page2-figure1.png)\n');
    expect(linkedImages(out)).toEqual(['report-page1-figure2.png', 'report-page2-figure1.png']);
    expect(renameImageLinks('no links', () => 'x')).toBe('no links');
  });
});

describe('exportBundle', () => {
  it('writes the Markdown alone when it links no figures', () => {
    const f = exportBundle('report', '# Title\n\n$$\nx^2\n$$\n', new Map([['page1-figure1.png', PNG_A]]));
    expect(f.filename).toBe('report.md');
    expect(f.mime).toMatch(/^text\/markdown/);
    expect(strFromU8(f.bytes)).toBe('# Title\n\n$$\nx^2\n$$\n');
    expect(f.missing).toEqual([]);
  });

  it('zips the Markdown with exactly the figures it links, byte for byte', () => {
    const md = 'Intro\n\n![Figure](page1-figure2.png)\n\n![Figure](page2-figure1.png)\n';
    const figs = new Map([
      ['page1-figure2.png', PNG_A],
      ['page2-figure1.png', PNG_B],
      ['page3-figure1.png', PNG_A], // not linked: left out
    ]);
    const f = exportBundle('scan', md, figs);
    expect(f.filename).toBe('scan.zip');
    expect(f.mime).toBe('application/zip');
    const files = unzipSync(f.bytes);
    expect(Object.keys(files).sort()).toEqual(['page1-figure2.png', 'page2-figure1.png', 'scan.md']);
    expect(strFromU8(files['scan.md'])).toBe(md);
    expect(files['page1-figure2.png']).toEqual(PNG_A);
    expect(files['page2-figure1.png']).toEqual(PNG_B);
    // deterministic: the same input gives the same archive
    expect(exportBundle('scan', md, figs).bytes).toEqual(f.bytes);
  });

  it('reports linked figures it has no pixels for and keeps the ones it has', () => {
    const f = exportBundle('doc', '![Figure](page1-figure1.png) ![Figure](page1-figure2.png)', new Map([['page1-figure2.png', PNG_B]]));
    expect(f.missing).toEqual(['page1-figure1.png']);
    expect(Object.keys(unzipSync(f.bytes)).sort()).toEqual(['doc.md', 'page1-figure2.png']);
  });

  it('makes a file-system-safe base name', () => {
    expect(exportBundle('a/b:c', 'x', new Map()).filename).toBe('a_b_c.md');
    expect(exportBundle('  ', 'x', new Map()).filename).toBe('document.md');
  });
});
