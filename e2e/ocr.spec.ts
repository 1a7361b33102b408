// End-to-end OCR in Debian's Chromium: the built app loads the embedded models from its own
// origin, reads a committed PDF in the worker and shows Markdown with a KaTeX formula and a
// sanitized table; untrusted text stays text; no request leaves the origin.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { linkedImages } from '../src/markdown/export';
import { cer } from '../src/eval/text';
import { taskEncoderScale } from '../src/engine/task-encoders';
import { dropFile, fixture, foreignRequests, recordRequests } from './helpers';

const ORIGIN = 'http://127.0.0.1:4173';
const OCR_TIMEOUT = 600_000;

// the input scale of the embedded formula encoder (1 = the base encoder or none)
function formulaScale(): number {
  const index = JSON.parse(readFileSync('public/models/default.json', 'utf8')) as { recognizer: string; visionTasks?: Record<string, string> };
  const path = index.visionTasks?.formula;
  if (!path) return 1;
  const manifest = JSON.parse(readFileSync(`public/models/${index.recognizer}/manifest.json`, 'utf8')) as Record<string, unknown>;
  return taskEncoderScale(manifest, index.recognizer, path);
}

test.setTimeout(900_000);

// The cap (per decode unit: a text line, the table, the formula) bounds the CPU time of a weak
// model that runs to the cap; the fixture's longest unit, its one-line paragraph, is 84 characters.
async function ready(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 120_000 });
  await expect(page.locator('#error')).toBeHidden();
  await expect(page.locator('#backend')).toHaveText(/^(WebGPU|CPU) · /);
  await page.locator('#max-tokens').fill('100');
}

test('reads a PDF: layout regions, Markdown with a KaTeX formula block, export', async ({ page }) => {
  const reqs = recordRequests(page);
  await ready(page);
  await page.screenshot({ path: 'test-results/screens/01-empty.png' });
  await dropFile(page, fixture('ocr-sample.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'done', { timeout: OCR_TIMEOUT });
  await expect(page.locator('#progress-text')).toContainText('Done: 1 page read (self-speculative)');

  // Layout found the regions and drew them over the page.
  const classes = await page.locator('#overlay .region').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.cls));
  expect(classes).toEqual(expect.arrayContaining(['text', 'table', 'formula']));
  // The one-line title is found as a heading (the detector calls it title or section_heading).
  expect(classes.some((c) => c === 'title' || c === 'section_heading')).toBe(true);

  // Markdown follows the conventions: the heading region as `# `/`## `, the formula region as a `$$` block
  // that the preview hands to KaTeX.
  const md = (await page.locator('#md-text').textContent()) ?? '';
  expect(md).toMatch(/^#{1,2} \S/m);
  // What the page says, read by the embedded model: the title, the paragraph (CER ≤ 10 % on its best
  // line), and a table whose cells hold the header and a number of the last row.
  expect(md).toMatch(/^#{1,2} Sensor Report$/m);
  const para = 'The north sensor stayed within one degree of the reference during the whole test.';
  const best = Math.min(...md.split('\n').map((l) => cer(l, para)));
  expect(best, md).toBeLessThanOrEqual(0.1);
  const cells = await page.locator('#md-preview table td').allTextContents();
  expect(cells, md).toEqual(expect.arrayContaining(['Mean', '19.8']));
  expect(md).toMatch(/\$\$\n[^]*?\n\$\$/);
  await expect(page.locator('#md-preview .math-display .katex, #md-preview .math-display .katex-error').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/02-markdown.png', fullPage: true });

  // Region panel: activate a region (regions are buttons; the keyboard path, since a neighbour's
  // label may overlap its centre) → tokens coloured by round (in round order), rounds with their
  // drafts, the accepted-length chart.
  await page.locator('#overlay .region[data-cls="text"]').first().focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('#panel-region')).toBeVisible();
  const rounds = await page.locator('#region-detail .tok').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.round)));
  expect(rounds.length).toBeGreaterThan(3);
  expect(rounds).toEqual([...rounds].sort((a, b) => a - b)); // rounds commit tokens in order
  await expect(page.locator('#region-detail .rounds li').first()).toBeVisible();
  await expect(page.locator('#region-detail .chart canvas').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/03-region-rounds.png', fullPage: true });
  // The formula region: a PDF page re-rendered at its encoder's input scale (text stays at 150 dpi).
  await expect(page.locator('#region-detail dd[data-key="Read at"]')).toHaveText('150 dpi');
  await page.locator('#overlay .region[data-cls="formula"]').first().focus();
  await page.keyboard.press('Enter');
  const s = formulaScale();
  await expect(page.locator('#region-detail dd[data-key="Read at"]')).toHaveText(s > 1 ? `${150 * s} dpi (re-rendered from the PDF)` : '150 dpi');
  await page.locator('#tab-md').click();

  // Page stats: a self-spec round commits at least a0 and the verifier's token per two forwards.
  const tpf = Number(await page.locator('#page-stats dd[data-key="TPF"]').textContent());
  expect(tpf).toBeGreaterThanOrEqual(1);

  // Export: a .md download with the same Markdown.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-md').click()]);
  expect(download.suggestedFilename()).toBe('ocr-sample.md');

  // The same page by plain AR: the verifier makes self-speculative output identical to it.
  await page.selectOption('#method', 'ar');
  await page.locator('#run').click();
  await expect(page.locator('#progress-text')).toContainText('Done: 1 page read (autoregressive)', { timeout: OCR_TIMEOUT });
  expect((await page.locator('#md-text').textContent()) ?? '').toBe(md);
  expect(foreignRequests(reqs, ORIGIN)).toEqual([]);
});

