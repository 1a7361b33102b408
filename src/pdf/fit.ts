// How large a page may be drawn for the OCR engine. A page is read at OCR_DPI, but a poster or a
// drawing sheet at that resolution is hundreds of megapixels: more than a canvas may hold, and a
// page's pixels are copied several times on their way through the engine. Such a page is drawn at
// the highest resolution under both caps instead; its print is large, so it stays legible.
// DOM-free: the app (pdf.js in the page) and the CLI (pdf.js in Node) use the same rule.

/** At most this many pixels per page image (64 MiB as RGBA; A1 at 150 dpi is 17.5 M). */
export const MAX_PAGE_PIXELS = 16_000_000;
/** At most this many pixels on a page image's longer side. */
export const MAX_PAGE_SIDE = 8192;

/**
 * The resolution (≤ `dpi`) at which a page of `widthPt` × `heightPt` PDF points is drawn: `dpi`
 * itself unless that breaks MAX_PAGE_PIXELS or MAX_PAGE_SIDE. The rendered size is
 * round(side · dpi / 72), so the result is nudged down until the rounded size fits too.
 */
export function fitDpi(widthPt: number, heightPt: number, dpi: number): number {
  if (!(widthPt > 0 && heightPt > 0 && Number.isFinite(widthPt) && Number.isFinite(heightPt))) {
    throw new RangeError(`page size must be positive, got ${widthPt} × ${heightPt} pt`);
  }
  if (!(dpi > 0 && Number.isFinite(dpi))) throw new RangeError(`dpi must be positive, got ${dpi}`);
  const px = (d: number) => [Math.round((widthPt * d) / 72), Math.round((heightPt * d) / 72)] as const;
  const fits = (d: number) => {
    const [w, h] = px(d);
    return w * h <= MAX_PAGE_PIXELS && Math.max(w, h) <= MAX_PAGE_SIDE;
  };
  if (fits(dpi)) return dpi;
  const byArea = 72 * Math.sqrt(MAX_PAGE_PIXELS / (widthPt * heightPt));
  const bySide = (72 * MAX_PAGE_SIDE) / Math.max(widthPt, heightPt);
  let d = Math.min(dpi, byArea, bySide);
  while (!fits(d)) d *= 0.999;
  return d;
}

/**
 * The factor (≤ 1) by which an image of `width` × `height` pixels is shrunk to fit the same caps
 * (images are read at their own pixels; only oversized ones are scaled down).
 */
export function fitScale(width: number, height: number): number {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RangeError(`image size must be positive, got ${width} × ${height} px`);
  }
  // an image of w × h px is a page of w × h points drawn at 72 dpi
  return fitDpi(width, height, 72) / 72;
}
