// Peer scoring lives in src/eval/units.ts (unit tested in CI); these adapters take page truths.
import { summarizeUnits, textRegionEdits as edits, type TextUnit, type UnitPage, type UnitSummary } from '../../src/eval/units.ts';
import type { EditCount } from '../../src/eval/text.ts';
import type { PageTruth } from './pages.ts';

export type PeerPage = UnitPage;
export type PeerSummary = UnitSummary;

export function textRegionEdits(truth: PageTruth, units: TextUnit[]): EditCount[] {
  return edits(truth.regions, units);
}

export function summarizePeer(pages: PeerPage[], truths: Map<string, PageTruth>, samePages?: Set<string>): PeerSummary {
  return summarizeUnits(pages, new Map([...truths].map(([k, t]) => [k, t.regions])), samePages);
}
