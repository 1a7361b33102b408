// The headless CLI as a user runs it: a PDF with a figure gives Markdown plus the figure crop it
// links; bad input gives a one-line error and exit code 1.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { linkedImages } from '../../src/markdown/export';

const run = promisify(execFile);
const CLI = ['--import', './tools/node/register.mjs', '--import', 'tsx', 'tools/cli/ocr.ts'];
const dir = mkdtempSync(join(tmpdir(), 'gocr-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ocr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [...CLI, ...args], { cwd: process.cwd(), maxBuffer: 1 << 24 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('npm run ocr', () => {
  it('writes the Markdown and, beside it, the figure crops it links', async () => {
    // a name with a space and parentheses: the crops' names must still be bare link targets
    const out = join(dir, 'fig (1).md');
    const trace = join(dir, 'trace.json');
    const r = await ocr(['e2e/fixtures/figure-sample.pdf', '-o', out, '--backend', 'cpu', '--trace', trace]);
    expect(r.code, r.stderr).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toMatch(/^#{1,2} Field Yield$/m);
    const figs = linkedImages(md);
    expect(figs).toHaveLength(1);
    // named after the output file, so two documents written into one folder keep their own figures
    expect(figs[0]).toMatch(/^fig_1_-page1-figure\d+\.png$/);
    const png = readFileSync(join(dir, figs[0]));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // the chart is 420×240 CSS px, i.e. about 656×375 px at 150 dpi
    const w = png.readUInt32BE(16), h = png.readUInt32BE(20);
    expect(w).toBeGreaterThan(500);
    expect(w).toBeLessThan(900);
    expect(h).toBeGreaterThan(280);
    expect(h).toBeLessThan(600);
    // the trace names the figure and its size, without the pixels
    const t = JSON.parse(readFileSync(trace, 'utf8')) as { pages: { figures: Array<Record<string, unknown>> }[] };
    expect(t.pages[0].figures).toEqual([{ name: figs[0], regionId: expect.any(Number), width: w, height: h }]);
  }, 240_000);

  it('reads a poster-sized page at a resolution under the pixel cap instead of running out of memory', async () => {
    // 200 × 150 in: 30000 × 22500 px (675 M) at 150 dpi
    // e2e/fixtures/poster.pdf: two lines of 600 pt text, "Pixels stay on the machine." and
    // "Large pages are drawn smaller." (e2e/fixtures/poster.mjs)
    const r = await ocr(['e2e/fixtures/poster.pdf', '-o', join(dir, 'poster.md'), '--backend', 'cpu']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/page 1: .*drawn at 23\.\d dpi/);
    const md = readFileSync(join(dir, 'poster.md'), 'utf8').toLowerCase();
    expect(md).toContain('stay on the machine');
    expect(md).toContain('drawn smaller');
  }, 240_000);

  it('refuses a file that is not a PDF or an image, and unknown options, with exit code 1', async () => {
    const bad = await ocr(['e2e/fixtures/not-a-pdf.pdf', '-o', join(dir, 'bad.md')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^ocr: .*not a PDF/m);
    expect(existsSync(join(dir, 'bad.md'))).toBe(false);
    const opt = await ocr(['e2e/fixtures/sample.pdf', '--speed', 'fast']);
    expect(opt.code).toBe(1);
    expect(opt.stderr).toContain('unknown option --speed');
  }, 120_000);
});

