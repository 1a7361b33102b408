"""Build training/vocab.json: specials + HTML table pieces + LaTeX commands + characters.

Run: /usr/bin/python3 training/build_vocab.py   (the order of tokens is the contract; append only)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gocr.tokenizer import SPECIALS, SPECIAL_NAMES  # noqa: E402

HTML = ["<table>", "</table>", "<thead>", "</thead>", "<tbody>", "</tbody>", "<tr>", "</tr>",
        "<td>", "</td>", "<th>", "</th>", "<td", "<th"]
HTML += [f' colspan="{n}"' for n in range(2, 7)] + [f' rowspan="{n}"' for n in range(2, 7)]

GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
         "xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
         "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
LATEX_WORDS = (
    "frac dfrac tfrac sqrt sum prod coprod int iint iiint oint lim limsup liminf sup inf max min "
    "log ln exp sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh det dim ker deg gcd arg Pr "
    "mod bmod pmod leq geq neq le ge ne leqslant geqslant approx equiv sim simeq cong propto ll gg "
    "lesssim gtrsim prec succ preceq succeq subset subseteq supset supseteq in notin ni cup cap "
    "bigcup bigcap bigoplus bigotimes setminus emptyset varnothing forall exists nabla partial infty "
    "pm mp times div cdot cdots ldots dots vdots ddots circ bullet star ast oplus otimes wedge vee "
    "neg lnot to rightarrow leftarrow Rightarrow Leftarrow leftrightarrow Leftrightarrow "
    "longrightarrow Longrightarrow mapsto implies iff uparrow downarrow xrightarrow "
    "langle rangle lfloor rfloor lceil rceil lbrace rbrace vert Vert lvert rvert lVert rVert "
    "mid nmid parallel perp angle triangle prime ell hbar Re Im aleph top bot dagger therefore because "
    "left right big Big bigg Bigg bigl bigr Bigl Bigr mathrm mathbf mathit mathcal mathbb mathsf "
    "mathtt mathfrak boldsymbol text textbf textit textrm operatorname displaystyle limits nolimits "
    "hat bar tilde vec dot ddot overline underline widehat widetilde overbrace underbrace "
    "overrightarrow overset underset stackrel binom not colon quad qquad hline phantom tag").split()
ENVS = "pmatrix bmatrix vmatrix Bmatrix matrix array cases aligned align gathered split smallmatrix".split()
LATEX = ["\\" + w for w in GREEK + LATEX_WORDS]
LATEX += [f"\\begin{{{e}}}" for e in ENVS] + [f"\\end{{{e}}}" for e in ENVS]
LATEX += ["\\\\", "\\{", "\\}", "\\,", "\\;", "\\!", "\\:", "\\ ", "\\%", "\\$", "\\&", "\\_", "\\#", "\\|"]

ASCII = [chr(c) for c in range(0x20, 0x7F)] + ["\n", "\t"]
EXTRA = ("\u00a0–—‘’‚“”„•…°±×÷µ§¶©®™€£¥¢¬¦¨ªº«»¹²³¼½¾¿¡·†‡‰′″→←↑↓↔⇒⇔≤≥≠≈≡∞√∑∏∫∂∇∈∉⊂⊆∪∩∧∨∀∃∅"
         "αβγδεζηθικλμνξοπρστυφχψωΓΔΘΛΞΠΣΦΨΩ−ŒœŠšŽžŸƒﬁﬂ")
LATIN1 = [chr(c) for c in range(0xC0, 0x100)]
# appended 2026-12-02 (bullets seen in synth targets, a few common symbols)
EXTRA2 = "▪■□●○◦▸►✓✗★‐‑‹›∼⋅∗∘"


def build_tokens():
    tokens = list(SPECIALS)
    seen = set(tokens)
    for t in HTML + LATEX + ASCII + list(EXTRA) + LATIN1 + list(EXTRA2):
        if t not in seen:
            seen.add(t)
            tokens.append(t)
    return tokens


def main():
    tokens = build_tokens()
    vocab = {"tokens": tokens, "specials": {n: i for i, n in enumerate(SPECIAL_NAMES)}}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vocab.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"wrote {out}: {len(tokens)} tokens")


if __name__ == "__main__":
    main()
