"""Regenerate tests/tokenizer_vectors.json (parity vectors for the Python and TS tokenizers)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from gocr.tokenizer import Tokenizer  # noqa: E402

TEXTS = [
    "Hello, world!",
    "The café costs 3.50 € — “quoted” text… 25°C ± 2",
    '<table><thead><tr><th>a</th><th colspan="2">b</th></tr></thead><tbody><tr><td rowspan="3">x</td><td>y</td></tr></tbody></table>',
    '<td colspan="7">odd span</td><td colspan="2" rowspan="2">',
    "\\frac{a}{b} + \\sum_{i=1}^{n} x_i \\int_0^\\infty e^{-x} dx \\in \\inner",
    "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix} \\left( \\alpha \\right) \\mathrm{d}x \\,",
    "\\alphabet \\Gammas \\lefty \\{ \\} \\%",
    "line one\nline two\twith tab",
    "literal <eos> and <mask> are text",
    "emoji 😀 and CJK 漢字 and combining e\u0301",
    "",
    "<th>Ünïcödé ÀÉÎÕÜ ßæøå</th>",
    "x^2 ≤ y ≠ z → ∞",
]


def main():
    tok = Tokenizer.load(os.path.join(os.path.dirname(HERE), "vocab.json"))
    cases = []
    for t in TEXTS:
        ids = tok.encode(t)
        cases.append({"text": t, "ids": ids, "decoded": tok.decode(ids)})
    with open(os.path.join(HERE, "tokenizer_vectors.json"), "w", encoding="utf-8") as f:
        json.dump({"vocab_size": tok.vocab_size, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(cases), "cases")


if __name__ == "__main__":
    main()
