"""Quality metrics: edit distance, CER, normalized edit similarity (text/formula)."""


def edit_distance(a, b):
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cer(pred, ref):
    return edit_distance(pred, ref) / max(1, len(ref))


def edit_similarity(pred, ref):
    n = max(len(pred), len(ref))
    return 1.0 if n == 0 else 1.0 - edit_distance(pred, ref) / n


def normalize_latex(s):
    """Light canonicalization for formula comparison: drop whitespace."""
    return "".join(s.split())
