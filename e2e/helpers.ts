// Shared e2e helpers: dropping a file onto the page like a user would, and a request log that
// proves nothing leaves the app's origin.
import type { Page, Request } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export const fixture = (name: string): string => join(import.meta.dirname, 'fixtures', name);

/** Dispatches a real drag-and-drop of a file from disk onto the window. */
export async function dropFile(page: Page, path: string, mime = 'application/pdf'): Promise<void> {
  const b64 = readFileSync(path).toString('base64');
  const dt = await page.evaluateHandle(
    ({ b64, name, mime }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const d = new DataTransfer();
      d.items.add(new File([bytes], name, { type: mime }));
      return d;
    },
    { b64, name: basename(path), mime },
  );
  await page.dispatchEvent('#dropzone', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: dt });
}

export function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => seen.push(r));
  return seen;
}

export function foreignRequests(reqs: Request[], origin: string): string[] {
  return reqs.map((r) => r.url()).filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
}
