"""Tokenizer: parity vectors (shared with src/recognizer/tokenizer.test.ts) and invariants."""
import json
import os
import unittest

from gocr.tokenizer import SPECIALS, Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))


class TokenizerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = Tokenizer.load(os.path.join(HERE, "vocab.json"))

    def test_specials_order(self):
        self.assertEqual(self.tok.tokens[:9], SPECIALS)
        with open(os.path.join(HERE, "vocab.json"), encoding="utf-8") as f:
            sp = json.load(f)["specials"]
        self.assertEqual(sp["eos"], 2)
        self.assertEqual(sp["mask"], 3)
        self.assertEqual(sp["task_formula"], 8)

    def test_vectors(self):
        with open(os.path.join(HERE, "tests", "tokenizer_vectors.json"), encoding="utf-8") as f:
            vec = json.load(f)
        self.assertEqual(vec["vocab_size"], self.tok.vocab_size)
        for c in vec["cases"]:
            self.assertEqual(self.tok.encode(c["text"]), c["ids"], c["text"])
            self.assertEqual(self.tok.decode(c["ids"]), c["decoded"])

    def test_longest_match_and_roundtrip(self):
        t = self.tok
        ids = t.encode('\\infty<td colspan="2">')
        self.assertEqual([t.tokens[i] for i in ids], ["\\infty", "<td", ' colspan="2"', ">"])
        s = "plain ASCII text with \\frac{1}{2} and <tr><td>x</td></tr>"
        self.assertEqual(t.decode(t.encode(s)), s)
        self.assertNotIn(t.eos_id, t.encode("<eos>"))


if __name__ == "__main__":
    unittest.main()
