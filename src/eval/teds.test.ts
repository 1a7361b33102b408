import { describe, expect, it } from 'vitest';
import { tableTree, teds, tedsBoth } from './teds.ts';
import { treeEditDistance, treeSize, type Tree } from './tree-edit.ts';

const t = (label: string, ...children: Tree<string>[]): Tree<string> => ({ value: label, children });
const unit = { insert: () => 1, delete: () => 1, rename: (a: string, b: string) => (a === b ? 0 : 1) };

/** Independent oracle: the recursive forest edit distance (Tai / Zhang–Shasha recurrence), memoized. */
function bruteForce(a: Tree<string>, b: Tree<string>): number {
  const key = (f: Tree<string>[]) => JSON.stringify(f);
  const size = (f: Tree<string>[]) => f.reduce((s, x) => s + treeSize(x), 0);
  const memo = new Map<string, number>();
  const d = (F: Tree<string>[], G: Tree<string>[]): number => {
    if (F.length === 0) return size(G);
    if (G.length === 0) return size(F);
    const k = key(F) + '|' + key(G);
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    const v = F[F.length - 1], w = G[G.length - 1];
    const Fv = [...F.slice(0, -1), ...v.children];
    const Gw = [...G.slice(0, -1), ...w.children];
    const r = Math.min(
      d(Fv, G) + 1,
      d(F, Gw) + 1,
      d(v.children, w.children) + d(F.slice(0, -1), G.slice(0, -1)) + unit.rename(v.value, w.value),
    );
    memo.set(k, r);
    return r;
  };
  return d([a], [b]);
}

function randomTree(rng: () => number, n: number, labels: string): Tree<string> {
  const nodes: Tree<string>[] = [t(labels[Math.floor(rng() * labels.length)])];
  for (let i = 1; i < n; i++) {
    const parent = nodes[Math.floor(rng() * nodes.length)];
    const child = t(labels[Math.floor(rng() * labels.length)]);
    parent.children.push(child);
    nodes.push(child);
  }
  return nodes[0];
}

describe('tree edit distance (Zhang–Shasha)', () => {
  it('reproduces the example of Zhang & Shasha (1989): distance 2', () => {
    const a = t('f', t('d', t('a'), t('c', t('b'))), t('e'));
    const b = t('f', t('c', t('d', t('a'), t('b'))), t('e'));
    expect(treeEditDistance(a, b, unit)).toBe(2);
  });
  it('handles single nodes and chains', () => {
    expect(treeEditDistance(t('a'), t('a'), unit)).toBe(0);
    expect(treeEditDistance(t('a'), t('b'), unit)).toBe(1);
    expect(treeEditDistance(t('a', t('b', t('c'))), t('a'), unit)).toBe(2);
    expect(treeEditDistance(t('a'), t('a', t('b'), t('c'), t('d')), unit)).toBe(3);
  });
  it('agrees with a brute-force recursion on random small trees', () => {
    let s = 12345;
    const rng = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (let k = 0; k < 60; k++) {
      const a = randomTree(rng, 1 + Math.floor(rng() * 7), 'abc');
      const b = randomTree(rng, 1 + Math.floor(rng() * 7), 'abc');
      expect(treeEditDistance(a, b, unit)).toBe(bruteForce(a, b));
    }
  });
  it('sizes trees', () => {
    expect(treeSize(t('a', t('b', t('c')), t('d')))).toBe(4);
  });
});

const tbl = (...rows: string[][]) => `<table>${rows.map((r) => `<tr>${r.map((c) => (c.startsWith('<td') ? c : `<td>${c}</td>`)).join('')}</tr>`).join('')}</table>`;

describe('TEDS (hand-computed)', () => {
  it('builds table → tr → td trees from the normal form', () => {
    const tree = tableTree('<table><thead><tr><th>A</th></tr></thead><tbody><tr><td colspan="2"> b  c</td></tr></tbody></table>');
    expect(tree.value.tag).toBe('table');
    expect(tree.children.map((r) => r.children.map((c) => [c.value.tag, c.value.colspan, c.value.content.join('')]))).toEqual([[['td', 1, 'A']], [['td', 2, 'b c']]]);
  });
  it('is 1 for identical tables (also after normalization)', () => {
    const ref = tbl(['a', 'b'], ['c', 'd']);
    expect(teds(ref, ref)).toBe(1);
    expect(teds('<table><tbody><tr><th>a</th><td>b</td></tr><tr><td>c</td><td> d </td></tr></tbody></table>', ref)).toBe(1);
  });
  it('charges normalized Levenshtein for a cell content error', () => {
    // nodes: table, tr, td, td = 4; "cd" → "ce" costs 1/2
    const r = tedsBoth(tbl(['ab', 'ce']), tbl(['ab', 'cd']));
    expect(r.teds).toBeCloseTo(1 - 0.5 / 4, 12);
    expect(r.tedsStruct).toBe(1);
  });
  it('charges 1 for a missing cell', () => {
    // ref 2×2 = 7 nodes; pred lacks "x" in row 2: one deletion
    const r = tedsBoth(tbl(['a', 'b'], ['y']), tbl(['a', 'b'], ['x', 'y']));
    expect(r.teds).toBeCloseTo(1 - 1 / 7, 12);
    expect(r.tedsStruct).toBeCloseTo(1 - 1 / 7, 12);
  });
  it('charges 1 for a span mismatch even when the text is right', () => {
    // 3 nodes; td colspan 2 vs colspan 1
    const r = tedsBoth(tbl(['a']), tbl(['<td colspan="2">a</td>']));
    expect(r.teds).toBeCloseTo(1 - 1 / 3, 12);
    expect(r.tedsStruct).toBeCloseTo(1 - 1 / 3, 12);
  });
  it('charges an extra row by its node count, over the larger tree', () => {
    // ref 4 nodes, pred 7 nodes: insert tr + 2 td = 3
    const r = tedsBoth(tbl(['a', 'b'], ['c', 'd']), tbl(['a', 'b']));
    expect(r.teds).toBeCloseTo(1 - 3 / 7, 12);
  });
  it('combines content costs over cells', () => {
    // 7 nodes; cells: "a"→"a" 0, "bb"→"bc" 1/2, "c"→"" 1, "dddd"→"dd" 2/4
    const r = tedsBoth(tbl(['a', 'bc'], ['', 'dd']), tbl(['a', 'bb'], ['c', 'dddd']));
    expect(r.teds).toBeCloseTo(1 - (0.5 + 1 + 0.5) / 7, 12);
    expect(r.tedsStruct).toBe(1);
  });
  it('prefers a deletion to renaming across a shifted row', () => {
    // ref [[p,q,r]] vs pred [[q,r]]: delete p (1) beats 3 content renames
    expect(teds(tbl(['q', 'r']), tbl(['p', 'q', 'r']))).toBeCloseTo(1 - 1 / 5, 12);
  });
  it('scores a prediction without cells 0, and two empty tables 1', () => {
    expect(teds('', tbl(['a']))).toBe(0);
    expect(teds('no table here', tbl(['a']))).toBe(0);
    expect(teds('<table></table>', '<table></table>')).toBe(1);
  });
  it('tolerates unclosed tags in the prediction', () => {
    expect(teds('<table><tr><td>a<td>b', tbl(['a', 'b']))).toBe(1);
  });
});
