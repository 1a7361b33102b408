// The decoding trace of a region: tokens coloured by the round that committed them, every round's
// draft with accepted / rejected tokens, and a bar chart of accepted drafts per round (uPlot).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { OCR_DPI, type PageResult, type RegionResult, type RoundView } from '../engine/types';
import type { Method } from '../decoding/trace';
import type { PageAnalysis } from '../worker/api';

const ROUND_HUES = [210, 30, 140, 280, 0, 180, 60, 320];

export function roundColor(round: number): string {
  return `hsl(${ROUND_HUES[round % ROUND_HUES.length]} 70% 50% / 0.22)`;
}

function show(t: string): string {
  return t === '\n' ? '⏎' : t === ' ' ? '·' : t;
}

function dl(rows: Array<[string, string]>): HTMLElement {
  const d = document.createElement('dl');
  d.className = 'kv';
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.dataset.key = k;
    dd.textContent = v;
    d.append(dt, dd);
  }
  return d;
}

const fmtDpi = (d: number): string => (Number.isInteger(d) ? String(d) : d.toFixed(1));

/** `dpi`: the resolution the page was drawn at (null: an image, read at its own pixels). */
export function pageStatsHtml(index: number, numPages: number, a: (PageAnalysis & { backend?: string }) | undefined, res: PageResult | undefined, dpi: number | null): HTMLElement {
  const rows: Array<[string, string]> = [['Page', `${index + 1} of ${numPages}`]];
  if (a) {
    rows.push(['Rendered at', `${a.width} × ${a.height} px${dpi === null ? '' : ` (${fmtDpi(dpi)} dpi${dpi < OCR_DPI ? `, lowered from ${OCR_DPI} for a page this large` : ''})`}`]);
    rows.push(['Content box', a.contentBox ? `x ${a.contentBox.x0}–${a.contentBox.x1}, y ${a.contentBox.y0}–${a.contentBox.y1}` : 'blank page']);
    if (a.backend) rows.push(['Computed on', a.backend]);
  }
  if (res) {
    const s = res.stats;
    rows.push(['Regions', String(s.regions)]);
    rows.push(['Method', res.method]);
    rows.push(['Rounds', String(s.rounds)]);
    rows.push(['Forwards', String(s.forwards)]);
    rows.push(['Tokens', String(s.tokens)]);
    rows.push(['TPF', s.tpf.toFixed(2)]);
    rows.push(['Decode tok/s', s.tokPerS.toFixed(1)]);
    rows.push(['Time', `layout ${s.layoutMs.toFixed(0)} ms · vision ${s.visionMs.toFixed(0)} ms · decode ${s.decodeMs.toFixed(0)} ms`]);
    rows.push(['Decoder', res.backend]);
  }
  return dl(rows);
}

