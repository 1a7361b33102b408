"""Tokenizer shared with the TS twin (src/recognizer/tokenizer.ts) through vocab.json.

Rules (docs/ARCHITECTURE.md): ids 0..8 are the specials in a fixed order; multi-character tokens
(HTML table pieces, LaTeX commands) are matched longest-first; everything else is one Unicode code
point; unknown code points become <unk>. Specials are never produced from text (a literal "<eos>"
in a target is spelled out character by character). decode() skips specials except <unk> (U+FFFD).
"""
import json

SPECIALS = ["<pad>", "<bos>", "<eos>", "<mask>", "<unk>", "<sep>",
            "<task_text>", "<task_table>", "<task_formula>"]
SPECIAL_NAMES = ["pad", "bos", "eos", "mask", "unk", "sep", "task_text", "task_table", "task_formula"]
TASKS = ("text", "table", "formula")
UNK_CHAR = "\ufffd"


class Tokenizer:
    def __init__(self, tokens):
        if list(tokens[:len(SPECIALS)]) != SPECIALS:
            raise ValueError("vocab.json: the first tokens must be the specials " + " ".join(SPECIALS)
                             + " in this order; re-run training/build_vocab.py")
        self.tokens = list(tokens)
        self.n_specials = len(SPECIALS)
        self.id_of = {}
        for i, t in enumerate(self.tokens):
            if i >= self.n_specials:
                if t in self.id_of:
                    raise ValueError(f"vocab.json: duplicate token {t!r}")
                self.id_of[t] = i
        # multi-code-point tokens grouped by first character, longest first
        self.multi = {}
        for t, i in self.id_of.items():
            if len(t) > 1:
                self.multi.setdefault(t[0], []).append((t, i))
        for v in self.multi.values():
            v.sort(key=lambda ti: (-len(ti[0]), ti[1]))
        for j, name in enumerate(SPECIAL_NAMES):
            setattr(self, name + "_id", j)
        self.task_ids = {t: self.id_of_special(f"<task_{t}>") for t in TASKS}

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f)["tokens"])

    def id_of_special(self, s):
        return SPECIALS.index(s)

    @property
    def vocab_size(self):
        return len(self.tokens)

    def encode(self, text):
        ids, i, n = [], 0, len(text)
        while i < n:
            c = text[i]
            for t, tid in self.multi.get(c, ()):
                if text.startswith(t, i):
                    ids.append(tid)
                    i += len(t)
                    break
            else:
                ids.append(self.id_of.get(c, self.unk_id))
                i += 1
        return ids

    def decode(self, ids):
        out = []
        for i in ids:
            i = int(i)
            if i == self.unk_id:
                out.append(UNK_CHAR)
            elif self.n_specials <= i < len(self.tokens):
                out.append(self.tokens[i])
        return "".join(out)

    def is_structure(self, i):
        """HTML table structure token (used to drop tags from the CTC target)."""
        t = self.tokens[i]
        return len(t) > 1 and (t.startswith("<") or t.startswith(" colspan") or t.startswith(" rowspan"))
