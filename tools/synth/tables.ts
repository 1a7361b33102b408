/** Seeded table content generator: modest tables (2-6 rows, 2-5 cols, short cells) with colspan/rowspan. */
import { Rng } from './rng.ts';
import type { TableCell } from './normalize.ts';
import { normalizeText } from './normalize.ts';

export interface GenCell extends TableCell {
  header: boolean;
  numeric: boolean;
}

const UNITS = ['ms', 's', 'MB', 'GB', 'kg', 'g', 'm', 'cm', 'mm', 'Hz', 'kHz', 'V', 'mA', 'W', '%', 'K', 'dB', 'px'];
const HEAD_WORDS = ['Mean', 'Median', 'Total', 'Count', 'Score', 'Rate', 'Size', 'Time', 'Error', 'Value', 'Loss', 'Ratio', 'Length', 'Width', 'Speed', 'Cost', 'Year', 'Accuracy', 'Version', 'Memory', 'Weight', 'Load', 'Gain', 'Delay', 'Level', 'Min', 'Max', 'Std'];

function cap(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

export class TableGen {
  constructor(
    private rng: Rng,
    private words: string[],
  ) {}

  private word(maxLen = 10): string {
    for (let i = 0; i < 20; i++) {
      const w = this.rng.pick(this.words);
      if (w.length <= maxLen) return w;
    }
    return this.rng.pick(this.words).slice(0, maxLen);
  }

  private label(): string {
    const r = this.rng;
    const n = r.weighted([[1, 5], [2, 3], [3, 1]] as const);
    const ws: string[] = [];
    for (let i = 0; i < n; i++) ws.push(this.word(9));
    let s = ws.join(' ');
    if (r.chance(0.7)) s = cap(s);
    if (r.chance(0.1)) s += ' ' + r.pick(['A', 'B', 'I', 'II', '(a)', '(b)', String(r.int(1, 9))]);
    return s;
  }

  private numberFormat(): (r: Rng) => string {
    const r = this.rng;
    const kind = r.int(0, 6);
    const dec = r.int(0, 3);
    const scale = r.pick([1, 10, 100, 1000, 10000]);
    const unit = r.chance(0.3) ? r.pick(UNITS) : '';
    return (q: Rng) => {
      const v = q.next() * scale;
      let s: string;
      switch (kind) {
        case 0:
          s = String(Math.round(v));
          break;
        case 1:
          s = v.toFixed(dec);
          break;
        case 2:
          s = (q.next() * 100).toFixed(Math.min(dec, 1)) + '%';
          break;
        case 3:
          s = `${v.toFixed(dec)} ± ${(v * q.range(0.01, 0.2)).toFixed(dec)}`;
          break;
        case 4:
          s = (q.chance(0.3) ? '-' : '') + v.toFixed(dec);
          break;
        case 5:
          s = Math.round(v).toLocaleString('en-US');
          break;
        default:
          s = `${q.next().toFixed(Math.max(2, dec))}`;
      }
      return unit && kind !== 2 ? `${s} ${unit}` : s;
    };
  }

  /** rows of cells in HTML grid order (spanned positions omitted), header rows first */
  generate(maxCols: number): { rows: GenCell[][]; headerRows: number } {
    const r = this.rng;
    const nCols = r.int(2, Math.max(2, Math.min(5, maxCols)));
    const twoRowHeader = nCols >= 3 && r.chance(0.3);
    const headerRows = twoRowHeader ? 2 : 1;
    const totalRows = r.int(Math.max(2, headerRows + 1), 6);
    const bodyRows = totalRows - headerRows;
    const colKinds: ('num' | 'word')[] = [];
    for (let c = 1; c < nCols; c++) colKinds.push(r.chance(0.7) ? 'num' : 'word');
    const fmts = colKinds.map(() => this.numberFormat());
    const hc = (text: string, colspan = 1, rowspan = 1): GenCell => ({ text: normalizeText(text), colspan, rowspan, header: true, numeric: false });
    const rows: GenCell[][] = [];
    const headName = (c: number) => {
      const base = r.chance(0.6) ? r.pick(HEAD_WORDS) : cap(this.word(9));
      return colKinds[c - 1] === 'num' && r.chance(0.3) ? `${base} (${r.pick(UNITS)})` : base;
    };
    const firstHead = r.chance(0.7) ? r.pick(['Method', 'Name', 'Item', 'Model', 'Setting', 'Type', 'Case', 'Group', 'Dataset', 'Option']) : cap(this.word(9));
    if (twoRowHeader) {
      // [first rowspan=2][group colspan=g][rest rowspan=2 ...] / [sub ...]
      const g = r.int(2, nCols - 1);
      const start = 1;
      const row0: GenCell[] = [hc(firstHead, 1, 2), hc(cap(this.word(10)), g, 1)];
      for (let c = start + g; c < nCols; c++) row0.push(hc(headName(c), 1, 2));
      const row1: GenCell[] = [];
      for (let c = start; c < start + g; c++) row1.push(hc(headName(c)));
      rows.push(row0, row1);
    } else {
      const row0: GenCell[] = [hc(firstHead)];
      for (let c = 1; c < nCols; c++) row0.push(hc(headName(c)));
      rows.push(row0);
    }
    // body with an optional rowspan group label in the first column
    const spanAt = bodyRows >= 3 && r.chance(0.3) ? r.int(0, bodyRows - 2) : -1;
    const spanLen = spanAt >= 0 ? r.int(2, Math.min(3, bodyRows - spanAt)) : 0;
    const colspanRow = spanAt < 0 && bodyRows >= 2 && nCols >= 3 && r.chance(0.15) ? r.int(0, bodyRows - 1) : -1;
    for (let i = 0; i < bodyRows; i++) {
      const row: GenCell[] = [];
      const inSpan = spanAt >= 0 && i >= spanAt && i < spanAt + spanLen;
      if (!inSpan || i === spanAt) {
        row.push({ text: normalizeText(this.label()), colspan: 1, rowspan: inSpan ? spanLen : 1, header: false, numeric: false });
      }
      if (colspanRow === i && !inSpan) {
        // a merged body row (e.g. a note or section label across the data columns)
        row.push({ text: normalizeText(r.chance(0.5) ? cap(this.word(10)) : this.label()), colspan: nCols - 1, rowspan: 1, header: false, numeric: false });
      } else {
        for (let c = 1; c < nCols; c++) {
          const num = colKinds[c - 1] === 'num';
          const text = num ? fmts[c - 1](r) : r.chance(0.5) ? this.word(10) : r.chance(0.5) ? r.pick(['yes', 'no', 'n/a', '-', 'high', 'low']) : this.label();
          row.push({ text: normalizeText(text), colspan: 1, rowspan: 1, header: false, numeric: num });
        }
      }
      rows.push(row);
    }
    return { rows, headerRows };
  }
}
