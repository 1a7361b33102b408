// Ordered tree edit distance (Zhang & Shasha 1989) with caller-supplied costs. Trees are small
// here (an HTML table: table → tr → td), so the classic keyroot algorithm is plenty:
// O(|A|·|B|·min(depth, leaves)²) time, O(|A|·|B|) memory.

export interface Tree<T> {
  value: T;
  children: Tree<T>[];
}

export interface EditCosts<T> {
  insert(b: T): number;
  delete(a: T): number;
  rename(a: T, b: T): number;
}

interface Flat<T> {
  /** Node values in postorder. */
  values: T[];
  /** Postorder index of each node's leftmost leaf descendant. */
  lld: Int32Array;
  /** Keyroots in ascending postorder: nodes with no ancestor sharing their leftmost leaf. */
  keyroots: number[];
}

function flatten<T>(root: Tree<T>): Flat<T> {
  const values: T[] = [];
  const lld: number[] = [];
  // iterative postorder so deep trees cannot overflow the stack
  const stack: { node: Tree<T>; next: number; leftmost: number }[] = [{ node: root, next: 0, leftmost: -1 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next < top.node.children.length) {
      stack.push({ node: top.node.children[top.next++], next: 0, leftmost: -1 });
      continue;
    }
    stack.pop();
    const idx = values.length;
    values.push(top.node.value);
    const leftmost = top.leftmost < 0 ? idx : top.leftmost; // a leaf is its own leftmost leaf
    lld.push(leftmost);
    const parent = stack[stack.length - 1];
    if (parent && parent.leftmost < 0) parent.leftmost = leftmost; // first finished child is the leftmost
  }
  const seen = new Set<number>();
  const keyroots: number[] = [];
  for (let i = values.length - 1; i >= 0; i--) {
    if (!seen.has(lld[i])) {
      seen.add(lld[i]);
      keyroots.push(i);
    }
  }
  keyroots.reverse();
  return { values, lld: Int32Array.from(lld), keyroots };
}

export function treeSize<T>(t: Tree<T>): number {
  let n = 0;
  const stack = [t];
  while (stack.length) {
    const x = stack.pop()!;
    n++;
    stack.push(...x.children);
  }
  return n;
}

/** Minimum total cost of node insertions, deletions and renames turning `a` into `b`. */
export function treeEditDistance<T>(a: Tree<T>, b: Tree<T>, costs: EditCosts<T>): number {
  const A = flatten(a), B = flatten(b);
  const n = A.values.length, m = B.values.length;
  const td = new Float64Array(n * m);
  const delA = A.values.map((v) => costs.delete(v));
  const insB = B.values.map((v) => costs.insert(v));
  const fd = new Float64Array((n + 1) * (m + 1));
  for (const i of A.keyroots) {
    for (const j of B.keyroots) {
      const li = A.lld[i], lj = B.lld[j];
      const rows = i - li + 2, cols = j - lj + 2;
      fd[0] = 0;
      for (let x = 1; x < rows; x++) fd[x * cols] = fd[(x - 1) * cols] + delA[li + x - 1];
      for (let y = 1; y < cols; y++) fd[y] = fd[y - 1] + insB[lj + y - 1];
      for (let x = 1; x < rows; x++) {
        const ai = li + x - 1;
        for (let y = 1; y < cols; y++) {
          const bj = lj + y - 1;
          const del = fd[(x - 1) * cols + y] + delA[ai];
          const ins = fd[x * cols + y - 1] + insB[bj];
          let best = del < ins ? del : ins;
          if (A.lld[ai] === li && B.lld[bj] === lj) {
            // both prefixes are whole trees: a rename (or match) of the two roots
            const ren = fd[(x - 1) * cols + y - 1] + costs.rename(A.values[ai], B.values[bj]);
            if (ren < best) best = ren;
            td[ai * m + bj] = best;
          } else {
            const p = A.lld[ai] - li, q = B.lld[bj] - lj;
            const sub = fd[p * cols + q] + td[ai * m + bj];
            if (sub < best) best = sub;
          }
          fd[x * cols + y] = best;
        }
      }
    }
  }
  return td[(n - 1) * m + (m - 1)];
}
