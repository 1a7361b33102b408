/**
 * One-off: render the committed test fixtures with Debian Chromium (run once, commit the PNGs).
 *   node --import tsx tools/vision/render_fixtures.ts
 */
import { chromium } from '@playwright/test';
import { writeFileSync } from 'node:fs';

export const LINE_TEXT = 'Invoice 2024: total due $1,284.50 by March 7.';
const PARA = [
  'The quick brown fox jumps over the lazy dog.',
  'Pack my box with five dozen liquor jugs,',
  'then ship it to 42 Elm Street before noon.',
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--disable-quic', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 300 }, deviceScaleFactor: 1 });
  const shot = async (html: string, out: string) => {
    await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff">
      <div id="t" style="display:inline-block;padding:6px 10px;font:26px 'DejaVu Sans',sans-serif;
        color:#111;line-height:1.5;white-space:pre">${html}</div></body></html>`);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const png = await page.locator('#t').screenshot({ animations: 'disabled' });
    writeFileSync(out, png);
    console.log('wrote', out);
  };
  // Warm-up capture (the first capture in a new tab renders lighter).
  await shot('warm', '/tmp/warm.png');
  await shot(LINE_TEXT, 'tools/vision/fixtures/line.png');
  await shot(PARA.join('\n'), 'tools/vision/fixtures/paragraph.png');
} finally {
  await browser.close();
}
