// `npm start` serves the app from Vite's dev server: the worker runs from /src/worker/ and public/
// is served at /, so this checks the models load there too and a page is read end to end.
import { expect, test } from '@playwright/test';
import { dropFile, fixture, foreignRequests, recordRequests } from './helpers';

const DEV = 'http://127.0.0.1:5174'; // npm start's dev server, on the port playwright.config.ts gives it

test('the dev server of npm start loads the embedded models and reads a page', async ({ page }) => {
  test.setTimeout(600_000);
  const reqs = recordRequests(page);
  await page.goto(`${DEV}/`);
  // the first visit makes Vite transform the worker and its dependencies
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true', { timeout: 240_000 });
  await expect(page.locator('#error')).toBeHidden();
  await expect(page.locator('#progress-text')).toContainText('Ready: ');
  await page.locator('#max-tokens').fill('100');
  await dropFile(page, fixture('figure-sample.pdf'));
  await expect(page.locator('body')).toHaveAttribute('data-ocr', 'done', { timeout: 300_000 });
  await expect(page.locator('#md-text')).toContainText('![Figure](page1-figure');
  await expect(page.locator('#md-preview img.figure')).toHaveCount(1);
  expect(foreignRequests(reqs, DEV)).toEqual([]);
});