test('a figure is shown from its page crop and exported in a .zip beside the Markdown', async ({ page }) => {
  const reqs = recordRequests(page);
  await ready(page);
  await dropFile(page, fixture('figure-sample.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'done', { timeout: OCR_TIMEOUT });
  const classes = await page.locator('#overlay .region').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.cls));
  expect(classes).toContain('figure');
  // the preview shows the crop from a local object URL, decoded at its 150-dpi size
  const img = page.locator('#md-preview img.figure');
  await expect(img).toHaveCount(1);
  expect(await img.getAttribute('src')).toMatch(/^blob:/);
  await expect.poll(() => img.evaluate((e) => (e as HTMLImageElement).naturalWidth)).toBeGreaterThan(500);
  const md = (await page.locator('#md-text').textContent()) ?? '';
  const names = linkedImages(md);
  expect(names).toHaveLength(1);
  // Export: one .zip with the Markdown as shown and the PNG it links
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-md').click()]);
  expect(download.suggestedFilename()).toBe('figure-sample.zip');
  const files = unzipSync(new Uint8Array(readFileSync(await download.path())));
  expect(Object.keys(files).sort()).toEqual([names[0], 'figure-sample.md'].sort());
  expect(strFromU8(files['figure-sample.md'])).toBe(md);
  expect([...files[names[0]].subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  await page.screenshot({ path: 'test-results/screens/04-figure.png', fullPage: true });

  // Reading again and cancelling at once (the page is still being drawn or read) keeps the
  // finished result instead of an empty document.
  await page.selectOption('#method', 'ar');
  await page.locator('#run').click();
  await page.keyboard.press('Escape');
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'cancelled', { timeout: 120_000 });
  await expect(page.locator('#progress-text')).toHaveText('Cancelled. 1 page keeps the earlier reading.');
  expect((await page.locator('#md-text').textContent()) ?? '').toBe(md);
  await expect(page.locator('#md-preview img.figure')).toHaveCount(1);
  await expect(page.locator('#run')).toBeEnabled();
  expect(foreignRequests(reqs, ORIGIN)).toEqual([]);
});

test('cancel stops a read and the app keeps working', async ({ page }) => {
  await ready(page);
  await dropFile(page, fixture('ocr-sample.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'running', { timeout: 120_000 });
  await expect(page.locator('#cancel')).toBeVisible();
  await page.keyboard.press('Escape'); // focus is still in the max-tokens field: Esc works there too
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'cancelled', { timeout: 120_000 });
  await expect(page.locator('#progress-text')).toHaveText('Cancelled.');
  await expect(page.locator('#cancel')).toBeHidden();
  await expect(page.locator('#run')).toBeEnabled();
  await expect(page.locator('#error')).toBeHidden();
});

test('untrusted markup in a document is shown as text and runs nothing', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await ready(page);
  await page.setInputFiles('#file-input', fixture('xss.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'done', { timeout: OCR_TIMEOUT });
  const md = (await page.locator('#md-text').textContent()) ?? '';
  expect(md.length).toBeGreaterThan(20);
  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  // Nothing the model wrote became an element with a handler or a script.
  expect(await page.locator('#md-preview script, #md-preview img[onerror], #md-preview [onerror]').count()).toBe(0);
  // Whatever markup the model read is visible as characters in the preview.
  if (md.includes('&lt;')) await expect(page.locator('#md-preview')).toContainText('<');
});
