"""TEDS on hand-computed cases (tree: table > tr > td; costs per PubTabNet)."""
import unittest

from gocr.metrics import cer, edit_similarity
from gocr.teds import parse_table, count_nodes, teds, tree_edit_distance

REF = "<table><tr><td>a</td><td>b</td></tr></table>"  # 4 nodes: table, tr, td, td


class TedsTest(unittest.TestCase):
    def test_identical(self):
        self.assertEqual(teds(REF, REF), 1.0)
        big = ('<table><thead><tr><th>h1</th><th colspan="2">h2</th></tr></thead><tbody>'
               '<tr><td>1</td><td>2</td><td>3</td></tr></tbody></table>')
        self.assertEqual(teds(big, big), 1.0)
        self.assertEqual(count_nodes(parse_table(big)), 10)

    def test_missing_cell(self):  # delete one td: 1 - 1/4
        self.assertAlmostEqual(teds("<table><tr><td>a</td></tr></table>", REF), 0.75)

    def test_content(self):  # rename td b->c costs 1 (struct: 0); "ab" vs "ac" costs 1/2
        self.assertAlmostEqual(teds("<table><tr><td>a</td><td>c</td></tr></table>", REF), 0.75)
        self.assertAlmostEqual(teds("<table><tr><td>a</td><td>c</td></tr></table>", REF, struct_only=True), 1.0)
        self.assertAlmostEqual(teds("<table><tr><td>a</td><td>ac</td></tr></table>",
                                    "<table><tr><td>a</td><td>ab</td></tr></table>"), 1 - 0.5 / 4)

    def test_span(self):  # colspan differs: rename cost 1
        self.assertAlmostEqual(teds('<table><tr><td>a</td><td colspan="2">b</td></tr></table>', REF), 0.75)

    def test_extra_row(self):  # insert tr + 2 td: 1 - 3/7
        pred = "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
        self.assertAlmostEqual(teds(pred, REF, struct_only=True), 1 - 3 / 7)
        self.assertAlmostEqual(tree_edit_distance(parse_table(pred), parse_table(REF), True), 3)

    def test_garbage_and_unclosed(self):
        self.assertEqual(teds("no table here", REF), 0.0)
        # unclosed cells/rows are closed implicitly: same tree as REF
        self.assertEqual(teds("<table><tr><td>a<td>b", REF), 1.0)

    def test_text_metrics(self):
        self.assertAlmostEqual(cer("helo", "hello"), 0.2)
        self.assertAlmostEqual(edit_similarity("abcd", "abcf"), 0.75)
        self.assertEqual(edit_similarity("", ""), 1.0)


if __name__ == "__main__":
    unittest.main()