export function renderRegionDetail(host: HTMLElement, r: RegionResult, method: Method, dpi: number | null): void {
  const h = document.createElement('h3');
  h.textContent = `${r.order + 1}. ${r.cls.replace('_', ' ')}${r.task ? ` — read as ${r.task}` : ' — kept as image, not read'}`;
  host.append(h);
  if (!r.task) return;
  const accepted = r.rounds.map((x) => x.accepted);
  host.append(
    dl([
      ['Strips', `${r.strips}${r.task === 'text' && r.strips > 1 ? ' (read line by line, in one batch)' : ''}`],
      ['Read at', dpi === null ? 'the image file\'s pixels (shrunk only past the page pixel cap)' : (r.detail ?? 1) > 1 ? `${fmtDpi(dpi * r.detail!)} dpi (re-rendered from the PDF)` : `${fmtDpi(dpi)} dpi`],
      ['Rounds', String(r.rounds.length)],
      ['Forwards', String(r.forwards.ar + r.forwards.draft + r.forwards.verify + r.forwards.cacheWrite)],
      ['TPF', r.tpf.toFixed(2)],
      ['Mean accepted / round', accepted.length ? (accepted.reduce((a, b) => a + b, 0) / accepted.length).toFixed(2) : '–'],
      ['Stop', r.stop],
    ]),
  );

  const tokHead = document.createElement('h4');
  tokHead.textContent = 'Tokens by round (click one to see its round)';
  const toks = document.createElement('div');
  toks.className = 'tokens';
  toks.setAttribute('role', 'list');
  const rounds = document.createElement('ol');
  rounds.className = 'rounds';
  let unit = r.tokens[0]?.unit ?? 0;
  for (const t of r.tokens) {
    if ((t.unit ?? 0) !== unit) {
      unit = t.unit ?? 0;
      toks.append(document.createElement('br')); // next line of a text region (read as its own sequence)
    }
    const s = document.createElement('button');
    s.type = 'button';
    s.className = 'tok' + (t.verifierToken ? ' verifier' : '');
    s.style.background = roundColor(t.round);
    s.textContent = show(t.text);
    s.title = `round ${t.round + 1}${t.verifierToken ? ' (verifier token)' : ''}`;
    s.dataset.round = String(t.round);
    s.addEventListener('click', () => rounds.querySelector<HTMLElement>(`[data-round="${t.round}"]`)?.scrollIntoView({ block: 'nearest' }));
    toks.append(s);
  }
  host.append(tokHead, toks);

  if (method === 'selfspec' && r.rounds.length) {
    const ch = document.createElement('h4');
    ch.textContent = 'Accepted drafts per round';
    const chart = document.createElement('div');
    chart.className = 'chart';
    host.append(ch, chart);
    drawAcceptedChart(chart, accepted);
  }

  const rh = document.createElement('h4');
  rh.textContent = 'Rounds';
  host.append(rh, rounds);
  for (const rd of r.rounds) rounds.append(roundItem(rd, method));
}

function roundItem(rd: RoundView, method: Method): HTMLElement {
  const li = document.createElement('li');
  li.dataset.round = String(rd.round);
  li.style.borderLeftColor = roundColor(rd.round).replace('/ 0.22', '/ 0.9');
  const head = document.createElement('div');
  head.className = 'round-head';
  head.textContent =
    method === 'selfspec'
      ? `Round ${rd.round + 1}${rd.unit ? ` (line ${rd.unit + 1})` : ''}: a0 ${JSON.stringify(rd.a0 ?? '')}, ${rd.accepted} of ${rd.drafted.length} drafts accepted, committed ${rd.committed.length}`
      : `Round ${rd.round + 1}: committed ${rd.committed.length}`;
  li.append(head);
  if (method === 'selfspec' && rd.drafted.length) {
    const d = document.createElement('div');
    d.className = 'draft';
    rd.drafted.forEach((t, j) => {
      const s = document.createElement('span');
      s.textContent = show(t);
      s.className = j < rd.accepted ? 'ok' : j === rd.accepted && rd.rejected ? 'rejected' : 'dropped';
      if (j === rd.accepted && rd.rejected) s.title = `rejected: the verifier wrote ${JSON.stringify(rd.rejected.replacement)}`;
      d.append(s);
    });
    if (rd.rejected) {
      const rep = document.createElement('span');
      rep.className = 'replacement';
      rep.textContent = ` → ${show(rd.rejected.replacement)}`;
      d.append(rep);
    }
    li.append(d);
  }
  return li;
}

function drawAcceptedChart(host: HTMLElement, accepted: number[]): void {
  const xs = accepted.map((_, i) => i + 1);
  const width = Math.max(240, host.clientWidth || 320);
  new uPlot(
    {
      width,
      height: 140,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [{ label: 'round' }, { label: 'accepted' }],
      series: [{}, { stroke: '#3b5bdb', fill: 'rgba(59,91,219,0.35)', paths: uPlot.paths.bars!({ size: [0.8, 40] }), points: { show: false } }],
    },
    [xs, accepted],
    host,
  );
}
