#!/usr/bin/env python3
"""Unit tests of teds.py: the tree edit distance on small generic trees (hand-computed, and
against a brute-force recursion), the Levenshtein distance, HTML parsing and TEDS itself.

    python3 tests/tables/teds_test.py [-v]
"""
import functools
import os
import random
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from teds import (Node, levenshtein, normalized_levenshtein, parse_table,  # noqa: E402
                  parse_tables, table_rename_cost, teds, tree_edit_distance)


def tree(spec):
    """("f", ("d", "a", ("c", "b")), "e") -> Node tree; a bare string is a leaf."""
    if isinstance(spec, str):
        return Node(spec)
    return Node(spec[0], [tree(child) for child in spec[1:]])


def brute_force_distance(t1, t2, rename_cost):
    """The forest-distance recursion itself (exponential memo keys; small trees only).

    d(F, G) = min(d(F - v, G) + 1, d(F, G - w) + 1,
                  d(F - T(v), G - T(w)) + d(kids(v), kids(w)) + rename(v, w))
    with v, w the rightmost roots; an independent check of the Zhang-Shasha implementation.
    """
    @functools.lru_cache(maxsize=None)
    def d(f, g):
        if not f and not g:
            return 0.0
        options = []
        if f:
            v = f[-1]
            options.append(d(f[:-1] + tuple(v.children), g) + 1)
        if g:
            w = g[-1]
            options.append(d(f, g[:-1] + tuple(w.children)) + 1)
        if f and g:
            v, w = f[-1], g[-1]
            options.append(d(f[:-1], g[:-1]) + d(tuple(v.children), tuple(w.children))
                           + rename_cost(v, w))
        return min(options)
    return d((t1,), (t2,))


