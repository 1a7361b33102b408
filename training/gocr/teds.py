"""TEDS (Tree-Edit-Distance-based Similarity, PubTabNet) for HTML tables, from scratch.

Tree: table > (thead|tbody)? > tr > td/th. A cell node carries tag, colspan, rowspan and its text
(characters). Costs: insert = delete = 1; rename = 1 if tag/colspan/rowspan differ, else for cells
the normalized edit distance of their text (0 for TEDS-struct), else 0.
TEDS = 1 - TED(pred, ref) / max(|pred|, |ref|) with |.| the node counts; 0 when the prediction
has no <table>. TED is Zhang-Shasha's ordered tree edit distance.
"""
from html.parser import HTMLParser

from .metrics import edit_distance

CELLS = ("td", "th")
KEEP = ("table", "thead", "tbody", "tr") + CELLS


class Node:
    __slots__ = ("tag", "colspan", "rowspan", "text", "children")

    def __init__(self, tag, colspan=1, rowspan=1):
        self.tag, self.colspan, self.rowspan, self.text, self.children = tag, colspan, rowspan, [], []


class _Parser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root, self.stack = None, []

    def handle_starttag(self, tag, attrs):
        if tag not in KEEP:
            return
        a = dict(attrs)

        def span(k):
            try:
                return int(a.get(k) or 1)
            except ValueError:
                return 1
        n = Node(tag, span("colspan"), span("rowspan"))
        if tag == "table":
            if self.root is None:
                self.root = n
                self.stack = [n]
            return
        if not self.stack:
            return
        # implicit close: a new cell/row closes an open cell; a new row/section closes an open row
        while self.stack[-1].tag in CELLS and tag in CELLS + ("tr", "thead", "tbody"):
            self.stack.pop()
        while self.stack[-1].tag == "tr" and tag in ("tr", "thead", "tbody"):
            self.stack.pop()
        self.stack[-1].children.append(n)
        self.stack.append(n)

    def handle_endtag(self, tag):
        if tag not in KEEP or not self.stack:
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if self.stack and self.stack[-1].tag in CELLS:
            self.stack[-1].text.extend(data)


def parse_table(html):
    p = _Parser()
    try:
        p.feed(html)
        p.close()
    except Exception:  # malformed model output: whatever was parsed so far
        pass
    return p.root


def _postorder(root):
    nodes, lmd = [], []

    def walk(n):
        first = None
        for c in n.children:
            l = walk(c)
            first = l if first is None else first
        nodes.append(n)
        idx = len(nodes) - 1
        lmd.append(idx if first is None else first)
        return lmd[idx]
    walk(root)
    return nodes, lmd


def _rename(a, b, struct_only):
    if a.tag != b.tag or a.colspan != b.colspan or a.rowspan != b.rowspan:
        return 1.0
    if a.tag in CELLS and not struct_only:
        n = max(len(a.text), len(b.text))
        return edit_distance(a.text, b.text) / n if n else 0.0
    return 0.0


def tree_edit_distance(t1, t2, struct_only=False):
    """Zhang-Shasha with unit insert/delete and the TEDS rename cost."""
    n1, l1 = _postorder(t1)
    n2, l2 = _postorder(t2)
    kr1 = [i for i in range(len(n1)) if all(l1[j] != l1[i] for j in range(i + 1, len(n1)))]
    kr2 = [j for j in range(len(n2)) if all(l2[k] != l2[j] for k in range(j + 1, len(n2)))]
    td = [[0.0] * len(n2) for _ in n1]
    for i in kr1:
        for j in kr2:
            li, lj = l1[i], l2[j]
            m, n = i - li + 2, j - lj + 2
            fd = [[0.0] * n for _ in range(m)]
            for x in range(1, m):
                fd[x][0] = fd[x - 1][0] + 1
            for y in range(1, n):
                fd[0][y] = fd[0][y - 1] + 1
            for x in range(1, m):
                for y in range(1, n):
                    a, b = li + x - 1, lj + y - 1
                    if l1[a] == li and l2[b] == lj:
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1,
                                       fd[x - 1][y - 1] + _rename(n1[a], n2[b], struct_only))
                        td[a][b] = fd[x][y]
                    else:
                        p, q = l1[a] - li, l2[b] - lj
                        fd[x][y] = min(fd[x - 1][y] + 1, fd[x][y - 1] + 1, fd[p][q] + td[a][b])
    return td[-1][-1]


def count_nodes(t):
    return 1 + sum(count_nodes(c) for c in t.children)


def teds(pred_html, ref_html, struct_only=False):
    ref = parse_table(ref_html)
    pred = parse_table(pred_html)
    if ref is None:
        return 1.0 if pred is None else 0.0
    if pred is None:
        return 0.0
    d = tree_edit_distance(pred, ref, struct_only)
    return 1.0 - d / max(count_nodes(pred), count_nodes(ref))
