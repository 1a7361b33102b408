/** Chromium side of the generator: tabs, layout measurement, CDP screenshots, print-to-PDF, degradation. */
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

export const CHROMIUM = process.env.SYNTH_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--font-render-hinting=none',
  '--disable-lcd-text',
  '--force-color-profile=srgb',
];

const HERE = dirname(fileURLToPath(import.meta.url));
const SHELL = pathToFileURL(join(HERE, 'shell.html')).href;

export interface MeasuredRegion {
  k: number;
  cls: string;
  box: [number, number, number, number];
  lines: { box: [number, number, number, number]; text: string | null }[];
}
export interface Measured {
  regions: MeasuredRegion[];
  removed: number;
  width: number;
  height: number;
}

export interface DegradeParams {
  seed: number;
  angleDeg: number;
  blur: number;
  noise: number;
  jpeg: number;
}

interface Tab {
  page: Page;
  cdp: CDPSession;
}

export class Renderer {
  private constructor(
    private browser: Browser,
    private ctx: BrowserContext,
    private tabs: Tab[],
    readonly scale: number,
    private clipScale: number,
  ) {}

  static async launch(opts: { dpi: number; tabs: number; maxW?: number; maxH?: number }): Promise<Renderer> {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const scale = opts.dpi / 96;
    // one viewport for the whole run (resizing per page garbles screenshots); pages are clipped
    const ctx = await browser.newContext({ viewport: { width: opts.maxW ?? 816, height: opts.maxH ?? 1123 }, deviceScaleFactor: scale });
    const tabs: Tab[] = [];
    for (let i = 0; i < opts.tabs; i++) {
      const page = await ctx.newPage();
      await page.goto(SHELL);
      await page.evaluate('synthWarm()');
      const cdp = await ctx.newCDPSession(page);
      tabs.push({ page, cdp });
    }
    // the CDP clip scale is relative to CSS pixels: scale it to the device pixels
    return new Renderer(browser, ctx, tabs, scale, scale);
  }

  get tabCount(): number {
    return this.tabs.length;
  }

  async checkFonts(families: string[]): Promise<Record<string, { ok: boolean; width: number }>> {
    return (await this.tabs[0].page.evaluate(`synthCheckFonts(${JSON.stringify(families)})`)) as Record<string, { ok: boolean; width: number }>;
  }

  async layout(tab: number, html: string): Promise<Measured> {
    return (await this.tabs[tab].page.evaluate(`synthRender(${JSON.stringify(html)})`)) as Measured;
  }

  async screenshot(tab: number, widthCss: number, heightCss: number): Promise<Buffer> {
    const r = (await this.tabs[tab].cdp.send('Page.captureScreenshot', {
      format: 'png',
      clip: { x: 0, y: 0, width: widthCss, height: heightCss, scale: this.clipScale },
      optimizeForSpeed: true,
      captureBeyondViewport: false,
      fromSurface: true,
    })) as { data: string };
    return Buffer.from(r.data, 'base64');
  }

  async pdf(tab: number, widthCss: number, heightCss: number): Promise<Buffer> {
    const pdf = await this.tabs[tab].page.pdf({ width: `${widthCss}px`, height: `${heightCss}px`, printBackground: true, margin: { top: '0', left: '0', right: '0', bottom: '0' }, pageRanges: '1' });
    return fixPdfDates(pdf);
  }

  async degrade(tab: number, png: Buffer, p: DegradeParams): Promise<Buffer> {
    const b64 = (await this.tabs[tab].page.evaluate(`synthDegrade(${JSON.stringify(png.toString('base64'))}, ${JSON.stringify(p)})`)) as string;
    return Buffer.from(b64, 'base64');
  }

  async close(): Promise<void> {
    await this.ctx.close().catch(() => undefined);
    await this.browser.close().catch(() => undefined);
  }
}

/** Chromium stamps CreationDate/ModDate: replace them in place (same length, xref stays valid) so PDFs are reproducible. */
export function fixPdfDates(pdf: Buffer): Buffer {
  const s = pdf.toString('latin1').replace(/D:\d{14}([+\-Z][0-9'+\-Z]*)?/g, (m) => ('D:20000101000000' + "+00'00'").slice(0, m.length).padEnd(m.length, ' '));
  return Buffer.from(s, 'latin1');
}