def levenshtein_table(a, b):
    """The textbook dynamic programme, to check the bit-parallel version against."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def random_tree(rng, size, labels="abc"):
    nodes = [Node(rng.choice(labels))]
    for _ in range(size - 1):
        parent = rng.choice(nodes)
        child = Node(rng.choice(labels))
        parent.children.insert(rng.randint(0, len(parent.children)), child)
        nodes.append(child)
    return nodes[0]


def grid(rows, header=None, spans=None):
    """HTML table from a list of rows of cell texts; spans[(r, c)] = (colspan, rowspan)."""
    spans = spans or {}
    parts = ["<table>"]
    if header:
        parts.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr></thead>")
    parts.append("<tbody>")
    for r, row in enumerate(rows):
        cells = []
        for c, text in enumerate(row):
            colspan, rowspan = spans.get((r, c), (1, 1))
            attrs = (f' colspan="{colspan}"' if colspan > 1 else "") + \
                (f' rowspan="{rowspan}"' if rowspan > 1 else "")
            cells.append(f"<td{attrs}>{text}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)


class TreeEditDistanceTest(unittest.TestCase):
    def test_zhang_shasha_paper_example(self):
        # Zhang & Shasha 1989, fig. 1: delete c, then insert c above d.
        t1 = tree(("f", ("d", "a", ("c", "b")), "e"))
        t2 = tree(("f", ("c", ("d", "a", "b")), "e"))
        self.assertEqual(tree_edit_distance(t1, t2), 2)
        self.assertEqual(tree_edit_distance(t2, t1), 2)

    def test_small_hand_computed(self):
        cases = [
            ("a", "a", 0),
            ("a", "b", 1),                                   # rename
            (("a", "b", "c"), ("a", "b"), 1),                 # delete leaf c
            (("a", ("b", "c", "d")), ("a", "c", "d"), 1),     # delete inner b, c and d move up
            (("a", "b", "c"), ("a", "c", "b"), 2),            # order matters: two renames
            (("a", "b", "c", "d"), ("a", ("e", "b", "c"), "d"), 1),  # insert e above b, c
            (("a", "b"), ("c", "d", "e"), 3),                 # rename a, rename b, insert e
            (("a", "b", "c"), "d", 3),                        # rename root, delete both leaves
            (("r", ("x", "a", "b"), ("y", "c")), ("r", ("y", "c")), 3),  # delete subtree x
        ]
        for s1, s2, expected in cases:
            with self.subTest(t1=s1, t2=s2):
                self.assertEqual(tree_edit_distance(tree(s1), tree(s2)), expected)
                self.assertEqual(tree_edit_distance(tree(s2), tree(s1)), expected)

    def test_against_brute_force(self):
        rng = random.Random(20240611)
        for _ in range(300):
            t1 = random_tree(rng, rng.randint(1, 7))
            t2 = random_tree(rng, rng.randint(1, 7))
            expected = brute_force_distance(t1, t2, lambda a, b: float(a.tag != b.tag))
            self.assertEqual(tree_edit_distance(t1, t2), expected)

    def test_fractional_rename_cost_against_brute_force(self):
        rng = random.Random(7)
        weights = {("a", "b"): 0.25, ("a", "c"): 0.5, ("b", "c"): 1.5}

        def cost(x, y):
            return 0.0 if x.tag == y.tag else weights[tuple(sorted((x.tag, y.tag)))]
        for _ in range(200):
            t1 = random_tree(rng, rng.randint(1, 6))
            t2 = random_tree(rng, rng.randint(1, 6))
            self.assertAlmostEqual(tree_edit_distance(t1, t2, cost),
                                   brute_force_distance(t1, t2, cost))

    def test_missing_tree_costs_its_size(self):
        t = tree(("a", "b", ("c", "d")))
        self.assertEqual(tree_edit_distance(t, None), 4)
        self.assertEqual(tree_edit_distance(None, t), 4)

    def test_deep_tree_no_recursion_limit(self):
        root = node = Node("a")
        for _ in range(3000):
            child = Node("a")
            node.children.append(child)
            node = child
        self.assertEqual(tree_edit_distance(root, Node("a")), 3000)


class LevenshteinTest(unittest.TestCase):
    def test_known(self):
        self.assertEqual(levenshtein("kitten", "sitting"), 3)
        self.assertEqual(levenshtein("", "abc"), 3)
        self.assertEqual(levenshtein("abc", ""), 3)
        self.assertEqual(levenshtein("", ""), 0)
        self.assertEqual(levenshtein("股东名称", "股东名"), 1)  # code points, not bytes

    def test_against_table(self):
        rng = random.Random(3)
        alphabet = "ab c1股东"
        for _ in range(2000):
            a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
            self.assertEqual(levenshtein(a, b), levenshtein_table(a, b), (a, b))

    def test_normalized(self):
        self.assertEqual(normalized_levenshtein("", ""), 0.0)
        self.assertEqual(normalized_levenshtein("", "x"), 1.0)
        self.assertEqual(normalized_levenshtein("abcd", "abxd"), 0.25)
        self.assertEqual(normalized_levenshtein("abxd", "abcd"), 0.25)
        self.assertEqual(normalized_levenshtein("ab", "cd"), 1.0)


class ParseTest(unittest.TestCase):
    def test_structure_and_text(self):
        t = parse_table("<p>before</p><table><tr><th>A &amp; B</th><td>x<br>y  <b>z</b>w</td>"
                        "</tr><tr><td colspan='2' rowspan=3>q</td></tr></table>")
        self.assertEqual(t.tag, "table")
        self.assertEqual([c.tag for c in t.children], ["tbody"])
        rows = t.children[0].children
        self.assertEqual([r.tag for r in rows], ["tr", "tr"])
        self.assertEqual([(c.tag, c.text) for c in rows[0].children],
                         [("td", "A & B"), ("td", "x y zw")])
        self.assertEqual((rows[1].children[0].colspan, rows[1].children[0].rowspan), (2, 3))
        self.assertEqual(t.size(), 1 + 1 + 2 + 3)

    def test_omitted_end_tags_and_several_tables(self):
        tables = parse_tables("<table><thead><tr><td>a<td>b<tbody><tr><td>c<td rowspan=x>d"
                              "</table><table><tr><td>in<table><tr><td>nested</table>after"
                              "</td></tr></table>")
        self.assertEqual(len(tables), 2)
        first, second = tables
        self.assertEqual([s.tag for s in first.children], ["thead", "tbody"])
        self.assertEqual([c.text for c in first.children[1].children[0].children], ["c", "d"])
        self.assertEqual(first.children[1].children[0].children[1].rowspan, 1)  # bad value
        self.assertEqual(second.size(), 4)  # the nested table is text of its cell
        self.assertEqual(second.children[0].children[0].children[0].text, "in nested after")

    def test_no_table(self):
        self.assertEqual(parse_tables("<p>text</p>"), [])
        self.assertEqual(parse_tables(""), [])
        self.assertEqual(parse_tables(None), [])
        self.assertIsNone(parse_table("<h2>x</h2>"))


class TedsTest(unittest.TestCase):
    GT = grid([["Name", "Qty"], ["apple", "3"], ["pear", "12"]])  # 1 + 1 + 3 + 6 = 11 nodes

    def assertSymmetric(self, a, b, expected, structure_only=False):
        self.assertAlmostEqual(teds(a, b, structure_only), expected)
        self.assertAlmostEqual(teds(b, a, structure_only), expected)

    def test_identical(self):
        self.assertEqual(teds(self.GT, self.GT), 1.0)
        self.assertEqual(teds(self.GT, self.GT, structure_only=True), 1.0)

    def test_missing_row(self):
        # Deleting a tr and its two cells: 3 edits over max(8, 11) nodes.
        pred = grid([["Name", "Qty"], ["apple", "3"]])
        self.assertSymmetric(pred, self.GT, 1 - 3 / 11)
        self.assertSymmetric(pred, self.GT, 1 - 3 / 11, structure_only=True)

    def test_extra_column(self):
        # One extra cell per row: 3 inserts over max(14, 11) nodes.
        pred = grid([["Name", "Qty", ""], ["apple", "3", ""], ["pear", "12", ""]])
        self.assertSymmetric(pred, self.GT, 1 - 3 / 14, structure_only=True)

    def test_wrong_span_costs_one(self):
        gt = grid([["a", "b"], ["c"]], spans={(0, 0): (1, 2)})  # 7 nodes
        pred = grid([["a", "b"], ["c"]])
        self.assertSymmetric(pred, gt, 1 - 1 / 7)
        self.assertSymmetric(pred, gt, 1 - 1 / 7, structure_only=True)
        wide = grid([["ab"], ["c", "d"]], spans={(0, 0): (2, 1)})
        narrow = grid([["ab"], ["c", "d"]])
        self.assertSymmetric(narrow, wide, 1 - 1 / 7, structure_only=True)

    def test_one_char_in_four(self):
        gt = grid([["abcd", "ef"]])  # 5 nodes
        pred = grid([["abxd", "ef"]])
        self.assertSymmetric(pred, gt, 1 - 0.25 / 5)
        self.assertSymmetric(pred, gt, 1.0, structure_only=True)

    def test_cjk_text_is_code_points(self):
        gt = grid([["股东名称", "比例"]])
        pred = grid([["股东名", "比例"]])
        self.assertSymmetric(pred, gt, 1 - 0.25 / 5)

    def test_th_equals_td(self):
        with_th = "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>"
        with_td = "<table><tr><td>A</td><td>B</td></tr><tr><td>1</td><td>2</td></tr></table>"
        self.assertEqual(teds(with_th, with_td), 1.0)

    def test_implicit_tbody(self):
        bare = "<table><tr><td>A</td></tr><tr><td>B</td></tr></table>"
        explicit = "<table><tbody><tr><td>A</td></tr><tr><td>B</td></tr></tbody></table>"
        self.assertEqual(teds(bare, explicit), 1.0)
        self.assertEqual(parse_table(bare).size(), 6)

    def test_thead_versus_all_body(self):
        # table(thead(tr(2 td)), tbody(tr(2 td))) has 9 nodes; without the thead, 8. The
        # cheapest script deletes the pred tbody and inserts thead and tbody around the rows: 3.
        gt = grid([["1", "2"]], header=["A", "B"])
        pred = grid([["A", "B"], ["1", "2"]])
        self.assertSymmetric(pred, gt, 1 - 3 / 9)
        check = brute_force_distance(parse_table(pred), parse_table(gt), table_rename_cost(False))
        self.assertEqual(check, 3)

    def test_entities_and_br(self):
        gt = "<table><tr><td>A&B C D</td><td>x y</td></tr></table>"
        pred = ("<table><tr><td>A&amp;B<br>C&nbsp;D</td>"
                "<td>\n  x <br/>\n y </td></tr></table>")
        self.assertEqual(teds(pred, gt), 1.0)

    def test_empty_prediction(self):
        for pred in ("", None, "<p>Name Qty apple 3</p>"):
            self.assertEqual(teds(pred, self.GT), 0.0)
            self.assertEqual(teds(pred, self.GT, structure_only=True), 0.0)

    def test_empty_table_prediction(self):
        # A bare <table> is 1 node: 10 inserts over 11 nodes.
        self.assertAlmostEqual(teds("<table></table>", self.GT), 1 - 10 / 11)

    def test_score_clipped(self):
        pred = grid([["x" * 5] * 6] * 6)
        gt = grid([["y"]])
        score = teds(pred, gt)
        self.assertGreaterEqual(score, 0.0)
        self.assertLessEqual(score, 1.0)

    def test_random_tables_against_brute_force(self):
        rng = random.Random(11)
        for _ in range(40):
            tables = []
            for _ in range(2):
                rows = [[rng.choice(["a", "ab", "b", ""]) for _ in range(rng.randint(1, 2))]
                        for _ in range(rng.randint(1, 2))]
                spans = {(0, 0): (rng.randint(1, 2), 1)}
                tables.append(grid(rows, spans=spans))
            t1, t2 = (parse_table(t) for t in tables)
            for structure_only in (False, True):
                cost = table_rename_cost(structure_only)
                self.assertAlmostEqual(tree_edit_distance(t1, t2, cost),
                                       brute_force_distance(t1, t2, cost))

    def test_20x10_completes(self):
        rng = random.Random(5)

        def numbers():
            return [[str(rng.randint(0, 10 ** rng.randint(1, 8))) for _ in range(10)]
                    for _ in range(19)]
        header = [f"Column {c}" for c in range(10)]
        gt, pred = grid(numbers(), header=header), grid(numbers()[:18], header=header)
        start = time.monotonic()
        full = teds(pred, gt)
        structure = teds(pred, gt, structure_only=True)
        elapsed = time.monotonic() - start
        self.assertLess(elapsed, 10.0)
        # table, thead, header tr, 10 th, tbody, 19 tr, 190 td = 223 nodes; a row is 11.
        self.assertAlmostEqual(structure, 1 - 11 / 223)
        self.assertLess(full, structure)


if __name__ == "__main__":
    unittest.main()
