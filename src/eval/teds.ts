// TEDS (tree-edit-distance-based similarity, PubTabNet: Zhong et al. 2020) for HTML tables.
// Both tables are first brought to the corpus's normal form by parseTable from
// tools/synth/normalize.ts (thead/tbody dropped, th → td, only colspan/rowspan kept, cell text
// normalized), then read as a tree table → tr → td. Costs: insert/delete 1; rename 1 when the tags
// differ or a td's colspan/rowspan differ, otherwise for two td the normalized Levenshtein distance
// of their contents (code points), else 0.
//   TEDS = 1 − TED(pred, ref) / max(|pred|, |ref|)   (|T| = node count)
// TEDS-struct sets every content cost to 0. A prediction without a single cell scores 0 against a
// reference with cells (PubTabNet scores an unparseable prediction 0); two cell-less tables score 1.
import { parseTable, type TableCell } from '../../tools/synth/normalize.ts';
import { chars, normalizedLevenshtein } from './levenshtein.ts';
import { treeEditDistance, treeSize, type EditCosts, type Tree } from './tree-edit.ts';

export interface TableNode {
  tag: 'table' | 'tr' | 'td';
  colspan: number;
  rowspan: number;
  /** Cell text as code points (td only). */
  content: string[];
}

export function tableTree(html: string): Tree<TableNode> {
  return rowsTree(parseTable(html));
}

export function rowsTree(rows: TableCell[][]): Tree<TableNode> {
  const node = (tag: TableNode['tag'], children: Tree<TableNode>[] = [], c?: TableCell): Tree<TableNode> => ({
    value: { tag, colspan: c?.colspan ?? 1, rowspan: c?.rowspan ?? 1, content: c ? chars(c.text) : [] },
    children,
  });
  return node('table', rows.map((r) => node('tr', r.map((c) => node('td', [], c)))));
}

function costs(structOnly: boolean): EditCosts<TableNode> {
  return {
    insert: () => 1,
    delete: () => 1,
    rename(a, b) {
      if (a.tag !== b.tag) return 1;
      if (a.tag !== 'td') return 0;
      if (a.colspan !== b.colspan || a.rowspan !== b.rowspan) return 1;
      return structOnly ? 0 : normalizedLevenshtein(a.content, b.content);
    },
  };
}

export interface TedsScores {
  teds: number;
  tedsStruct: number;
}

function cellCount(t: Tree<TableNode>): number {
  return t.children.reduce((s, r) => s + r.children.length, 0);
}

function score(p: Tree<TableNode>, r: Tree<TableNode>, structOnly: boolean): number {
  const pc = cellCount(p), rc = cellCount(r);
  if (pc === 0 || rc === 0) return pc === rc ? 1 : 0;
  const d = treeEditDistance(p, r, costs(structOnly));
  return 1 - d / Math.max(treeSize(p), treeSize(r));
}

export function teds(pred: string, ref: string, opts: { structOnly?: boolean } = {}): number {
  return score(tableTree(pred), tableTree(ref), opts.structOnly ?? false);
}

export function tedsBoth(pred: string, ref: string): TedsScores {
  const p = tableTree(pred), r = tableTree(ref);
  return { teds: score(p, r, false), tedsStruct: score(p, r, true) };
}
