import { expect, test } from '@playwright/test';
import { dropFile, fixture, foreignRequests, recordRequests } from './helpers';

const ORIGIN = 'http://127.0.0.1:4173';

test('drop a PDF: pages render with thumbnails and the worker reports each page', async ({ page }) => {
  const reqs = recordRequests(page);
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');

  await dropFile(page, fixture('sample.pdf'));
  await expect(page.locator('#doc-title')).toContainText('sample.pdf — 2 pages');
  await expect(page.locator('#thumbs button')).toHaveCount(2);
  await expect(page.locator('body')).toHaveAttribute('data-state', 'analyzed');
  // Both thumbnails were rendered by pdf.js.
  for (const img of await page.locator('#thumbs img').all()) await expect(img).toHaveAttribute('src', /^data:image\/png/);
  // The worker answered for the shown page: size at 150 dpi (Chromium's A4 is 595.9×842.9 pt →
  // 1241×1756 px) and a real content box computed on WebGPU.
  await expect(page.locator('dd[data-key="Rendered at"]')).toHaveText('1241 × 1756 px (150 dpi)');
  await expect(page.locator('dd[data-key="Computed on"]')).toHaveText('webgpu');
  const box = await page.locator('dd[data-key="Content box"]').innerText();
  const m = box.match(/x (\d+)–(\d+), y (\d+)–(\d+)/);
  expect(m, box).not.toBeNull();
  const [x0, x1, y0, y1] = m!.slice(1).map(Number);
  // 2 cm margins at 150 dpi are 118 px: the ink starts just inside them.
  expect(x0).toBeGreaterThanOrEqual(110);
  expect(y0).toBeGreaterThanOrEqual(110);
  expect(x1).toBeLessThan(1240 - 110);
  expect(y1).toBeLessThan(1754 - 110);
  // The page canvas shows non-white pixels.
  const inked = await page.evaluate(() => {
    const c = document.getElementById('page-canvas') as HTMLCanvasElement;
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 128) n++;
    return n;
  });
  expect(inked).toBeGreaterThan(1000);
  // Page 2 via its thumbnail.
  await page.locator('#thumbs button[data-page="1"]').click();
  await expect(page.locator('dd[data-key="Page"]')).toHaveText('2 of 2');
  await page.screenshot({ path: 'test-results/screens/app-page.png' });
  expect(foreignRequests(reqs, ORIGIN)).toEqual([]);
});

test('a poster-sized page is drawn under the pixel cap, at a lower dpi the panel names', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  // 200 × 150 in: 30000 × 22500 px at 150 dpi, past any canvas; drawn at 23.1 dpi (16 M pixels)
  await dropFile(page, fixture('poster.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-state', 'analyzed');
  await expect(page.locator('dd[data-key="Rendered at"]')).toHaveText('4614 × 3461 px (23.1 dpi, lowered from 150 for a page this large)');
  await expect(page.locator('#error')).toBeHidden();
  const box = await page.locator('dd[data-key="Content box"]').innerText();
  expect(box).toMatch(/x \d+–\d+, y \d+–\d+/);
});

for (const [file, message] of [
  ['not-a-pdf.pdf', /not a PDF/],
  ['corrupt.pdf', /damaged/],
  ['encrypted.pdf', /password-protected/],
] as const) {
  test(`${file} gives a clear message and the app keeps working`, async ({ page }) => {
    await page.goto('/');
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await page.setInputFiles('#file-input', fixture(file));
    await expect(page.locator('#error')).toBeVisible();
    await expect(page.locator('#error')).toContainText(message);
    // Still usable: a good file opens afterwards and clears the message.
    await page.setInputFiles('#file-input', fixture('sample.pdf'));
    await expect(page.locator('#thumbs button')).toHaveCount(2);
    await expect(page.locator('#error')).toBeHidden();
  });
}

test('WGSL kernels match their CPU twins in Chromium (WebGPU on SwiftShader)', async ({ page }) => {
  await page.goto('/selftest.html');
  await expect(page.locator('body')).toHaveAttribute('data-done', 'true');
  const report = await page.evaluate(() => (window as unknown as { __selftest: { ok: boolean; adapter: string; kernels: Record<string, { ok: boolean; failures: string[] }> } }).__selftest);
  expect(report.adapter).toMatch(/google|swiftshader|nvidia|amd|intel|apple/i);
  for (const [name, k] of Object.entries(report.kernels)) expect(k.failures, name).toEqual([]);
  expect(report.ok).toBe(true);
});
